// @ts-check
/** The configs of the chosen scope: JSON values, public or private. */
import { api } from '../lib/api.js';
import { actions, button, byId, fill, h, input, row, when } from '../lib/dom.js';
import { keySegment, onSubmit, parseJson } from '../lib/forms.js';
import { afterWrite, registerPanel } from '../lib/panels.js';
import { scopeLabel, scopePath } from '../lib/state.js';
import { deleteButton } from '../lib/values.js';

async function loadConfigs() {
  const configs = await api('GET', `${scopePath()}/configs`);
  const rows = configs.map((/** @type {any} */ c) => {
    const value = h('code', { className: 'json' }, JSON.stringify(c.value));
    const edit = button('Edit', () => editConfig(c));
    const visibility = c.is_public ? 'public' : 'private';
    return row(
      '',
      h('code', {}, c.key),
      value,
      visibility,
      when(c.updated_at),
      actions(edit, deleteButton('configs', c.key, loadConfigs)),
    );
  });
  fill('config-rows', rows, `No configs at ${scopeLabel()} level.`, 5);
}
registerPanel({ level: 'scope', load: loadConfigs });

/** @param {any} config */
function editConfig(config) {
  const form = byId('config-form');
  input(form, 'key').value = config.key;
  input(form, 'value').value = JSON.stringify(config.value, null, 2);
  input(form, 'is_public').checked = config.is_public;
  input(form, 'value').focus();
}

onSubmit('config-form', async (form) => {
  const value = parseJson(input(form, 'value').value, 'value');
  const body = { value, is_public: input(form, 'is_public').checked };
  await api('PUT', `${scopePath()}/configs/${keySegment(form)}`, body);
  form.reset();
  await Promise.all([loadConfigs(), afterWrite()]);
});
