/**
 * What a view's bulk answers share, made once per view (views are immutable): its flags in
 * order, its configs and its flags' static resolutions as rendered JSON, and its bulk ETags,
 * which name a digest of its flags' targeting: it decides per-user answers though the view's own
 * ETag does not cover it (a targeting edit leaves the snapshot, and so its ETag, as it was).
 */
import { createHash } from 'node:crypto';
import {
  ofrepEntries,
  resolveOfrepConfig,
  resolveOfrepFlag,
  type FlagEntry,
  type View,
} from '@svc/domain';
import type { Encoded } from '../sync-answers.ts';
import { resolutionJson } from './ofrep-answers.ts';
import { BulkEtags } from './ofrep-bulk-etags.ts';

export interface OfrepPreparedView {
  /** Sorted by key. */
  flags: FlagEntry[];
  /** Each flag's `is_active` resolution (STATIC), rendered and joined by commas. */
  staticFlags: string;
  /** Each config's resolution no flag hides, rendered and joined by commas. */
  configs: string;
  /** Bulk answers' ETags by caller. */
  etags: BulkEtags;
  /** Encoded answers by ETag (ofrep-bulk-answer.ts). */
  encoded: Map<string, Partial<Record<Encoded, Buffer>>>;
}

const prepared = new WeakMap<View, OfrepPreparedView>();
const NO_USER = { userId: undefined, attributes: {} };

export function ofrepPreparedView(view: View): OfrepPreparedView {
  let p = prepared.get(view);
  if (!p) {
    const { flags, configs } = ofrepEntries(view);
    const targeting = flags.map((f) => [f.key, f.isActive, f.rules, f.rolloutPercentage, f.salt]);
    const targetingDigest = createHash('sha256')
      .update(JSON.stringify(targeting))
      .digest('base64url');
    p = {
      flags,
      staticFlags: flags.map((f) => resolutionJson(resolveOfrepFlag(f, false, NO_USER))).join(','),
      configs: configs
        .map(([key, json]) => resolutionJson(resolveOfrepConfig(key, json)))
        .join(','),
      etags: new BulkEtags(view.etag, targetingDigest),
      encoded: new Map(),
    };
    prepared.set(view, p);
  }
  return p;
}
