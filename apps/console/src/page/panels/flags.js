// @ts-check
/** The flags of the chosen scope: on or off, with targeting rules, a rollout and a salt. */
import { api } from '../lib/api.js';
import { actions, button, byId, checkbox, enc, fill, h, input, row, when } from '../lib/dom.js';
import { change, keySegment, onSubmit, parseJson } from '../lib/forms.js';
import { afterWrite, registerPanel } from '../lib/panels.js';
import { scopeLabel, scopePath } from '../lib/state.js';
import { deleteButton } from '../lib/values.js';

async function loadFlags() {
  const flags = await api('GET', `${scopePath()}/flags`);
  const rows = flags.map((/** @type {any} */ f) => {
    const active = checkbox(`${f.key} active`, f.is_active);
    // A PUT replaces the whole flag: its rules, rollout and salt go back unchanged.
    const body = () => ({
      is_active: active.checked,
      rules: f.rules,
      rollout_percentage: f.rollout_percentage,
      salt: f.salt,
    });
    active.addEventListener('change', () =>
      change(
        'flag-list',
        () => api('PUT', `${scopePath()}/flags/${enc(f.key)}`, body()),
        loadFlags,
      ),
    );
    const activeCell = h('label', { className: 'check' }, active, f.is_active ? 'on' : 'off');
    const buttons = actions(
      button('Edit', () => editFlag(f)),
      deleteButton('flags', f.key, loadFlags),
    );
    const rollout = `${f.rollout_percentage} %`;
    return row(
      '',
      h('code', {}, f.key),
      activeCell,
      rollout,
      f.salt ?? '(key)',
      f.rules.length,
      when(f.updated_at),
      buttons,
    );
  });
  fill('flag-rows', rows, `No flags at ${scopeLabel()} level.`, 7);
}
registerPanel({ level: 'scope', load: loadFlags });

/** @param {any} flag */
function editFlag(flag) {
  const form = byId('flag-form');
  input(form, 'key').value = flag.key;
  input(form, 'is_active').checked = flag.is_active;
  input(form, 'rollout_percentage').value = String(flag.rollout_percentage);
  input(form, 'salt').value = flag.salt ?? '';
  input(form, 'rules').value = JSON.stringify(flag.rules, null, 2);
  input(form, 'rules').focus();
}

onSubmit('flag-form', async (form) => {
  const rules = parseJson(input(form, 'rules').value.trim() || '[]', 'rules');
  const rollout = input(form, 'rollout_percentage').value;
  const salt = input(form, 'salt').value;
  await api('PUT', `${scopePath()}/flags/${keySegment(form)}`, {
    is_active: input(form, 'is_active').checked,
    rules,
    ...(rollout !== '' && { rollout_percentage: Number(rollout) }),
    salt: salt === '' ? null : salt,
  });
  form.reset();
  await Promise.all([loadFlags(), afterWrite()]);
});
