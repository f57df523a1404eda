import type { ViewTokens } from '@svc/domain';
import type { OfrepEventHub } from '@svc/sse';

/** What the OFREP event streams need: the signer of their view tokens and their hub. */
export interface OfrepDeps {
  tokens: ViewTokens;
  hub: OfrepEventHub;
}
