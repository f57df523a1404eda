/**
 * How a view's items become environment variables: the key upper-cased, every character outside
 * `[A-Z0-9]` replaced by `_` (`db.pool` → `DB_POOL`). Two items that land on one name are an
 * error naming both, never a silent winner.
 */
import { CliError } from '../cli-error.ts';

/** One item handed to the command: its kind and key (for messages) and its variable's value. */
export interface EnvItem {
  kind: 'config' | 'secret' | 'file secret';
  key: string;
  value: string;
}

/** The variable name of an item key. */
export function envName(key: string): string {
  return key.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

/** A config's value as a variable: strings as they are, any other JSON as JSON text. */
export function envValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The variables of `items`, by name.
 *
 * @throws {@link CliError} when two items map to the same name.
 */
export function envVariables(items: readonly EnvItem[]): Map<string, EnvItem> {
  const byName = new Map<string, EnvItem>();
  for (const item of items) {
    const name = envName(item.key);
    const other = byName.get(name);
    if (other !== undefined) {
      throw new CliError(
        `${other.kind} "${other.key}" and ${item.kind} "${item.key}" both map to the variable ${name}; rename one of them`,
      );
    }
    byName.set(name, item);
  }
  return byName;
}
