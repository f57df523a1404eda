import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { corsHeaders } from './cors.ts';

/** Headers of every JSON answer of the api but the prepared sync ones. */
export const jsonHeaders = {
  ...corsHeaders,
  'Content-Type': 'application/json',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
} as const;

/** Writes `body` as JSON; returns the status, as handlers do. */
export function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = jsonHeaders,
): number {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
  return status;
}
