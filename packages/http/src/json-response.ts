import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { corsHeaders } from './cors.ts';

/** Headers of every JSON answer of the api but the prepared sync ones. */
export const jsonHeaders = {
  ...corsHeaders,
  'Content-Type': 'application/json',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
} as const;

/**
 * Headers as the flat `[name, value, …]` list `writeHead` takes as it is. Given an object, node
 * passes each header through `setHeader` first (validated, lower-cased, stored, then written):
 * about 1 µs a header, which on a 304 was a third of its cost.
 */
export function headerList(headers: OutgoingHttpHeaders): string[] {
  const list: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) list.push(name, String(value));
  }
  return list;
}

/** `jsonHeaders` as a header list. */
export const JSON_HEAD: readonly string[] = headerList(jsonHeaders);

/** Writes `body` as JSON; returns the status, as handlers do. */
export function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = jsonHeaders,
): number {
  const text = JSON.stringify(body);
  const head = headers === jsonHeaders ? JSON_HEAD : headerList(headers);
  res.writeHead(status, [...head, 'Content-Length', String(Buffer.byteLength(text))]);
  res.end(text);
  return status;
}
