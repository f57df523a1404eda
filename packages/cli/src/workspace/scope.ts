/** Where values live: a project's own level, or one of its services. */
import { seg } from './console-api.ts';

export interface Scope {
  project: string;
  service?: string;
}

/** `web` or `web/checkout`, as plans and messages name a scope. */
export function scopeLabel(scope: Scope): string {
  return scope.service === undefined ? scope.project : `${scope.project}/${scope.service}`;
}

/** The management API path of a scope, below `/api`. */
export function scopePath(workspace: string, scope: Scope): string {
  const project = `/workspaces/${seg(workspace)}/projects/${seg(scope.project)}`;
  return scope.service === undefined ? project : `${project}/services/${seg(scope.service)}`;
}
