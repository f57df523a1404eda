import type { IncomingMessage } from 'node:http';
import { fieldPath, findJsonFlaw, PayloadTooLargeError, ValidationError } from '@svc/domain';
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
  const flaw = typeof body === 'object' && body !== null ? findJsonFlaw(body) : undefined;
  if (flaw) throw new ValidationError(fieldPath(flaw.path, 'body'), flaw.message);
  return body;
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
