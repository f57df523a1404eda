/**
 * Rollout buckets (design/architecture.md, AB evaluation):
 * `bucket = murmur3_x86_32(utf8("{salt}:{user_id}"), seed 0) % 10000`, read as a percentage
 * with two decimals (`bucket / 100`). A user is in a rollout of `p` percent when
 * `bucket / 100 < p`. Both sides are compared as integers in hundredths of a percent, so a
 * two-decimal percentage such as 12.34 never suffers float error.
 */
import type { FlagEntry } from '../model.ts';
import { murmur3x86_32 } from './murmur3.ts';

/** Number of buckets: a bucket is a hundredth of a percent. */
export const BUCKET_COUNT = 10_000;

const utf8 = new TextEncoder();
/** Reused for every hash: encoding into it allocates nothing (the hot path of evaluate-ab). */
let scratch = new Uint8Array(1024);

/** The unsigned 32-bit hash behind a bucket: murmur3_x86_32 of UTF-8 `{salt}:{userId}`, seed 0. */
export function bucketHash(salt: string, userId: string): number {
  const text = `${salt}:${userId}`;
  // UTF-8 needs at most 3 bytes per UTF-16 unit.
  if (scratch.length < text.length * 3) scratch = new Uint8Array(text.length * 3);
  let length = 0;
  for (; length < text.length; length++) {
    const unit = text.charCodeAt(length);
    if (unit >= 0x80) break;
    scratch[length] = unit;
  }
  // ASCII is copied above; anything else is left to the encoder.
  if (length < text.length) length = utf8.encodeInto(text, scratch).written;
  return murmur3x86_32(scratch, 0, length);
}

/**
 * The user's bucket for `salt`, an integer in 0..9999 (hundredths of a percent). The salt is
 * used as given: `bucketSalt` picks a flag's salt.
 */
export function bucketOf(salt: string, userId: string): number {
  return bucketHash(salt, userId) % BUCKET_COUNT;
}

/** The bucket as the architecture states it: a percentage in 0..99.99 with two decimals. */
export function bucketPercentage(salt: string, userId: string): number {
  return bucketOf(salt, userId) / 100;
}

/** A flag's bucketing salt: its own salt, or its key when the salt is null or empty. */
export function bucketSalt(flag: Pick<FlagEntry, 'key' | 'salt'>): string {
  return flag.salt === null || flag.salt === '' ? flag.key : flag.salt;
}

/**
 * Whether `bucket` (0..9999) falls inside a rollout of `rolloutPercentage` (0..100, two
 * decimals): `bucket < round(rolloutPercentage * 100)`. 0 admits nobody, 100 everybody.
 */
export function inRollout(bucket: number, rolloutPercentage: number): boolean {
  return bucket < Math.round(rolloutPercentage * 100);
}
