/**
 * The management API's bearer token, checked first: a request without the right token is
 * answered 401 before its body is read or parsed (Node then drains and drops the rest).
 */
import type { RequestHandler } from 'express';
import { UnauthorizedError, type RejectionReason } from '@svc/domain';

export interface BearerCheck {
  /** Constant-time check of a presented bearer token. */
  checkToken: (token: string) => boolean;
  /** Told of every refused request, e.g. to audit rejected sign-ins. */
  onRejected?: (address: string, reason: RejectionReason) => void;
}

export function requireBearer({ checkToken, onRejected }: BearerCheck): RequestHandler {
  return (req, _res, next) => {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    if (token && checkToken(token)) return next();
    onRejected?.(req.socket.remoteAddress ?? 'unknown', token ? 'wrong' : 'missing');
    next(new UnauthorizedError('missing or wrong bearer token'));
  };
}
