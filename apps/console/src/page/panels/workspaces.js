// @ts-check
/** The Workspaces panel: list, create, choose one, set its billing status. */
import { api } from '../lib/api.js';
import { button, byId, enc, fill, h, row } from '../lib/dom.js';
import { attempt, change, onSubmit, slugged } from '../lib/forms.js';
import { loadPanels } from '../lib/panels.js';
import { state } from '../lib/state.js';

export async function loadWorkspaces() {
  const workspaces = await api('GET', '/workspaces');
  const rows = workspaces.map((/** @type {any} */ w) => {
    const options = ['ok', 'overdue'].map((s) =>
      h('option', { selected: s === w.billing_status }, s),
    );
    const billing = h('select', { 'aria-label': `billing status of ${w.slug}` }, options);
    billing.addEventListener('change', () =>
      change(
        'workspace-list',
        () => api('PATCH', `/workspaces/${enc(w.slug)}`, { billing_status: billing.value }),
        loadWorkspaces,
      ),
    );
    const open = button(w.slug, () => selectWorkspace(w.slug), 'link');
    return row(w.slug === state.ws ? 'current' : '', open, w.name, billing);
  });
  fill('workspace-rows', rows, 'No workspaces yet.', 3);
}

/** @param {string} slug */
async function selectWorkspace(slug) {
  Object.assign(state, { ws: slug, project: '', scope: '' });
  for (const el of document.querySelectorAll('.ws-slug')) el.textContent = slug;
  byId('workspace-view').hidden = false;
  byId('project-view').hidden = true;
  await attempt(byId('workspace-list'), () =>
    Promise.all([loadWorkspaces(), loadPanels('workspace')]),
  );
}

onSubmit('workspace-form', async (form) => {
  const created = await api('POST', '/workspaces', slugged(form));
  form.reset();
  await selectWorkspace(created.slug);
});
