import { NotFoundError, PayloadTooLargeError, ValidationError } from '../errors.ts';
import { fieldPath, findJsonFlaw, type JsonValue } from '../json-limits.ts';
import type { ConfigEntry } from '../model.ts';
import { assertItemKey } from '../names.ts';
import { resolveScope, type ScopeRef } from './lookup.ts';
import { revisionOf, type ManagementPorts, type Revisioned } from './ports.ts';
import { writeInScope } from './scoped-write.ts';

export const CONFIG_VALUE_MAX_BYTES = 256 * 1024;

export interface ConfigInput {
  value: JsonValue;
  /** Public configs are seen by public (browser) keys too. */
  isPublic: boolean;
}

/** Configs of a scope: JSON values, public or private. */
export class ConfigManagement {
  constructor(
    private readonly deps: Pick<ManagementPorts, 'store' | 'clock'>,
    private readonly actor: string,
  ) {}

  async put(ref: ScopeRef, key: string, input: ConfigInput): Promise<ConfigEntry & Revisioned> {
    assertItemKey('key', key);
    const valueJson = configValueJson(input.value);
    const write = { actor: this.actor, ref, action: 'config.put', target: key };
    return writeInScope(this.deps.store, write, async (tx, scope) => {
      const change = await tx.putConfig(scope, { key, valueJson, isPublic: input.isPublic });
      return {
        key,
        valueJson,
        isPublic: input.isPublic,
        updatedAt: this.deps.clock.now(),
        revision: revisionOf(change),
      };
    });
  }

  async delete(ref: ScopeRef, key: string): Promise<Revisioned> {
    assertItemKey('key', key);
    const write = { actor: this.actor, ref, action: 'config.delete', target: key };
    return writeInScope(this.deps.store, write, async (tx, scope) => {
      const change = await tx.deleteConfig(scope, key);
      if (!change) throw new NotFoundError(`no config '${key}'`);
      return { revision: revisionOf(change) };
    });
  }

  async list(ref: ScopeRef): Promise<ConfigEntry[]> {
    const { store } = this.deps;
    return store.listConfigs((await resolveScope(store, ref)).scope);
  }
}

/** The value as stored: canonical JSON text, checked for depth, text and size. */
function configValueJson(value: JsonValue): string {
  const flaw = findJsonFlaw(value);
  if (flaw) throw new ValidationError(fieldPath(['value', ...flaw.path], 'value'), flaw.message);
  const valueJson = JSON.stringify(value);
  if (valueJson === undefined) throw new ValidationError('value', 'must be a JSON value');
  if (new TextEncoder().encode(valueJson).length > CONFIG_VALUE_MAX_BYTES) {
    throw new PayloadTooLargeError(`value: more than ${CONFIG_VALUE_MAX_BYTES} bytes encoded`);
  }
  return valueJson;
}
