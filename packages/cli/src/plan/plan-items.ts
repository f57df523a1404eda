/**
 * The changes that make one scope's configs, flags and secrets match the file. Secrets are
 * compared by type and file name, and by value only where the file names an environment
 * variable holding it (`value_from_env`); a new version is written only when something differs.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ConfigEntry, FlagEntry, ScopeItems, SecretEntry } from '../workspace-file/schema.ts';
import { formatPath } from '../workspace-file/file-path.ts';
import type { WriteRequest } from '../workspace/console-api.ts';
import { seg } from '../workspace/console-api.ts';
import { scopeLabel, type Scope } from '../workspace/scope.ts';
import type { Change } from './change.ts';
import { own, show, valueDiff } from './value-diff.ts';

export interface ScopeContext {
  scope: Scope;
  /** The scope's management API path. */
  path: string;
  /** Where the scope's entries sit in the file (`['projects', 'web']`), for messages. */
  filePath: readonly string[];
  /** Current secret values (revealed), by key. */
  secretValue: (key: string) => string | undefined;
  env: NodeJS.ProcessEnv;
  prune: boolean;
}

export interface ScopePlan {
  changes: Change[];
  /** Items not in the file that stay (no --prune). */
  kept: string[];
  /** What the file asks that cannot be done (a secret with no value to create it from). */
  problems: string[];
}

const EMPTY: ScopeItems = { configs: {}, flags: {}, secrets: {} };

export function planItems(
  desired: ScopeItems,
  current: ScopeItems | undefined,
  context: ScopeContext,
): ScopePlan {
  const now = current ?? EMPTY;
  const plan: ScopePlan = { changes: [], kept: [], problems: [] };
  const label = scopeLabel(context.scope);
  const change = (kind: Change['kind'], target: string, details: string[], request: WriteRequest) =>
    plan.changes.push({ kind, target, scope: label, details, requests: [request] });

  const planPlain = <T>(kind: 'configs' | 'flags', rules: PlainKind<T>) => {
    const wanted = desired[kind] as Record<string, T>;
    for (const key of Object.keys(wanted).sort()) {
      const want = wanted[key]!;
      const have = own(now[kind] as Record<string, T>, key);
      const target = `${kind.slice(0, -1)} ${key}`;
      const put: WriteRequest = {
        method: 'PUT',
        path: itemPath(context, kind, key),
        body: rules.body(want),
      };
      const details = have === undefined ? rules.created(want) : rules.updated(have, want);
      if (have === undefined) change('create', target, details, put);
      else if (details.length > 0) change('update', target, details, put);
    }
  };
  planPlain('configs', CONFIGS);
  planPlain('flags', FLAGS);

  for (const key of Object.keys(desired.secrets).sort()) {
    const want = desired.secrets[key]!;
    const have = own(now.secrets, key);
    const at = formatPath([...context.filePath, 'secrets', key]);
    const metaDetails =
      have === undefined
        ? []
        : [
            ...fieldDiff('type', have.type, want.type),
            ...fieldDiff('file_name', have.file_name, want.file_name),
          ];
    if (want.value_from_env === undefined) {
      if (have === undefined) {
        plan.problems.push(
          `${at}: the secret does not exist and has no value_from_env to create it from`,
        );
      } else if (metaDetails.length > 0) {
        plan.problems.push(
          `${at}: ${metaDetails.join(', ')} needs a new version: add value_from_env`,
        );
      }
      continue;
    }
    const value = context.env[want.value_from_env];
    if (value === undefined) {
      plan.problems.push(
        `${at}.value_from_env: the environment variable ${want.value_from_env} is not set`,
      );
      continue;
    }
    const put = {
      method: 'PUT',
      path: itemPath(context, 'secrets', key),
      body: secretBody(want, value),
    } as const;
    const source = `value from $${want.value_from_env}`;
    if (have === undefined) {
      change('create', `secret ${key}`, [secretKind(want), source], put);
    } else {
      const differs = context.secretValue(key) !== value;
      if (differs || metaDetails.length > 0) {
        change(
          'update',
          `secret ${key}`,
          [
            `new version: ${[...(differs ? ['the value differs'] : []), ...metaDetails].join(', ')} (${source})`,
          ],
          put,
        );
      }
    }
  }

  for (const kind of ['configs', 'flags', 'secrets'] as const) {
    for (const key of Object.keys(now[kind]).sort()) {
      if (Object.hasOwn(desired[kind], key)) continue;
      const target = `${kind.slice(0, -1)} ${key}`;
      if (!context.prune) plan.kept.push(target);
      else change('delete', target, [], { method: 'DELETE', path: itemPath(context, kind, key) });
    }
  }
  return plan;
}

function itemPath(context: ScopeContext, kind: string, key: string): string {
  return `${context.path}/${kind}/${seg(key)}`;
}

/** How configs and flags are written and described: whole entries, no value from elsewhere. */
interface PlainKind<T> {
  body: (entry: T) => unknown;
  created: (entry: T) => string[];
  /** What differs (empty: nothing to do). */
  updated: (have: T, want: T) => string[];
}

const CONFIGS: PlainKind<ConfigEntry> = {
  body: (c) => ({ value: c.value, is_public: c.public }),
  created: (c) => [`value: ${show(c.value)}`, ...(c.public ? ['public: true'] : [])],
  updated: (have, want) => [
    ...valueDiff('value', have.value, want.value),
    ...fieldDiff('public', have.public, want.public),
  ],
};

const FLAGS: PlainKind<FlagEntry> = {
  body: (f) => ({
    is_active: f.active,
    rules: f.rules,
    rollout_percentage: f.rollout_percentage,
    salt: f.salt ?? null,
  }),
  created: (f) => [
    `active: ${f.active}`,
    ...(f.rules.length === 0 ? [] : [`rules: ${show(f.rules)}`]),
    ...(f.rollout_percentage === 100 ? [] : [`rollout_percentage: ${f.rollout_percentage}`]),
    ...(f.salt === undefined ? [] : [`salt: ${show(f.salt)}`]),
  ],
  updated: (have, want) => [
    ...fieldDiff('active', have.active, want.active),
    ...(isDeepStrictEqual(have.rules, want.rules)
      ? []
      : [`rules: ${show(have.rules)} → ${show(want.rules)}`]),
    ...fieldDiff('rollout_percentage', have.rollout_percentage, want.rollout_percentage),
    ...fieldDiff('salt', have.salt, want.salt),
  ],
};

const secretBody = (s: SecretEntry, value: string) => ({
  value,
  type: s.type,
  file_name: s.file_name ?? null,
});

function secretKind(s: SecretEntry): string {
  return s.file_name === undefined
    ? `type: ${s.type}`
    : `type: ${s.type}, file_name: ${show(s.file_name)}`;
}

function fieldDiff(name: string, before: unknown, after: unknown): string[] {
  return before === after ? [] : [`${name}: ${show(before)} → ${show(after)}`];
}
