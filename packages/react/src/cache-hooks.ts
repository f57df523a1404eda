/**
 * Hooks that read the client. Built on `useSyncExternalStore`: a render never mixes two cache
 * states, and a component re-renders only when the value it reads changed.
 */
import { useMemo, useRef, useSyncExternalStore } from './react-api.ts';
import type { JsonValue, ServiceClient, ServiceStatus } from '@svc/client/browser';
import { useServiceClient } from './service-provider.ts';

/** `read(client)`, again after each change of the cache (or, with `status`, of the status). */
function useClientValue<T>(read: (client: ServiceClient) => T, status?: boolean): T {
  const client = useServiceClient();
  // useMemo of a function is useCallback (one hook fewer to import).
  const subscribe = useMemo(
    () => (onChange: () => void) =>
      status ? client.onStatusChange(onChange) : client.onChange(onChange),
    [client, status],
  );
  const get = () => read(client);
  return useSyncExternalStore(subscribe, get, get);
}

/**
 * A whole map of the cache: the same object until one of its entries changes (values are never
 * `undefined`, so equal sizes and equal values are the same entries).
 */
function useClientMap<T>(read: (client: ServiceClient) => Record<string, T>): Record<string, T> {
  const last = useRef<Record<string, T>>(undefined);
  return useClientValue((client) => {
    const next = read(client);
    const previous = last.current;
    const keys = Object.keys(next);
    const same =
      previous &&
      keys.length === Object.keys(previous).length &&
      keys.every((key) => Object.is(previous[key], next[key]));
    return same ? previous : (last.current = next);
  });
}

/** A flag's `is_active`, or `defaultValue` (default `false`) while the flag is absent. */
export function useFlag(key: string, defaultValue = false): boolean {
  return useClientValue((client) => client.getFlag(key, defaultValue));
}

/** A config's value (frozen), or `undefined` while it is absent or not public. */
export function useConfig(key: string): JsonValue | undefined {
  return useClientValue((client) => client.getConfig(key));
}

/** Every flag (key to `is_active`). */
export function useAllFlags(): Record<string, boolean> {
  return useClientMap((client) => client.getAllFlags());
}

/** Every public config (key to value). */
export function useAllConfigs(): Record<string, JsonValue> {
  return useClientMap((client) => client.getAllConfigs());
}

/** `{ ready, streamConnected, syncedAt, error }` of the client. */
export function useServiceStatus(): ServiceStatus {
  return useClientValue((client) => client.getStatus(), true);
}
