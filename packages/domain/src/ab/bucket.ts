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
const COLON = 0x3a;

/** The unsigned 32-bit hash behind a bucket: murmur3_x86_32 of UTF-8 `{salt}:{userId}`, seed 0. */
export function bucketHash(salt: string, userId: string): number {
  // UTF-8 needs at most 3 bytes per UTF-16 unit. The two parts are written one after the other
  // rather than joined first: a joined string would be allocated, then flattened, per flag.
  const most = (salt.length + userId.length) * 3 + 1;
  if (scratch.length < most) scratch = new Uint8Array(most);
  let length = writeUtf8(salt, 0);
  scratch[length++] = COLON;
  length = writeUtf8(userId, length);
  return murmur3x86_32(scratch, 0, length);
}

/** Writes `text` as UTF-8 into scratch at `at`; returns where it ends. */
function writeUtf8(text: string, at: number): number {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // Anything beyond ASCII is left to the encoder, from the first such unit on.
    if (unit >= 0x80)
      return at + i + utf8.encodeInto(text.slice(i), scratch.subarray(at + i)).written;
    scratch[at + i] = unit;
  }
  return at + text.length;
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
