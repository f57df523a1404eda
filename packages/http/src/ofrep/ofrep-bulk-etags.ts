/**
 * Bulk answers' ETags, remembered per view and caller, so that a 304 costs a lookup of the
 * request body and nothing else (a SHA-256 costs as much as the rest of a 304). An ETag names
 * all the answer depends on: the view, its flags' targeting and the request body while flags
 * are evaluated per user, the base URL (the event stream's address is in the answer) and the
 * event-stream token.
 */
import { createHash } from 'node:crypto';
import { encodedEtag } from '../sync-answers.ts';

/** One answer's ETag, and the ETags of its encoded forms (any of them in `If-None-Match` is a 304). */
export interface BulkEtag {
  etag: string;
  encodings: readonly string[];
}

/** Callers remembered per view (each with its bodies); past it the memo starts over. */
const CALLERS_PER_VIEW = 1000;
/** Bodies remembered per caller: longer ones are hashed every time, and at most this in all. */
const BODY_MEMO_MAX_CHARS = 4096;
const BODIES_MAX_CHARS = 256 * 1024;

/** A view's bulk ETags by caller (its API key). */
export class BulkEtags {
  private readonly callers = new Map<string, CallerEtags>();

  constructor(
    private readonly viewEtag: string,
    /** A digest of the view's flags' targeting, which its ETag does not cover. */
    private readonly targeting: string,
  ) {}

  /**
   * The ETags of the key's answers at this URL with this token: remembered while both stay the
   * same (a token changes twice a day; a key used in host and path form alternates, rarely).
   * `tenantPath` is the path below the base URL, which the URL ends with before any query.
   */
  caller(keyId: string, url: string, token: string, tenantPath: string): CallerEtags {
    const known = this.callers.get(keyId);
    if (known && known.url === url && known.token === token) return known;
    if (this.callers.size >= CALLERS_PER_VIEW) this.callers.clear();
    const path = url.split('?', 1)[0]!;
    const basePath = path.slice(0, path.length - tenantPath.length);
    const caller = new CallerEtags(this.viewEtag, this.targeting, url, token, basePath);
    this.callers.set(keyId, caller);
    return caller;
  }
}

/** One caller's ETags: the static answer's, and the per-user answers' by request body. */
export class CallerEtags {
  private staticEtag: BulkEtag | undefined;
  private readonly byBody = new Map<string, BulkEtag>();
  private bodyChars = 0;

  constructor(
    private readonly viewEtag: string,
    private readonly targeting: string,
    readonly url: string,
    readonly token: string,
    /** The base URL's path: the workspace in path form, nothing in host form. */
    readonly basePath: string,
  ) {}

  /** The ETag of the answer that evaluates no flag per user. */
  static(): BulkEtag {
    return (this.staticEtag ??= this.make('static', ''));
  }

  /**
   * The ETag of the answer to this body while flags are evaluated per user: the body's bytes
   * name the context, so a 304 needs no parsing (a body that is not valid never gets a 200, so
   * its ETag never matches one).
   */
  perUser(body: string): BulkEtag {
    const known = this.byBody.get(body);
    if (known) return known;
    const made = this.make(this.targeting, body);
    if (body.length <= BODY_MEMO_MAX_CHARS) {
      if (this.bodyChars + body.length > BODIES_MAX_CHARS) {
        this.byBody.clear();
        this.bodyChars = 0;
      }
      this.byBody.set(body, made);
      this.bodyChars += body.length;
    }
    return made;
  }

  private make(targeting: string, body: string): BulkEtag {
    const hash = createHash('sha256');
    // None of the parts holds a NUL (JSON escapes it): the separator keeps them apart.
    for (const part of [this.viewEtag, targeting, body, this.basePath, this.token]) {
      hash.update(part).update('\0');
    }
    const etag = `"${hash.digest('base64url')}"`;
    return { etag, encodings: [encodedEtag(etag, 'gzip'), encodedEtag(etag, 'br')] };
  }
}
