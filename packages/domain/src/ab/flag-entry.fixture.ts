/** For tests: a flag entry, active for everyone unless `patch` says otherwise. */
import type { FlagEntry } from '../model.ts';

export function flagEntry(key: string, patch: Partial<FlagEntry> = {}): FlagEntry {
  return {
    key,
    isActive: true,
    rules: [],
    rolloutPercentage: 100,
    salt: null,
    updatedAt: 0,
    ...patch,
  };
}
