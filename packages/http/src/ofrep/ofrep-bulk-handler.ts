/**
 * `POST {base_url}/ofrep/v1/evaluate/flags`: every flag and visible config of the caller's view,
 * resolved for the context, with an ETag that changes when the answer can: the view, its flags'
 * targeting, the context (when flags are evaluated per user) and the event-stream token do.
 * `If-None-Match` with it is a 304 before anything is evaluated. The answer names the caller's
 * event stream (`eventStreams`, OFREP ADR-0008).
 */
import { createHash } from 'node:crypto';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import {
  evaluatesPerUser,
  resolveOfrepFlag,
  type OfrepContext,
  type ReadModel,
  type View,
} from '@svc/domain';
import { corsHeaders } from '../cors.ts';
import { etagMatches } from '../etag.ts';
import type { KeyRoute } from '../route-table.ts';
import { resolutionJson, writeRequestError } from './ofrep-answers.ts';
import { ofrepPreparedView } from './ofrep-prepared-view.ts';
import { readOfrepContext } from './ofrep-request.ts';
import type { OfrepDeps } from './ofrep-deps.ts';

const CACHE_HEADERS = {
  ...corsHeaders,
  'Cache-Control': 'private, no-cache',
  'X-Content-Type-Options': 'nosniff',
} as const;

export function ofrepBulkHandler(deps: {
  model: ReadModel;
  ofrep?: OfrepDeps;
}): KeyRoute['handle'] {
  const { model } = deps;
  return (req, res, { principal, tenant }) =>
    readOfrepContext(req).then(
      (context) => {
        const view = model.viewOf(principal);
        const prepared = ofrepPreparedView(view);
        const perUser = evaluatesPerUser(principal) && context.userId !== undefined;
        const token = deps.ofrep?.tokens.issue(principal);
        // The base URL's path: the workspace in path form, nothing in host form.
        const urlPath = (req.url ?? '/').split('?', 1)[0]!;
        const basePath = urlPath.slice(0, urlPath.length - tenant.path.length);
        const etag = digest(
          view.etag,
          perUser ? prepared.targeting : 'static',
          perUser ? canonicalContext(context) : '',
          basePath,
          token ?? '',
        );
        if (etagMatches(req.headers['if-none-match'], etag)) {
          res.writeHead(304, { ...CACHE_HEADERS, ETag: etag });
          res.end();
          return 304;
        }
        const flags = perUser ? evaluatedFlags(view, context) : prepared.staticFlags;
        const entries = [flags, prepared.configs].filter((part) => part !== '').join(',');
        const streams =
          token === undefined
            ? ''
            : `,"eventStreams":[{"type":"sse","endpoint":{"requestUri":${JSON.stringify(
                `${basePath}/ofrep/v1/events?view=${token}`,
              )}}}]`;
        return writeBulk(res, `{"flags":[${entries}]${streams}}`, etag);
      },
      (error: unknown) => writeRequestError(res, error),
    );
}

function evaluatedFlags(view: View, context: OfrepContext): string {
  const parts: string[] = [];
  for (const flag of ofrepPreparedView(view).flags) {
    parts.push(resolutionJson(resolveOfrepFlag(flag, true, context)));
  }
  return parts.join(',');
}

function writeBulk(res: ServerResponse, text: string, etag: string): number {
  const headers: OutgoingHttpHeaders = {
    ...CACHE_HEADERS,
    ETag: etag,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  };
  res.writeHead(200, headers);
  res.end(text);
  return 200;
}

/** A strong ETag over the parts (none of which holds a NUL: JSON escapes it). */
function digest(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return `"${hash.digest('base64url')}"`;
}

/** The context as JSON with object keys sorted: equal contexts, equal text. */
function canonicalContext(context: OfrepContext): string {
  return JSON.stringify([context.userId, sortKeys(context.attributes)]);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    Object.defineProperty(sorted, key, {
      value: sortKeys((value as Record<string, unknown>)[key]),
      enumerable: true,
    });
  }
  return sorted;
}
