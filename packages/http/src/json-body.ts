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
 * Unicode. Plain listeners and one promise: an async iterator costs a promise per chunk.
 */
export function readJsonBody(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<unknown> {
  return answerBody(req, limit, parseJsonBody);
}

/**
 * Reads the body as text and answers it with `answer` as soon as it is read: one promise per
 * request, where reading, then parsing, then answering would cost a promise and a microtask
 * each (on every evaluate-ab and OFREP request). An error `answer` throws rejects the promise.
 */
export function answerBody<T>(
  req: IncomingMessage,
  limit: number,
  answer: (text: string) => T,
): Promise<T> {
  return new Promise((resolve, reject) => {
    readBody(
      req,
      limit,
      (text) => {
        try {
          resolve(answer(text));
        } catch (error) {
          reject(error);
        }
      },
      reject,
    );
  });
}

/** Plain listeners, no promise: `answerBody` makes the one a request needs. */
function readBody(
  req: IncomingMessage,
  limit: number,
  onText: (text: string) => void,
  onError: (error: unknown) => void,
): void {
  if (Number(req.headers['content-length']) > limit) return onError(tooLarge(req, limit));
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size <= limit) return void chunks.push(chunk);
    chunks.length = 0;
    req.off('data', onData);
    onError(tooLarge(req, limit));
  };
  req.on('data', onData);
  req.on('end', () => {
    if (size > limit) return;
    onText((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString());
  });
  req.on('error', onError);
}

/** A body's JSON: 400 when not JSON, nested too deep, or not well-formed Unicode. */
export function parseJsonBody(text: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ValidationError('body', 'request body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || !mayBeFlawed(text, body)) return body;
  const flaw = findJsonFlaw(body);
  if (flaw) throw new ValidationError(fieldPath(flaw.path, 'body'), flaw.message);
  return body;
}

/**
 * Whether the parsed body could nest deeper than the limit or hold a lone surrogate. A
 * surrogate reaches JSON.parse only as a `\u` escape (decoded UTF-8 holds none), which one
 * native search of the text rules out; depth is checked on the parsed value, by a recursion
 * that stops at the limit (so no body can exhaust the stack) and allocates nothing. Most bodies
 * have neither flaw and skip findJsonFlaw's walk (a few microseconds on every evaluate-ab
 * request); the others get its exact answer and place.
 */
function mayBeFlawed(text: string, body: object): boolean {
  return text.includes('\\u') || nestsDeeperThan(body, JSON_MAX_DEPTH);
}

/** Whether `value` (an object or array) holds containers nested more than `levels` deep. */
function nestsDeeperThan(value: object, levels: number): boolean {
  if (levels === 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (deeperThan(value[i], levels - 1)) return true;
    return false;
  }
  // JSON.parse makes plain objects: no inherited enumerable members.
  for (const name in value) {
    if (deeperThan((value as Record<string, unknown>)[name], levels - 1)) return true;
  }
  return false;
}

function deeperThan(member: unknown, levels: number): boolean {
  return typeof member === 'object' && member !== null && nestsDeeperThan(member, levels);
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
