/**
 * Writes a workspace as a workspace file: keys sorted, fields at their default left out, a
 * first line that points editors at the JSON Schema (`# yaml-language-server: $schema=…`).
 */
import { stringify } from 'yaml';
import type {
  ConfigEntry,
  FlagEntry,
  ProjectEntry,
  ScopeItems,
  SecretEntry,
  WorkspaceFile,
} from './schema.ts';

/** The YAML text of `file`, its first line referencing the JSON Schema at `schemaRef`. */
export function workspaceYaml(file: WorkspaceFile, schemaRef: string): string {
  const document = {
    version: file.version,
    workspace: file.workspace,
    ...(file.name === undefined ? {} : { name: file.name }),
    projects: sorted(file.projects, project),
  };
  const body = stringify(document, { lineWidth: 0, aliasDuplicateObjects: false });
  return `# yaml-language-server: $schema=${schemaRef}\n${body}`;
}

function project(p: ProjectEntry) {
  return {
    ...(p.name === undefined ? {} : { name: p.name }),
    ...(p.ab_testing ? { ab_testing: true } : {}),
    ...items(p),
    ...(Object.keys(p.services).length === 0
      ? {}
      : {
          services: sorted(p.services, (s) => ({
            ...(s.name === undefined ? {} : { name: s.name }),
            ...items(s),
          })),
        }),
  };
}

function items(scope: ScopeItems) {
  return {
    ...nonEmpty('configs', sorted(scope.configs, config)),
    ...nonEmpty('flags', sorted(scope.flags, flag)),
    ...nonEmpty('secrets', sorted(scope.secrets, secret)),
  };
}

const config = (c: ConfigEntry) => ({ value: c.value, ...(c.public ? { public: true } : {}) });

const flag = (f: FlagEntry) => ({
  active: f.active,
  ...(f.rules.length === 0 ? {} : { rules: f.rules }),
  ...(f.rollout_percentage === 100 ? {} : { rollout_percentage: f.rollout_percentage }),
  ...(f.salt === undefined ? {} : { salt: f.salt }),
});

const secret = (s: SecretEntry) => ({
  type: s.type,
  ...(s.file_name === undefined ? {} : { file_name: s.file_name }),
  ...(s.value_from_env === undefined ? {} : { value_from_env: s.value_from_env }),
});

function sorted<T, U>(record: Record<string, T>, map: (value: T) => U): Record<string, U> {
  const out: Record<string, U> = {};
  for (const key of Object.keys(record).sort()) {
    Object.defineProperty(out, key, { value: map(record[key]!), enumerable: true });
  }
  return out;
}

function nonEmpty<K extends string, T>(name: K, record: Record<string, T>) {
  return Object.keys(record).length === 0 ? {} : ({ [name]: record } as Record<K, typeof record>);
}
