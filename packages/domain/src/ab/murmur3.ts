/**
 * MurmurHash3, x86 32-bit variant (Austin Appleby's `MurmurHash3_x86_32`), over bytes.
 * Used for AB bucketing, so every implementation must give the same answer bit for bit:
 * all arithmetic is 32-bit (`Math.imul`, `| 0`) and the result is unsigned (`>>> 0`).
 */

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function rotl32(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

/** Mixes one 4-byte block (or the zero-padded tail) before it enters the hash state. */
function mixK(k: number): number {
  return Math.imul(rotl32(Math.imul(k, C1), 15), C2);
}

/**
 * `MurmurHash3_x86_32(bytes, seed)` as an unsigned 32-bit integer, over the first `length`
 * bytes (all of them by default; a shorter length lets callers reuse one buffer).
 */
export function murmur3x86_32(bytes: Uint8Array, seed = 0, length = bytes.length): number {
  const blocksEnd = length - (length % 4);
  let h = seed | 0;

  // Body: little-endian 4-byte blocks.
  for (let i = 0; i < blocksEnd; i += 4) {
    const k = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    h ^= mixK(k);
    h = rotl32(h, 13);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }

  // Tail: the last 1..3 bytes, little-endian, mixed without the rotate-and-add step.
  const tail = length - blocksEnd;
  if (tail > 0) {
    let k = bytes[blocksEnd]!;
    if (tail > 1) k |= bytes[blocksEnd + 1]! << 8;
    if (tail > 2) k |= bytes[blocksEnd + 2]! << 16;
    h ^= mixK(k);
  }

  // Finalization: fold in the length (mod 2^32, as the C code's `uint32_t` does), then fmix32.
  h ^= length | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
