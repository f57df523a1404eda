/**
 * What `apply` would do to make a workspace match a file: the workspace, projects and services
 * to create, the AB add-on to switch, and each scope's item changes. Projects the file does not
 * name are not managed by it; services and projects are never deleted (the management API has
 * no such request), only their values with `--prune`.
 */
import type { ProjectEntry, ScopeItems, WorkspaceFile } from '../workspace-file/schema.ts';
import { CliError } from '../cli-error.ts';
import { seg } from '../workspace/console-api.ts';
import { secretId, type CurrentWorkspace } from '../workspace/read-workspace.ts';
import { scopeLabel, scopePath, type Scope } from '../workspace/scope.ts';
import type { Change, Plan } from './change.ts';
import { planItems } from './plan-items.ts';
import { own, show } from './value-diff.ts';

export interface PlanOptions {
  /** Delete what the file does not name (configs, flags, secrets of the managed projects). */
  prune: boolean;
  /** Where `value_from_env` values come from. */
  env: NodeJS.ProcessEnv;
}

/**
 * The plan for `desired` against `current` (undefined: no such workspace yet).
 *
 * @throws {@link CliError} listing every entry of the file that cannot be applied.
 */
export function planWorkspace(
  desired: WorkspaceFile,
  current: CurrentWorkspace | undefined,
  options: PlanOptions,
): Plan {
  const ws = desired.workspace;
  const plan: Plan = { workspace: ws, changes: [], notes: [] };
  const problems: string[] = [];
  if (current === undefined) {
    const name = desired.name ?? ws;
    plan.changes.push({
      kind: 'create',
      target: `workspace ${ws}`,
      details: [`name: ${show(name)}`],
      requests: [{ method: 'POST', path: '/workspaces', body: { slug: ws, name } }],
    });
  } else if (desired.name !== undefined && desired.name !== current.state.name) {
    plan.notes.push(
      `workspace ${ws} is named ${show(current.state.name)}, not ${show(desired.name)}: names are set at creation`,
    );
  }

  const planScope = (
    scope: Scope,
    want: ScopeItems,
    have: ScopeItems | undefined,
    filePath: string[],
  ) => {
    const result = planItems(want, have, {
      scope,
      path: scopePath(ws, scope),
      filePath,
      secretValue: (key) => current?.secretValues.get(secretId(scope, key)),
      env: options.env,
      prune: options.prune,
    });
    plan.changes.push(...result.changes);
    problems.push(...result.problems);
    if (result.kept.length > 0) {
      plan.notes.push(
        `${scopeLabel(scope)}: ${result.kept.join(', ')} not in the file: kept (--prune deletes)`,
      );
    }
  };

  for (const p of Object.keys(desired.projects).sort()) {
    const want = desired.projects[p]!;
    const have = current === undefined ? undefined : own(current.state.projects, p);
    plan.changes.push(...projectChanges(ws, p, want, have));
    if (have !== undefined && want.name !== undefined && want.name !== have.name) {
      plan.notes.push(
        `project ${p} is named ${show(have.name)}, not ${show(want.name)}: names are set at creation`,
      );
    }
    planScope({ project: p }, want, have, ['projects', p]);
    for (const s of Object.keys(want.services).sort()) {
      const wantService = want.services[s]!;
      const haveService = have === undefined ? undefined : own(have.services, s);
      if (haveService === undefined) {
        const name = wantService.name ?? s;
        plan.changes.push({
          kind: 'create',
          target: `service ${p}/${s}`,
          details: [`name: ${show(name)}`],
          requests: [
            {
              method: 'POST',
              path: `/workspaces/${seg(ws)}/projects/${seg(p)}/services`,
              body: { slug: s, name },
            },
          ],
        });
      } else if (wantService.name !== undefined && wantService.name !== haveService.name) {
        plan.notes.push(
          `service ${p}/${s} is named ${show(haveService.name)}, not ${show(wantService.name)}: names are set at creation`,
        );
      }
      planScope({ project: p, service: s }, wantService, haveService, [
        'projects',
        p,
        'services',
        s,
      ]);
    }
    for (const s of Object.keys(have?.services ?? {}).sort()) {
      if (Object.hasOwn(want.services, s)) continue;
      const empty = { configs: {}, flags: {}, secrets: {} };
      planScope({ project: p, service: s }, empty, have!.services[s], [
        'projects',
        p,
        'services',
        s,
      ]);
      plan.notes.push(
        `service ${p}/${s} is not in the file: the service stays (services are not deleted)`,
      );
    }
  }
  for (const p of Object.keys(current?.state.projects ?? {}).sort()) {
    if (!Object.hasOwn(desired.projects, p))
      plan.notes.push(`project ${p} is not in the file: not managed by it`);
  }
  if (problems.length > 0) {
    throw new CliError(`the file cannot be applied:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
  return plan;
}

function projectChanges(
  ws: string,
  p: string,
  want: ProjectEntry,
  have: ProjectEntry | undefined,
): Change[] {
  const path = `/workspaces/${seg(ws)}/projects/${seg(p)}`;
  const abRequest = { method: 'PATCH', path, body: { ab_testing: want.ab_testing } } as const;
  if (have === undefined) {
    const name = want.name ?? p;
    return [
      {
        kind: 'create',
        target: `project ${p}`,
        details: [`name: ${show(name)}`, ...(want.ab_testing ? ['ab_testing: true'] : [])],
        requests: [
          { method: 'POST', path: `/workspaces/${seg(ws)}/projects`, body: { slug: p, name } },
          ...(want.ab_testing ? [abRequest] : []),
        ],
      },
    ];
  }
  if (have.ab_testing === want.ab_testing) return [];
  return [
    {
      kind: 'update',
      target: `project ${p}`,
      details: [`ab_testing: ${have.ab_testing} → ${want.ab_testing}`],
      requests: [abRequest],
    },
  ];
}
