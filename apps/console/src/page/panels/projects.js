// @ts-check
/** The Projects panel of a workspace: list, create, choose one, switch its AB Testing add-on. */
import { api } from '../lib/api.js';
import { button, byId, checkbox, enc, fill, h, row } from '../lib/dom.js';
import { attempt, change, onSubmit, slugged } from '../lib/forms.js';
import { afterWrite, loadPanels, registerPanel, resetPanels } from '../lib/panels.js';
import { state, wsPath } from '../lib/state.js';

async function loadProjects() {
  const projects = await api('GET', `${wsPath()}/projects`);
  const rows = projects.map((/** @type {any} */ p) => {
    const ab = checkbox(`AB Testing add-on of ${p.slug}`, p.ab_testing);
    ab.addEventListener('change', () =>
      change(
        'project-list',
        () => api('PATCH', `${wsPath()}/projects/${enc(p.slug)}`, { ab_testing: ab.checked }),
        loadProjects,
      ),
    );
    const open = button(p.slug, () => selectProject(p.slug), 'link');
    const abCell = h('label', { className: 'check' }, ab, p.ab_testing ? 'on' : 'off');
    return row(p.slug === state.project ? 'current' : '', open, p.name, abCell, p.revision);
  });
  fill('project-rows', rows, 'No projects yet.', 4);
}
registerPanel({ level: 'workspace', load: loadProjects });

/** @param {string} slug */
async function selectProject(slug) {
  Object.assign(state, { project: slug, scope: '' });
  for (const el of document.querySelectorAll('.project-slug')) el.textContent = slug;
  resetPanels('project', 'scope');
  byId('project-view').hidden = false;
  await attempt(byId('project-list'), () =>
    Promise.all([loadProjects(), loadPanels('project', 'scope')]),
  );
}

onSubmit('project-form', async (form) => {
  const created = await api('POST', `${wsPath()}/projects`, slugged(form));
  form.reset();
  await Promise.all([selectProject(created.slug), afterWrite()]);
});
