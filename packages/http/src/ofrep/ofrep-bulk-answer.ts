/**
 * The bulk answer's bytes in the coding the client accepts (contract v1.1: gzip and br for
 * bodies over 1 KiB, `Vary: Accept-Encoding`). Each answer is encoded at most once per coding and
 * remembered with its view under its ETag: a client that asks again gets the same bytes without
 * encoding them again. Encoded bytes carry the ETag with `-gzip` or `-br` appended, and any of the
 * three in `If-None-Match` is a 304.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { acceptedCodings } from '../content-coding.ts';
import {
  brotliOptions,
  encodedEtag,
  MIN_ENCODED_BYTES,
  SYNC_ENCODE_MAX_BYTES,
  type Encoded,
} from '../sync-answers.ts';
import type { OfrepPreparedView } from './ofrep-prepared-view.ts';

/** Encoded answers remembered per view; past it the memo starts over. */
const ENCODED_PER_VIEW = 256;

export interface BulkRepresentation {
  bytes: Buffer;
  etag: string;
  coding: Encoded | undefined;
}

export function bulkRepresentation(
  prepared: OfrepPreparedView,
  etag: string,
  text: string,
  acceptEncoding: string | string[] | undefined,
): BulkRepresentation {
  const identity = { bytes: Buffer.from(text), etag, coding: undefined };
  // Larger answers go out as they are: encoding them on the request path would stall the loop.
  if (identity.bytes.length < MIN_ENCODED_BYTES || identity.bytes.length > SYNC_ENCODE_MAX_BYTES) {
    return identity;
  }
  const coding = acceptedCodings(acceptEncoding)[0];
  if (coding === undefined || coding === 'identity') return identity;
  let encoded = prepared.encoded.get(etag);
  if (!encoded) {
    if (prepared.encoded.size >= ENCODED_PER_VIEW) prepared.encoded.clear();
    prepared.encoded.set(etag, (encoded = {}));
  }
  const bytes = (encoded[coding] ??=
    coding === 'gzip'
      ? gzipSync(identity.bytes)
      : brotliCompressSync(identity.bytes, brotliOptions(identity.bytes.length)));
  return { bytes, etag: encodedEtag(etag, coding), coding };
}

/** The 200's headers of a representation. */
export function bulkHeaders(
  r: BulkRepresentation,
  common: OutgoingHttpHeaders,
): OutgoingHttpHeaders {
  return {
    ...common,
    ETag: r.etag,
    'Content-Type': 'application/json',
    'Content-Length': r.bytes.length,
    ...(r.coding ? { 'Content-Encoding': r.coding } : {}),
  };
}
