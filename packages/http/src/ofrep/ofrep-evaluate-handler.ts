/**
 * `POST {base_url}/ofrep/v1/evaluate/flags/{key}`: one key of the caller's view, resolved for
 * the context (a flag, else a config; never a secret). It never refuses for billing or the AB
 * Testing add-on, it evaluates statically instead, and it does not count toward the sync
 * quarantine.
 */
import { evaluatesPerUser, resolveOfrepKey, type OfrepContext, type ReadModel } from '@svc/domain';
import type { KeyRoute } from '../route-table.ts';
import { writeNotFound, writeRequestError, writeResolution } from './ofrep-answers.ts';
import { answerOfrepBody, ofrepContextOf } from './ofrep-request.ts';

export function ofrepEvaluateHandler({ model }: { model: ReadModel }): KeyRoute['handle'] {
  return (req, res, { principal, params }) => {
    const key = params['key']!;
    return answerOfrepBody(req, (text) => {
      let context: OfrepContext;
      try {
        context = ofrepContextOf(text);
      } catch (error) {
        return writeRequestError(res, error, key);
      }
      const view = model.viewOf(principal);
      const resolution = resolveOfrepKey(view, evaluatesPerUser(principal), key, context);
      return resolution ? writeResolution(res, resolution) : writeNotFound(res, key);
    });
  };
}
