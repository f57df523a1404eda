import type { IncomingMessage } from 'node:http';
import { PayloadTooLargeError, ValidationError } from '@svc/domain';
import { BODY_LIMIT_BYTES } from './express-support.ts';

/** Reads and parses a JSON request body for lean handlers: 413 over the limit, 400 when not JSON. */
export async function readJsonBody(
  req: IncomingMessage,
  limit = BODY_LIMIT_BYTES,
): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) throw new PayloadTooLargeError(`request body is over ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new PayloadTooLargeError(`request body is over ${limit} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks, size).toString('utf8'));
  } catch {
    throw new ValidationError('body', 'request body is not valid JSON');
  }
}
