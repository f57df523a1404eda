/**
 * Which content coding a request accepts (`Accept-Encoding`), decided by negotiator and
 * remembered per header value: clients send the same few strings, so the hot path is one lookup.
 */
import Negotiator from 'negotiator';

/** The codings a sync answer can come in, smallest first: the server's preference on ties. */
export const CODINGS = ['br', 'gzip', 'identity'] as const;
export type Coding = (typeof CODINGS)[number];

/** `encodings` with negotiator 1.x's `preferred` option, which its typings do not declare yet. */
type Encodings = (
  available: readonly string[],
  options: { preferred: readonly string[] },
) => string[];

/** Distinct header values remembered; past it the memo starts over (a client cannot grow it). */
const MEMO_MAX = 256;
const memo = new Map<string, readonly Coding[]>();
const IDENTITY_ONLY: readonly Coding[] = ['identity'];

/**
 * The codings `acceptEncoding` allows, best first. Without the header: identity only (RFC 9110
 * allows any, but an old client may not decode). When it refuses everything, identity anyway:
 * a 406 would leave a client with no configuration at all.
 */
export function acceptedCodings(acceptEncoding: string | string[] | undefined): readonly Coding[] {
  if (acceptEncoding === undefined) return IDENTITY_ONLY;
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(', ') : acceptEncoding;
  let codings = memo.get(header);
  if (codings === undefined) {
    const negotiator = new Negotiator({ headers: { 'accept-encoding': header } });
    const encodings = negotiator.encodings as unknown as Encodings;
    const ranked = encodings.call(negotiator, CODINGS, { preferred: CODINGS }) as Coding[];
    codings = ranked.length > 0 ? ranked : IDENTITY_ONLY;
    if (memo.size >= MEMO_MAX) memo.clear();
    memo.set(header, codings);
  }
  return codings;
}
