// @ts-check
/**
 * The Services panel of a project, and the places that choose a service: the scope of the
 * Values section (project level or one service's) and the service a new key or workload
 * identity is bound to.
 */
import { api } from '../lib/api.js';
import { byId, fill, h, input, row, when } from '../lib/dom.js';
import { attempt, onSubmit, slugged } from '../lib/forms.js';
import { afterWrite, loadPanels, registerPanel } from '../lib/panels.js';
import { projectPath, state } from '../lib/state.js';

async function loadServices() {
  const services = await api('GET', `${projectPath()}/services`);
  const rows = services.map((/** @type {any} */ s) => row('', s.slug, s.name, when(s.created_at)));
  fill('service-rows', rows, 'No services yet.', 3);
  /** Offers "none" and every service, keeping the choice when it still exists. @param {any} select @param {string} none */
  const offer = (select, none) => {
    const chosen = select === byId('scope') ? state.scope : select.value;
    const options = services.map((/** @type {any} */ s) =>
      h('option', { value: s.slug }, `service ${s.slug}`),
    );
    select.replaceChildren(h('option', { value: '' }, none), ...options);
    select.value = services.some((/** @type {any} */ s) => s.slug === chosen) ? chosen : '';
  };
  offer(input(byId('key-form'), 'service'), 'none (project level)');
  offer(input(byId('identity-form'), 'service'), 'none (project level)');
  offer(byId('scope'), `project ${state.project}`);
}
registerPanel({ level: 'project', load: loadServices });

onSubmit('service-form', async (form) => {
  await api('POST', `${projectPath()}/services`, slugged(form));
  form.reset();
  await Promise.all([loadServices(), afterWrite()]);
});

byId('scope').addEventListener('change', () => {
  state.scope = byId('scope').value;
  return attempt(byId('config-list'), () => loadPanels('scope'));
});
