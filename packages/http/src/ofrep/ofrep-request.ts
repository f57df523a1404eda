/**
 * The OFREP request body, `{"context": {"targetingKey": "u-123", "country": "DE", …}}`, read and
 * validated within evaluate-ab's limits: `targetingKey` is the user id, every other entry an
 * attribute. A missing or null context is an empty one; an empty `targetingKey` is none.
 */
import type { IncomingMessage } from 'node:http';
import { EVALUATE_AB_BODY_MAX_BYTES, ValidationError, type OfrepContext } from '@svc/domain';
import { parseAttributes, parseUserId } from '../evaluate-ab-body.ts';
import { answerBody, parseJsonBody } from '../json-body.ts';

/** OFREP's error codes for a request it cannot evaluate. */
export type OfrepRequestErrorCode = 'PARSE_ERROR' | 'INVALID_CONTEXT';

/** A request OFREP answers 400 with `{errorCode, errorDetails}`. */
export class OfrepRequestError extends Error {
  constructor(
    readonly errorCode: OfrepRequestErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const NO_CONTEXT: OfrepContext = { userId: undefined, attributes: {} };

/** Reads the body as text (413 over 64 KiB, as evaluate-ab) and answers it with `answer`. */
export function answerOfrepBody(
  req: IncomingMessage,
  answer: (text: string) => number,
): Promise<number> {
  return answerBody(req, EVALUATE_AB_BODY_MAX_BYTES, answer);
}

/** The validated context of a body's text. */
export function ofrepContextOf(text: string): OfrepContext {
  let body: unknown;
  try {
    body = parseJsonBody(text);
  } catch (error) {
    if (error instanceof ValidationError) throw new OfrepRequestError('PARSE_ERROR', error.message);
    throw error;
  }
  return parseOfrepBody(body);
}

export function parseOfrepBody(body: unknown): OfrepContext {
  if (!isObject(body)) throw new OfrepRequestError('PARSE_ERROR', 'body: must be a JSON object');
  const context = body['context'];
  if (context === undefined || context === null) return NO_CONTEXT;
  if (!isObject(context)) {
    throw new OfrepRequestError('INVALID_CONTEXT', 'context: must be an object');
  }
  const { targetingKey, ...attributes } = context;
  try {
    return {
      userId:
        targetingKey === undefined || targetingKey === null || targetingKey === ''
          ? undefined
          : parseUserId(targetingKey, 'context.targetingKey'),
      attributes: parseAttributes(attributes, 'context'),
    };
  } catch (error) {
    if (error instanceof ValidationError) {
      throw new OfrepRequestError('INVALID_CONTEXT', error.message);
    }
    throw error;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
