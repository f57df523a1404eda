/**
 * `POST {base_url}/ofrep/v1/evaluate/flags`: every flag and visible config of the caller's view,
 * resolved for the context, with an ETag that changes when the answer can (ofrep-bulk-etags.ts).
 * `If-None-Match` with it is a 304 before anything is evaluated or even parsed. The answer names
 * the caller's event stream (`eventStreams`, OFREP ADR-0008).
 */
import {
  evaluatesPerUser,
  resolveOfrepFlag,
  type OfrepContext,
  type ReadModel,
  type View,
} from '@svc/domain';
import { corsHeaders } from '../cors.ts';
import { etagMatches } from '../etag.ts';
import { headerList } from '../json-response.ts';
import type { KeyRoute } from '../route-table.ts';
import { resolutionJson, writeRequestError } from './ofrep-answers.ts';
import { bulkHeaders, bulkRepresentation } from './ofrep-bulk-answer.ts';
import { ofrepPreparedView } from './ofrep-prepared-view.ts';
import { answerOfrepBody, ofrepContextOf } from './ofrep-request.ts';
import type { OfrepDeps } from './ofrep-deps.ts';

const CACHE_HEADERS = {
  ...corsHeaders,
  'Cache-Control': 'private, no-cache',
  'X-Content-Type-Options': 'nosniff',
  Vary: 'Accept-Encoding',
} as const;
const CACHE_HEAD = headerList(CACHE_HEADERS);

export function ofrepBulkHandler(deps: {
  model: ReadModel;
  ofrep?: OfrepDeps;
}): KeyRoute['handle'] {
  const { model } = deps;
  return (req, res, { principal, tenant }) =>
    answerOfrepBody(req, (text) => {
      const view = model.viewOf(principal);
      const prepared = ofrepPreparedView(view);
      const perUser = evaluatesPerUser(principal);
      const token = deps.ofrep?.tokens.issue(principal);
      const caller = prepared.etags.caller(principal.key.id, req.url!, token ?? '', tenant.path);
      const { etag, encodings } = perUser ? caller.perUser(text) : caller.static();
      if (etagMatches(req.headers['if-none-match'], etag, encodings)) {
        res.writeHead(304, [...CACHE_HEAD, 'ETag', etag]);
        res.end();
        return 304;
      }
      let context: OfrepContext;
      try {
        context = ofrepContextOf(text);
      } catch (error) {
        return writeRequestError(res, error);
      }
      const flags =
        perUser && context.userId !== undefined
          ? evaluatedFlags(view, context)
          : prepared.staticFlags;
      const entries = [flags, prepared.configs].filter((part) => part !== '').join(',');
      const streams =
        token === undefined
          ? ''
          : `,"eventStreams":[{"type":"sse","endpoint":{"requestUri":${JSON.stringify(
              `${caller.basePath}/ofrep/v1/events?view=${token}`,
            )}}}]`;
      const answer = bulkRepresentation(
        prepared,
        etag,
        `{"flags":[${entries}]${streams}}`,
        req.headers['accept-encoding'],
      );
      res.writeHead(200, headerList(bulkHeaders(answer, CACHE_HEADERS)));
      res.end(answer.bytes);
      return 200;
    });
}

function evaluatedFlags(view: View, context: OfrepContext): string {
  const parts: string[] = [];
  for (const flag of ofrepPreparedView(view).flags) {
    parts.push(resolutionJson(resolveOfrepFlag(flag, true, context)));
  }
  return parts.join(',');
}
