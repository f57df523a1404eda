/** A plan as people review it: a count, each change with its detail, then what is left alone. */
import { changeLine, countLine, type Plan } from './change.ts';

export function renderPlan(plan: Plan): string {
  const lines: string[] = [];
  if (plan.changes.length === 0) {
    lines.push(`No changes: workspace ${plan.workspace} matches the file.`);
  } else {
    lines.push(`Workspace ${plan.workspace}: ${countLine(plan.changes)}.`, '');
    let scope: string | undefined;
    for (const change of plan.changes) {
      if (change.scope !== scope) {
        scope = change.scope;
        if (scope !== undefined) lines.push(`${scope}:`);
      }
      const indent = scope === undefined ? '' : '  ';
      lines.push(`${indent}${changeLine({ ...change, scope: undefined })}`);
      for (const detail of change.details) lines.push(`${indent}    ${detail}`);
    }
  }
  if (plan.notes.length > 0) {
    lines.push('', 'Left as they are:', ...plan.notes.map((note) => `  ${note}`));
  }
  return `${lines.join('\n')}\n`;
}
