/**
 * Request bodies of the management API: JSON up to 1 MiB, then checked as a whole before any
 * schema sees it: no member nests deeper than JSON_MAX_DEPTH, no text holds a lone surrogate.
 * A deeply nested body would otherwise exhaust the stack of the recursive code after it (a 500).
 */
import type { RequestHandler } from 'express';
import { fieldPath, findJsonFlaw, isWellFormedText, ValidationError } from '@svc/domain';
import { jsonBody } from '../express-support.ts';

const checkBody: RequestHandler = (req, _res, next) => {
  const body: unknown = req.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    const flaw = findJsonFlaw(body);
    return next(
      flaw && new ValidationError(fieldPath(['body', ...flaw.path], 'body'), flaw.message),
    );
  }
  // An object body's members are the fields the limits speak of (a config's `value`).
  for (const [name, value] of Object.entries(body)) {
    if (!isWellFormedText(name)) {
      return next(new ValidationError('body', 'has a member name that is not well-formed Unicode'));
    }
    const flaw = findJsonFlaw(value);
    if (flaw)
      return next(new ValidationError(fieldPath([name, ...flaw.path], 'body'), flaw.message));
  }
  next();
};

export const managementBody: RequestHandler[] = [jsonBody, checkBody];
