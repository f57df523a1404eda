/**
 * OFREP's answer bodies, as JSON text. Every body carries `metadata` (an empty object): the
 * Java OFREP provider reads it from every answer, errors included, and fails without it.
 */
import type { ServerResponse } from 'node:http';
import type { OfrepResolution } from '@svc/domain';
import { JSON_HEAD, writeJson } from '../json-response.ts';
import { OfrepRequestError } from './ofrep-request.ts';

/** `{"key","value","reason","variant","metadata"}` of one resolution. */
export function resolutionJson(r: OfrepResolution): string {
  return `{"key":${JSON.stringify(r.key)},"value":${r.valueJson},"reason":"${r.reason}","variant":"${r.variant}","metadata":{}}`;
}

/** Writes one resolution (200). */
export function writeResolution(res: ServerResponse, resolution: OfrepResolution): number {
  const text = resolutionJson(resolution);
  res.writeHead(200, [...JSON_HEAD, 'Content-Length', String(Buffer.byteLength(text))]);
  res.end(text);
  return 200;
}

/** 404 `FLAG_NOT_FOUND`: neither a flag nor a config the key sees. */
export function writeNotFound(res: ServerResponse, key: string): number {
  return writeJson(res, 404, {
    key,
    errorCode: 'FLAG_NOT_FOUND',
    errorDetails: `no flag or config '${key}' for this key`,
    metadata: {},
  });
}

/**
 * 400 with OFREP's error body when `error` is a request OFREP cannot evaluate (with `key` for a
 * single evaluation); any other error is rethrown for the listener to answer.
 */
export function writeRequestError(res: ServerResponse, error: unknown, key?: string): number {
  if (!(error instanceof OfrepRequestError)) throw error;
  return writeJson(res, 400, {
    ...(key === undefined ? {} : { key }),
    errorCode: error.errorCode,
    errorDetails: error.message,
    metadata: {},
  });
}
