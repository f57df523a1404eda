/**
 * The environment `svc run` gives the command: svc's own environment plus one variable per
 * config and secret of the key's view. Existing variables win unless `override`.
 */
import type { ServiceClient } from '@svc/client';
import { envValue, envVariables, type EnvItem } from './env-names.ts';

export interface ChildEnvironment {
  env: NodeJS.ProcessEnv;
  /**
   * What the command received from the service, by variable name: the value, or for a file
   * secret its path and content. `--watch` restarts the command when this changes.
   */
  received: Map<string, string>;
}

/** The command's environment from the client's current cache. */
export function childEnvironment(
  client: ServiceClient,
  base: NodeJS.ProcessEnv,
  override: boolean,
): ChildEnvironment {
  const items: EnvItem[] = Object.entries(client.getAllConfigs()).map(([key, value]) => ({
    kind: 'config',
    key,
    value: envValue(value),
  }));
  const contents = new Map<string, string>();
  if (client.getKeyType() === 'sk') {
    for (const [key, value] of Object.entries(client.getAllSecrets())) {
      const path = client.getSecretFilePath(key);
      if (path === undefined) {
        items.push({ kind: 'secret', key, value });
      } else {
        items.push({ kind: 'file secret', key, value: path });
        contents.set(key, value);
      }
    }
  }
  const env: NodeJS.ProcessEnv = override ? { ...base } : {};
  const received = new Map<string, string>();
  for (const [name, item] of envVariables(items)) {
    if (!override && base[name] !== undefined) continue;
    env[name] = item.value;
    const content = item.kind === 'file secret' ? contents.get(item.key) : undefined;
    received.set(name, content === undefined ? item.value : `${item.value}\0${content}`);
  }
  return { env: override ? env : { ...env, ...base }, received };
}

/** The names whose received value differs between `before` and `after` (added and removed too). */
export function changedNames(before: Map<string, string>, after: Map<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((name) => before.get(name) !== after.get(name)).sort();
}
