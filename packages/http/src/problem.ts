/**
 * problem+json (RFC 9457) for every 4xx/5xx. `statusByCode` is the one table that maps domain
 * error codes to HTTP statuses.
 */
import type { ServerResponse } from 'node:http';
import {
  DomainError,
  RateLimitedError,
  StorageUnavailableError,
  SyncQuarantinedError,
  ValidationError,
  type ErrorCode,
} from '@svc/domain';
import { HttpRefusal, type HttpProblemCode } from './http-errors.ts';

/** Every code a problem+json body can carry. */
export type ProblemCode = ErrorCode | HttpProblemCode | 'internal';

export const statusByCode: Record<Exclude<ProblemCode, 'internal'>, number> = {
  invalid_request: 400,
  unauthorized: 401,
  billing_overdue: 402,
  ab_addon_inactive: 403,
  public_key_forbidden: 403,
  not_found: 404,
  secret_not_found: 404,
  version_not_found: 404,
  version_conflict: 409,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  sync_quarantined: 429,
  storage_unavailable: 503,
  method_not_allowed: 405,
  unavailable: 503,
  too_many_streams: 429,
  upstream_unavailable: 502,
};

const titleByCode: Record<ProblemCode, string> = {
  invalid_request: 'Invalid request',
  unauthorized: 'Unauthorized',
  billing_overdue: 'Billing overdue',
  ab_addon_inactive: 'AB Testing add-on inactive',
  public_key_forbidden: 'Public key forbidden',
  not_found: 'Not found',
  secret_not_found: 'Secret not found',
  version_not_found: 'Version not found',
  version_conflict: 'Version conflict',
  conflict: 'Conflict',
  payload_too_large: 'Payload too large',
  rate_limited: 'Rate limited',
  sync_quarantined: 'Sync quarantined',
  storage_unavailable: 'Storage unavailable',
  method_not_allowed: 'Method not allowed',
  unavailable: 'Service unavailable',
  too_many_streams: 'Too many streams',
  upstream_unavailable: 'Upstream unavailable',
  internal: 'Internal server error',
};

export interface Problem {
  type: string;
  title: string;
  status: number;
  code: ProblemCode;
  detail: string;
  /** The failing field, for `invalid_request`. */
  field?: string;
}

export function problem(code: ProblemCode, detail: string, field?: string): Problem {
  const status = code === 'internal' ? 500 : statusByCode[code];
  return {
    type: `urn:svc:problem:${code}`,
    title: titleByCode[code],
    status,
    code,
    detail,
    ...(field === undefined ? {} : { field }),
  };
}

/** The problem for a thrown value; undefined when it is not a known refusal (a 500). */
export function problemOf(
  error: unknown,
): { problem: Problem; headers: Record<string, string> } | undefined {
  if (error instanceof HttpRefusal) {
    return { problem: problem(error.code, error.message), headers: { ...error.headers } };
  }
  if (!(error instanceof DomainError)) return undefined;
  const headers: Record<string, string> = {};
  if (
    error instanceof RateLimitedError ||
    error instanceof SyncQuarantinedError ||
    error instanceof StorageUnavailableError
  ) {
    headers['Retry-After'] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
  }
  const field = error instanceof ValidationError ? error.field : undefined;
  return { problem: problem(error.code, error.message, field), headers };
}

export function writeProblem(
  res: ServerResponse,
  p: Problem,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(p);
  res.writeHead(p.status, {
    ...headers,
    'Content-Type': 'application/problem+json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}
