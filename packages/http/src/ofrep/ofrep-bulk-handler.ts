/**
 * `POST {base_url}/ofrep/v1/evaluate/flags`: every flag and visible config of the caller's view,
 * resolved for the context, with an ETag that changes when the answer can: the view, its flags'
 * targeting, the request body (while flags are evaluated per user) and the event-stream token.
 * `If-None-Match` with it is a 304 before anything is evaluated. The answer names the caller's
 * event stream (`eventStreams`, OFREP ADR-0008).
 */
import { createHash } from 'node:crypto';
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
import { bulkEtags, bulkHeaders, bulkRepresentation } from './ofrep-bulk-answer.ts';
import { ofrepPreparedView, type OfrepPreparedView } from './ofrep-prepared-view.ts';
import { ofrepContextOf, readOfrepBody } from './ofrep-request.ts';
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
    readOfrepBody(req).then((text) => {
      const view = model.viewOf(principal);
      const prepared = ofrepPreparedView(view);
      const perUser = evaluatesPerUser(principal);
      const token = deps.ofrep?.tokens.issue(principal);
      // The base URL's path: the workspace in path form, nothing in host form.
      const urlPath = (req.url ?? '/').split('?', 1)[0]!;
      const basePath = urlPath.slice(0, urlPath.length - tenant.path.length);
      // While flags are evaluated per user the answer depends on the context: the body's bytes
      // name it (an ETag is only ever made for a body that was valid), so a 304 needs no parsing.
      const etag = bulkEtag(prepared, view.etag, perUser ? text : undefined, basePath, token ?? '');
      if (etagMatches(req.headers['if-none-match'], etag, bulkEtags(etag))) {
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
              `${basePath}/ofrep/v1/events?view=${token}`,
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

/** Bulk ETags remembered per view: a SHA-256 costs as much as the rest of a 304. */
const ETAGS_PER_VIEW = 1000;

function bulkEtag(
  prepared: OfrepPreparedView,
  viewEtag: string,
  body: string | undefined,
  basePath: string,
  token: string,
): string {
  // Per-user (u) and static (s) answers never share an entry, whatever the body.
  const id = body === undefined ? `s\0${token}\0${basePath}` : `u\0${token}\0${basePath}\0${body}`;
  let etag = prepared.etags.get(id);
  if (etag === undefined) {
    const context = body === undefined ? ['static', ''] : [prepared.targeting, body];
    etag = digest(viewEtag, ...context, basePath, token);
    if (prepared.etags.size >= ETAGS_PER_VIEW) prepared.etags.clear();
    prepared.etags.set(id, etag);
  }
  return etag;
}

/** A strong ETag over the parts (none of which holds a NUL: JSON escapes it). */
function digest(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return `"${hash.digest('base64url')}"`;
}
