/**
 * Reads a workspace through the management API into the shape of a workspace file: what export
 * writes and what plan compares the file with. Secret values are read (`?reveal=true`, which the
 * server audits) only for the scopes a caller names, and kept apart from the file shape.
 */
import type {
  ConfigEntry,
  FlagEntry,
  ProjectEntry,
  ScopeItems,
  SecretEntry,
  WorkspaceFile,
} from '../workspace-file/schema.ts';
import { seg, type ConsoleApi } from './console-api.ts';
import { scopeLabel, scopePath, type Scope } from './scope.ts';

interface Named {
  slug: string;
  name: string;
}
interface ConfigJson {
  key: string;
  value: unknown;
  is_public: boolean;
}
interface FlagJson {
  key: string;
  is_active: boolean;
  rules: FlagEntry['rules'];
  rollout_percentage: number;
  salt: string | null;
}
interface SecretJson {
  key: string;
  type: 'text' | 'file';
  file_name?: string;
  value?: string;
}

export interface CurrentWorkspace {
  state: WorkspaceFile;
  /** Current secret values of the revealed scopes, by {@link secretId}. */
  secretValues: Map<string, string>;
}

export interface ReadOptions {
  /** Only these projects (default: every project). */
  projects?: readonly string[];
  /** Whether to read the secret values of a scope. */
  reveal?: (scope: Scope) => boolean;
}

/** The key of a secret in {@link CurrentWorkspace.secretValues}. */
export function secretId(scope: Scope, key: string): string {
  return `${scopeLabel(scope)}\0${key}`;
}

/** The workspace as it is, or `undefined` when there is none of that slug. */
export async function readWorkspace(
  api: ConsoleApi,
  slug: string,
  options: ReadOptions = {},
): Promise<CurrentWorkspace | undefined> {
  const workspace = await api.find<Named>(`/workspaces/${seg(slug)}`);
  if (workspace === undefined) return undefined;
  const all = await api.get<(Named & { ab_testing: boolean })[]>(
    `/workspaces/${seg(slug)}/projects`,
  );
  const wanted = options.projects;
  const projects = all.filter((p) => wanted === undefined || wanted.includes(p.slug));
  const secretValues = new Map<string, string>();

  const readScope = async (scope: Scope): Promise<ScopeItems> => {
    const path = scopePath(slug, scope);
    const reveal = options.reveal?.(scope) ?? false;
    const [configs, flags, secrets] = await Promise.all([
      api.get<ConfigJson[]>(`${path}/configs`),
      api.get<FlagJson[]>(`${path}/flags`),
      api.get<SecretJson[]>(`${path}/secrets${reveal ? '?reveal=true' : ''}`),
    ]);
    for (const s of secrets) {
      if (s.value !== undefined) secretValues.set(secretId(scope, s.key), s.value);
    }
    return {
      configs: byKey(configs, (c): ConfigEntry => ({
        value: c.value as never,
        public: c.is_public,
      })),
      flags: byKey(flags, (f): FlagEntry => ({
        active: f.is_active,
        rules: f.rules,
        rollout_percentage: f.rollout_percentage,
        ...(f.salt === null ? {} : { salt: f.salt }),
      })),
      secrets: byKey(secrets, (s): SecretEntry => ({
        type: s.type,
        ...(s.file_name === undefined ? {} : { file_name: s.file_name }),
      })),
    };
  };

  const readProject = async (p: Named & { ab_testing: boolean }): Promise<ProjectEntry> => {
    const services = await api.get<Named[]>(
      `/workspaces/${seg(slug)}/projects/${seg(p.slug)}/services`,
    );
    const [own, ...serviceItems] = await Promise.all([
      readScope({ project: p.slug }),
      ...services.map((s) => readScope({ project: p.slug, service: s.slug })),
    ]);
    return {
      name: p.name,
      ab_testing: p.ab_testing,
      ...own!,
      services: Object.fromEntries(
        services.map((s, i) => [s.slug, { name: s.name, ...serviceItems[i]! }]),
      ),
    };
  };

  const entries = await Promise.all(projects.map(async (p) => [p.slug, await readProject(p)]));
  return {
    state: {
      version: 1,
      workspace: workspace.slug,
      name: workspace.name,
      projects: Object.fromEntries(entries),
    },
    secretValues,
  };
}

function byKey<T extends { key: string }, U>(list: T[], map: (item: T) => U): Record<string, U> {
  return Object.fromEntries(list.map((item) => [item.key, map(item)]));
}
