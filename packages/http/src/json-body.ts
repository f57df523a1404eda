import type { IncomingMessage } from 'node:http';
import { PayloadTooLargeError, ValidationError } from '@svc/domain';
import { BODY_LIMIT_BYTES } from './express-support.ts';

function tooLarge(limit: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`request body is over ${limit} bytes`);
}

/**
 * Reads and parses a JSON request body for lean handlers: 413 over the limit, 400 when not JSON.
 * Plain listeners and one promise: an async iterator costs a promise per chunk, and this runs
 * on every evaluate-ab request.
 */
export function readJsonBody(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<unknown> {
  if (Number(req.headers['content-length']) > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      if (size > limit) return; // Over the limit: the rest is read and dropped.
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        reject(tooLarge(limit));
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > limit) return;
      const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString();
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(new ValidationError('body', 'request body is not valid JSON'));
      }
    });
    req.on('error', reject);
  });
}
