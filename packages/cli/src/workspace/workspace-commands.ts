/**
 * `svc export`, `svc plan` and `svc apply`: a workspace as a file, what applying a file would
 * change, and the change itself, all through the management API (so every write is audited and
 * streamed like a console change).
 */
import { createInterface } from 'node:readline/promises';
import { writeFileSync } from 'node:fs';
import { CliError, EXIT } from '../cli-error.ts';
import { changeLine, type Plan } from '../plan/change.ts';
import { planWorkspace } from '../plan/plan-workspace.ts';
import { own } from '../plan/value-diff.ts';
import { renderPlan } from '../plan/render-plan.ts';
import { readWorkspaceFile } from '../workspace-file/read-file.ts';
import { schemaReference } from '../workspace-file/schema-location.ts';
import { workspaceYaml } from '../workspace-file/write-file.ts';
import { ConsoleApi, type ConsoleSettings } from './console-api.ts';
import { readWorkspace } from './read-workspace.ts';

export interface ExportOptions extends ConsoleSettings {
  workspace: string;
  project?: string;
  output?: string;
  schema?: string;
}

export async function exportCommand(options: ExportOptions): Promise<number> {
  const api = ConsoleApi.from(options);
  const projects = options.project === undefined ? undefined : [options.project];
  const current = await readWorkspace(api, options.workspace, { projects });
  if (current === undefined) throw new CliError(`no workspace ${options.workspace}`);
  if (options.project !== undefined && !Object.hasOwn(current.state.projects, options.project)) {
    throw new CliError(`no project ${options.project} in workspace ${options.workspace}`);
  }
  const text = workspaceYaml(current.state, options.schema ?? schemaReference(options.output));
  if (options.output === undefined) process.stdout.write(text);
  else writeFileSync(options.output, text);
  return EXIT.ok;
}

export interface PlanCommandOptions extends ConsoleSettings {
  file: string;
  workspace?: string;
  prune?: boolean;
}

/** Reads the file (refusing a bad one before any request), then the workspace, and plans. */
async function makePlan(options: PlanCommandOptions): Promise<{ api: ConsoleApi; plan: Plan }> {
  const file = readWorkspaceFile(options.file);
  if (options.workspace !== undefined) file.workspace = options.workspace;
  const api = ConsoleApi.from(options);
  const current = await readWorkspace(api, file.workspace, {
    projects: Object.keys(file.projects),
    // Values are read only where the file can write one, to compare them.
    reveal: ({ project, service }) => {
      const entry = own(file.projects, project);
      const scope = service === undefined ? entry : own(entry?.services ?? {}, service);
      return Object.values(scope?.secrets ?? {}).some((s) => s.value_from_env !== undefined);
    },
  });
  const plan = planWorkspace(file, current, { prune: options.prune === true, env: process.env });
  return { api, plan };
}

export async function planCommand(options: PlanCommandOptions): Promise<number> {
  const { plan } = await makePlan(options);
  process.stdout.write(renderPlan(plan));
  return plan.changes.length === 0 ? EXIT.ok : EXIT.changes;
}

export interface ApplyOptions extends PlanCommandOptions {
  yes?: boolean;
}

export async function applyCommand(options: ApplyOptions): Promise<number> {
  const { api, plan } = await makePlan(options);
  process.stdout.write(renderPlan(plan));
  if (plan.changes.length === 0) {
    process.stdout.write('Nothing to apply.\n');
    return EXIT.ok;
  }
  if (!options.yes && !(await confirmed(plan))) throw new CliError('not applied');
  const done: string[] = [];
  process.stdout.write('\n');
  for (const change of plan.changes) {
    try {
      for (const request of change.requests) await api.write(request);
    } catch (error) {
      const applied =
        done.length === 0
          ? 'Nothing was applied.'
          : `Already applied (${done.length} of ${plan.changes.length}):\n${done.map((d) => `  ${d}`).join('\n')}`;
      const message = error instanceof Error ? error.message : String(error);
      throw new CliError(`${changeLine(change)} was refused: ${message}\n${applied}`);
    }
    done.push(changeLine(change));
    process.stdout.write(`applied: ${changeLine(change)}\n`);
  }
  process.stdout.write(`Applied ${done.length} changes to workspace ${plan.workspace}.\n`);
  return EXIT.ok;
}

async function confirmed(plan: Plan): Promise<boolean> {
  if (!process.stdin.isTTY) {
    throw new CliError(
      'apply asks for confirmation on a terminal: pass --yes to apply without one',
    );
  }
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await prompt.question(
      `\nApply these ${plan.changes.length} changes to workspace ${plan.workspace}? Type yes: `,
    );
    return answer.trim() === 'yes';
  } finally {
    prompt.close();
  }
}
