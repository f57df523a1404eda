/** AB evaluation: hashing, buckets, targeting conditions, flag evaluation, the evaluate-ab use case. */
export * from './murmur3.ts';
export * from './bucket.ts';
export * from './semver.ts';
export * from './conditions.ts';
export * from './evaluate.ts';
export * from './evaluate-reason.ts';
export * from './evaluate-ab.ts';
