import type { TargetingRule } from '../ab/rules.ts';
import { validateFlagTargeting } from '../ab/validate.ts';
import { NotFoundError } from '../errors.ts';
import type { FlagEntry } from '../model.ts';
import { assertItemKey } from '../names.ts';
import { resolveScope, type ScopeRef } from './lookup.ts';
import { revisionOf, type ManagementPorts, type Revisioned } from './ports.ts';
import { writeInScope } from './scoped-write.ts';

export interface FlagInput {
  isActive: boolean;
  /** Targeting rules, first match wins; none by default. */
  rules?: TargetingRule[];
  /** 0..100 with at most two decimals; 100 by default. */
  rolloutPercentage?: number;
  /** Bucketing salt; null (the default) or empty means the flag key. */
  salt?: string | null;
}

/** Flags of a scope: on or off, with optional targeting rules and a sticky rollout. */
export class FlagManagement {
  constructor(
    private readonly deps: Pick<ManagementPorts, 'store' | 'clock'>,
    private readonly actor: string,
  ) {}

  /** Replaces the whole flag: what the input leaves out takes its default. */
  async put(ref: ScopeRef, key: string, input: FlagInput): Promise<FlagEntry & Revisioned> {
    assertItemKey('key', key);
    const entry = {
      key,
      isActive: input.isActive,
      rules: input.rules ?? [],
      rolloutPercentage: input.rolloutPercentage ?? 100,
      salt: input.salt ?? null,
    };
    validateFlagTargeting(entry);
    const write = { actor: this.actor, ref, action: 'flag.put', target: key };
    return writeInScope(this.deps.store, write, async (tx, scope) => {
      const change = await tx.putFlag(scope, entry);
      return { ...entry, updatedAt: this.deps.clock.now(), revision: revisionOf(change) };
    });
  }

  async delete(ref: ScopeRef, key: string): Promise<Revisioned> {
    assertItemKey('key', key);
    const write = { actor: this.actor, ref, action: 'flag.delete', target: key };
    return writeInScope(this.deps.store, write, async (tx, scope) => {
      const change = await tx.deleteFlag(scope, key);
      if (!change) throw new NotFoundError(`no flag '${key}'`);
      return { revision: revisionOf(change) };
    });
  }

  async list(ref: ScopeRef): Promise<FlagEntry[]> {
    const { store } = this.deps;
    return store.listFlags((await resolveScope(store, ref)).scope);
  }
}
