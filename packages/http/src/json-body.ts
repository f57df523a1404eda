import type { IncomingMessage } from 'node:http';
import {
  fieldPath,
  findJsonFlaw,
  JSON_MAX_DEPTH,
  PayloadTooLargeError,
  ValidationError,
} from '@svc/domain';
import { BODY_LIMIT_BYTES } from './express-support.ts';

function tooLarge(req: IncomingMessage, limit: number): PayloadTooLargeError {
  // Read no further: the listener answers and then closes the connection (see api-server.ts).
  req.pause();
  return new PayloadTooLargeError(`request body is over ${limit} bytes`);
}

/**
 * Reads and parses a JSON request body for lean handlers: 413 over the limit (the rest is not
 * read), 400 when not JSON, nested deeper than the domain's JSON limit, or not well-formed
 * Unicode. Plain listeners and one promise: an async iterator costs a promise per chunk, and
 * this runs on every evaluate-ab request.
 */
export function readJsonBody(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<unknown> {
  return readBodyText(req, limit).then(parseJsonBody);
}

/** A request body as text: 413 over the limit (the rest is not read). */
export function readBodyText(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<string> {
  if (Number(req.headers['content-length']) > limit) return Promise.reject(tooLarge(req, limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      chunks.length = 0;
      req.off('data', onData);
      reject(tooLarge(req, limit));
    };
    req.on('data', onData);
    req.on('end', () => {
      if (size > limit) return;
      resolve((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString());
    });
    req.on('error', reject);
  });
}

/** A body's JSON: 400 when not JSON, nested too deep, or not well-formed Unicode. */
export function parseJsonBody(text: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ValidationError('body', 'request body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || !mayBeFlawed(text)) return body;
  const flaw = findJsonFlaw(body);
  if (flaw) throw new ValidationError(fieldPath(flaw.path, 'body'), flaw.message);
  return body;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const U = 0x75;

/**
 * Whether the JSON text could nest deeper than the limit or hold a lone surrogate, decided in
 * one pass over its characters: a surrogate reaches JSON.parse only as a `\u` escape (decoded
 * UTF-8 holds none), and depth is the run of unclosed brackets outside strings. Most bodies
 * have neither, and skip the walk over the parsed value (a few microseconds on every evaluate-ab
 * request); the others get findJsonFlaw's exact answer and place.
 */
function mayBeFlawed(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) {
        if (text.charCodeAt(i + 1) === U) return true;
        i++;
      } else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > JSON_MAX_DEPTH) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * True while a request's announced body has not been read to its end: a refusal sent now must
 * close the connection, or the server would go on reading what it refused.
 */
export function bodyLeftUnread(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}
