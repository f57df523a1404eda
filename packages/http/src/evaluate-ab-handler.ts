import {
  authorizeEvaluateAb,
  evaluateAb,
  EVALUATE_AB_BODY_MAX_BYTES,
  type ReadModel,
} from '@svc/domain';
import { parseEvaluateAbBody } from './evaluate-ab-body.ts';
import { answerBody, parseJsonBody } from './json-body.ts';
import { JSON_HEAD } from './json-response.ts';
import type { KeyRoute } from './route-table.ts';

/**
 * `POST /v1/flags/evaluate-ab`: flags are evaluated from the caller's view in memory. Billing
 * and the add-on are checked before the body is read, so 402/403 cost no body transfer.
 */
export function evaluateAbHandler({ model }: { model: ReadModel }): KeyRoute['handle'] {
  // Not `async`: a refusal throws at once (no body read), and the body's promise is the only
  // one a request makes.
  return (req, res, { principal }) => {
    authorizeEvaluateAb(principal);
    return answerBody(req, EVALUATE_AB_BODY_MAX_BYTES, (body) => {
      const input = parseEvaluateAbBody(parseJsonBody(body));
      const text = JSON.stringify(evaluateAb(model.viewOf(principal), input));
      res.writeHead(200, [...JSON_HEAD, 'Content-Length', String(Buffer.byteLength(text))]);
      res.end(text);
      return 200;
    });
  };
}
