/**
 * The answers of `GET /v1/sync` for each view: its snapshot as JSON, gzip and brotli bytes, each
 * with its ETag and response headers, made once per view revision and never per request.
 *
 * - Bodies under 1 KiB go out as they are (compression would save next to nothing).
 * - Up to 64 KiB they are compressed at once, when the answers are first made (a fraction of a
 *   millisecond, once per revision), so even the first request gets the small bytes.
 * - Larger bodies are compressed on libuv's thread pool (zlib's async calls), off the event loop:
 *   a 5 MB body takes tens of milliseconds, which the streams' fan-out must not wait behind.
 *   Until an encoding is ready, requests get the identity bytes (correct, just bigger).
 *
 * ETags: the identity ETag is the view's; encoded bytes carry it with `-gzip` or `-br` appended
 * (different bytes, different strong validators), and `If-None-Match` with any of the three is a
 * 304, so a client switching encodings (or behind a proxy that decodes) keeps its 304s.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';
import type { View } from '@svc/domain';
import { acceptedCodings, type Coding } from './content-coding.ts';
import { corsHeaders } from './cors.ts';
import { etagMatches } from './etag.ts';
import { headerList } from './json-response.ts';

/** The contract's threshold: smaller bodies are never encoded. */
export const MIN_ENCODED_BYTES = 1024;
/** Bodies up to this size are encoded synchronously when their answers are first made. */
export const SYNC_ENCODE_MAX_BYTES = 64 * 1024;
/**
 * Views up to this many items (about 550 kB of snapshot) get their next revision's answers made
 * right after a change. Larger ones wait for their first sync: rendering and compressing a
 * 100,000-item body after every change would make each change cost the project's size.
 */
export const EAGER_REFRESH_MAX_ITEMS = 10_000;

/** One representation of a view's snapshot. */
export interface Representation {
  bytes: Buffer;
  etag: string;
  /** Headers of the 200 and of the 304. */
  ok: OutgoingHttpHeaders;
  notModified: OutgoingHttpHeaders;
  /** The same as the header lists the handler writes (see `headerList`). */
  okHead: string[];
  notModifiedHead: string[];
}

export type Encoded = Exclude<Coding, 'identity'>;

const SUFFIX: Record<Encoded, string> = { gzip: '-gzip', br: '-br' };

/** Brotli's default quality (11) takes seconds on a megabyte; 4 is as small as gzip -9 and fast. */
const BROTLI_QUALITY = 4;

export function brotliOptions(size: number) {
  return {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: size,
    },
  };
}

/** The answers of one view revision. */
export class ViewAnswers {
  readonly identity: Representation;
  private readonly encoded: Partial<Record<Encoded, Representation>> = {};
  private readonly etags: string[];

  constructor(
    readonly view: View,
    bytes: Buffer,
  ) {
    this.identity = representation(bytes, view.etag, undefined);
    this.etags = [view.etag, encodedEtag(view.etag, 'gzip'), encodedEtag(view.etag, 'br')];
  }

  /** The best representation `acceptEncoding` allows among those ready. */
  pick(acceptEncoding: string | string[] | undefined): Representation {
    if (acceptEncoding === undefined) return this.identity;
    for (const coding of acceptedCodings(acceptEncoding)) {
      if (coding === 'identity') return this.identity;
      const ready = this.encoded[coding];
      if (ready) return ready;
    }
    return this.identity;
  }

  /** `If-None-Match` names this revision, in any encoding. */
  matches(header: string | undefined, served: Representation): boolean {
    return etagMatches(header, served.etag, this.etags);
  }

  /** Makes the encoded representations: now when the body is small, else on the thread pool. */
  encode(stillWanted: () => boolean): void {
    const bytes = this.identity.bytes;
    if (bytes.length < MIN_ENCODED_BYTES) return;
    if (bytes.length <= SYNC_ENCODE_MAX_BYTES) {
      this.set('gzip', gzipSync(bytes));
      this.set('br', brotliCompressSync(bytes, brotliOptions(bytes.length)));
      return;
    }
    const done = (coding: Encoded) => (error: Error | null, out: Buffer) => {
      // A failed encoding leaves identity in place; a superseded revision's is not kept.
      if (!error && stillWanted()) this.set(coding, out);
    };
    gzip(bytes, done('gzip'));
    brotliCompress(bytes, brotliOptions(bytes.length), done('br'));
  }

  /** Whether `coding` is ready (for tests and the bench). */
  has(coding: Encoded): boolean {
    return this.encoded[coding] !== undefined;
  }

  private set(coding: Encoded, bytes: Buffer): void {
    this.encoded[coding] = representation(bytes, this.etags[coding === 'gzip' ? 1 : 2]!, coding);
  }
}

export function encodedEtag(etag: string, coding: Encoded): string {
  // `"abc"` → `"abc-gzip"`; a weak or unquoted ETag never comes from a view.
  return `${etag.slice(0, -1)}${SUFFIX[coding]}"`;
}

function representation(bytes: Buffer, etag: string, coding: Encoded | undefined): Representation {
  const common: OutgoingHttpHeaders = {
    ...corsHeaders,
    ETag: etag,
    'Cache-Control': 'private, no-cache',
    'X-Content-Type-Options': 'nosniff',
    Vary: 'Accept-Encoding',
  };
  const ok: OutgoingHttpHeaders = {
    ...common,
    'Content-Type': 'application/json',
    'Content-Length': bytes.length,
  };
  if (coding) ok['Content-Encoding'] = coding;
  return {
    bytes,
    etag,
    ok,
    notModified: common,
    okHead: headerList(ok),
    notModifiedHead: headerList(common),
  };
}

/**
 * The answers of every view that was synced, one revision each: a request for a newer revision
 * replaces them. `refresh` makes a changed view's answers right after the change, so requests
 * after it find the encoded bytes ready.
 */
export class SyncAnswers {
  private readonly byView = new Map<string, ViewAnswers>();

  /** @param current the view of an id as it is now (`ReadModel.view`). */
  constructor(private readonly current: (viewId: string) => View | undefined) {}

  of(view: View): ViewAnswers {
    const current = this.byView.get(view.id);
    // Same ETag, same bytes: a view replaced only for its flags' targeting keeps its answers.
    if (current && current.view.etag === view.etag) return current;
    const answers = new ViewAnswers(view, Buffer.from(view.body, 'utf8'));
    this.byView.set(view.id, answers);
    answers.encode(() => this.byView.get(view.id) === answers);
    return answers;
  }

  /**
   * After a change: the new revisions of views that clients sync, made off the request path
   * (views of up to EAGER_REFRESH_MAX_ITEMS items; larger ones on their first sync).
   */
  refresh(views: Iterable<View>): void {
    const ids: string[] = [];
    for (const view of views) {
      if (this.byView.has(view.id) && view.items.size <= EAGER_REFRESH_MAX_ITEMS) ids.push(view.id);
    }
    if (ids.length === 0) return;
    setImmediate(() => {
      for (const id of ids) {
        // The view as it is by now: a later change may have replaced it again.
        const view = this.current(id);
        if (view) this.of(view);
      }
    });
  }
}
