// @ts-check
/** Where the operator is: workspace, project, and scope ('' = project level, else a service). */
import { enc } from './dom.js';

export const state = { ws: '', project: '', scope: '' };

export const wsPath = () => `/workspaces/${enc(state.ws)}`;
export const projectPath = () => `${wsPath()}/projects/${enc(state.project)}`;
export const scopePath = () => projectPath() + (state.scope ? `/services/${enc(state.scope)}` : '');
export const scopeLabel = () =>
  state.scope ? `service ${state.scope}` : `project ${state.project}`;
