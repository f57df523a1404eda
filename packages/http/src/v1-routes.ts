/**
 * Every route under a workspace's base URL, one line each, built from one dependencies object.
 * Adding an endpoint: a line here, a handler file, and its entry in `apps/api/openapi.yaml` (a
 * test checks that the two list the same routes). The listener (api-server.ts) authenticates
 * the caller of every route before its handler runs, unless the route says `open: true`.
 */
import type { IncomingMessage } from 'node:http';
import type { IdentityExchange, ReadModel, SecretWrites, SyncGuard } from '@svc/domain';
import type { StreamHub } from '@svc/sse';
import { evaluateAbHandler } from './evaluate-ab-handler.ts';
import {
  ofrepApiKey,
  ofrepBulkHandler,
  ofrepEvaluateHandler,
  ofrepEventsHandler,
  type OfrepDeps,
} from './ofrep/index.ts';
import type { Route } from './route-table.ts';
import {
  deleteSecretHandler,
  deleteSecretVersionHandler,
  putSecretHandler,
} from './secret-write-handlers.ts';
import { streamHandler } from './stream-handler.ts';
import type { SyncAnswers } from './sync-answers.ts';
import { syncHandler } from './sync-handler.ts';
import { tokenExchangeHandler } from './token-exchange-handler.ts';

/** What the /v1 handlers use. */
export interface V1Deps {
  model: ReadModel;
  hub: StreamHub;
  writes: SecretWrites;
  /** Runs before a sync is answered (the sync quarantine). */
  syncGuard?: SyncGuard;
  /** The caller's address, for what is limited per client (see client-address.ts). */
  clientAddress: (req: IncomingMessage) => string;
  /** The prepared sync answers, to refresh after changes (made by the sync route when absent). */
  syncAnswers?: SyncAnswers;
  /** OpenFeature (OFREP) event streams; without them bulk answers name none. */
  ofrep?: OfrepDeps;
  /** Workload identity federation: platform tokens exchanged for short-lived keys (404 without). */
  exchange?: IdentityExchange;
}

export function v1Routes(deps: V1Deps): Route[] {
  return [
    { method: 'GET', path: '/v1/sync', handle: syncHandler(deps) },
    { method: 'GET', path: '/v1/stream', handle: streamHandler(deps) },
    { method: 'POST', path: '/v1/flags/evaluate-ab', handle: evaluateAbHandler(deps) },
    { method: 'PUT', path: '/v1/secrets/{key}', handle: putSecretHandler(deps) },
    { method: 'DELETE', path: '/v1/secrets/{key}', handle: deleteSecretHandler(deps) },
    {
      method: 'DELETE',
      path: '/v1/secrets/{key}/versions/{version}',
      handle: deleteSecretVersionHandler(deps),
    },
    // OpenFeature Remote Evaluation Protocol: the key as OFREP providers send it.
    {
      method: 'POST',
      path: '/ofrep/v1/evaluate/flags/{key}',
      key: ofrepApiKey,
      handle: ofrepEvaluateHandler(deps),
    },
    {
      method: 'POST',
      path: '/ofrep/v1/evaluate/flags',
      key: ofrepApiKey,
      handle: ofrepBulkHandler(deps),
    },
    { method: 'GET', path: '/ofrep/v1/events', open: true, handle: ofrepEventsHandler(deps) },
    // Workload identity federation: the platform token in the body is the credential.
    { method: 'POST', path: '/v1/auth/token', open: true, handle: tokenExchangeHandler(deps) },
  ];
}
