/**
 * View tokens: the URL of an OFREP event stream authenticates itself (a browser's EventSource
 * cannot send headers, and an API key never goes into a URL). A token names the caller's view,
 * workspace and key and when it expires, signed by the server; it grants change notices for that
 * view and nothing else. Tokens are issued per renewal period: the same key gets the same token
 * all period long (so a bulk answer that carries it keeps its ETag), valid until the end of the
 * period after: at least 12 and at most 24 hours.
 */
import { UnauthorizedError } from '../errors.ts';
import type { Clock } from '../ports.ts';
import type { Principal } from '../views/read-model.ts';

/** Port: signs payloads into opaque URL-safe tokens, and reads them back. */
export interface TokenSigner {
  /** An opaque, URL-safe token carrying `payload`. */
  sign(payload: string): string;
  /** The payload of a token this signer made; undefined when forged, altered or malformed. */
  verify(token: string): string | undefined;
  /** Names the signing key: it changes when the key does (tokens made before stop verifying). */
  readonly keyId: string;
}

/** What a valid token grants: change notices of this view, while the key is active. */
export interface ViewGrant {
  workspaceId: string;
  viewId: string;
  keyId: string;
}

/** Tokens are renewed every 12 hours and live until the end of the next period. */
export const VIEW_TOKEN_PERIOD_MS = 12 * 60 * 60 * 1000;
/** Longer tokens are refused unread. */
export const VIEW_TOKEN_MAX_LENGTH = 1024;
const VERSION = 'v1';
const CACHE_MAX = 10_000;

export class ViewTokens {
  /** The token of each key in the current period (issuing signs once per key and period). */
  private readonly issued = new Map<string, { period: number; token: string }>();

  constructor(private readonly deps: { signer: TokenSigner; clock: Clock }) {}

  /**
   * Changes exactly when newly issued tokens do (a new period or a new signing key): a bulk
   * answer's ETag names it, so a client whose token is about to expire gets a fresh one.
   */
  stamp(): string {
    return `${this.period()}:${this.deps.signer.keyId}`;
  }

  /** The token naming the principal's view. */
  issue(principal: Principal): string {
    const period = this.period();
    const cached = this.issued.get(principal.key.id);
    if (cached?.period === period) return cached.token;
    const expiresAt = (period + 2) * VIEW_TOKEN_PERIOD_MS;
    const payload = [
      VERSION,
      expiresAt,
      principal.workspace.id,
      principal.viewId,
      principal.key.id,
    ];
    const token = this.deps.signer.sign(JSON.stringify(payload));
    if (this.issued.size >= CACHE_MAX) this.issued.clear();
    this.issued.set(principal.key.id, { period, token });
    return token;
  }

  /** The grant of a token; UnauthorizedError when it is forged, malformed or expired. */
  read(token: string): ViewGrant {
    const payload =
      token.length <= VIEW_TOKEN_MAX_LENGTH ? this.deps.signer.verify(token) : undefined;
    const fields = payload === undefined ? undefined : parsePayload(payload);
    if (!fields) throw new UnauthorizedError('invalid view token');
    const [, expiresAt, workspaceId, viewId, keyId] = fields;
    if (this.deps.clock.now() >= expiresAt) throw new UnauthorizedError('expired view token');
    return { workspaceId, viewId, keyId };
  }

  private period(): number {
    return Math.floor(this.deps.clock.now() / VIEW_TOKEN_PERIOD_MS);
  }
}

type Payload = [string, number, string, string, string];

/** A signed payload is ours, but it is still checked field by field (a past format, say). */
function parsePayload(payload: string): Payload | undefined {
  let fields: unknown;
  try {
    fields = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields) || fields.length !== 5 || fields[0] !== VERSION) return undefined;
  const [, expiresAt, ...ids] = fields as unknown[];
  if (typeof expiresAt !== 'number' || !ids.every((id) => typeof id === 'string')) {
    return undefined;
  }
  return fields as Payload;
}
