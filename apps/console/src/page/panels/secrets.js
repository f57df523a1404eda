// @ts-check
/** The secrets of the chosen scope: hidden until revealed (which is audited), versioned. */
import { api, FormError } from '../lib/api.js';
import { actions, button, byId, enc, fill, h, input, row } from '../lib/dom.js';
import { attempt, change, keySegment, onSubmit } from '../lib/forms.js';
import { afterWrite, registerPanel } from '../lib/panels.js';
import { scopeLabel, scopePath } from '../lib/state.js';
import { deleteButton } from '../lib/values.js';

async function loadSecrets() {
  const secrets = await api('GET', `${scopePath()}/secrets`);
  const rows = secrets.map((/** @type {any} */ s) => {
    const value = h('span', { className: 'concealed' }, 'hidden');
    const reveal = button('Reveal', () => toggleReveal(s.key, value, reveal));
    const versions = s.versions.map((/** @type {number} */ v) =>
      button(`delete v${v}`, () => deleteVersion(s.key, v), 'small danger'),
    );
    const type = s.type === 'file' ? `file ${s.file_name ?? ''}` : 'text';
    const valueCell = h('td', { className: 'secret' }, value, reveal);
    return row(
      '',
      h('code', {}, s.key),
      type,
      s.version,
      versions,
      valueCell,
      actions(deleteButton('secrets', s.key, loadSecrets)),
    );
  });
  fill('secret-rows', rows, `No secrets at ${scopeLabel()} level.`, 6);
}
registerPanel({ level: 'scope', load: loadSecrets });

/** Shows one secret's value (the API reveals, and audits, the whole scope). @param {string} key @param {any} value @param {any} toggle */
async function toggleReveal(key, value, toggle) {
  if (toggle.textContent === 'Hide') {
    Object.assign(value, { textContent: 'hidden', className: 'concealed' });
    toggle.textContent = 'Reveal';
    return;
  }
  await attempt(byId('secret-list'), async () => {
    const revealed = await api('GET', `${scopePath()}/secrets?reveal=true`);
    const found = revealed.find((/** @type {any} */ s) => s.key === key);
    if (!found) throw new FormError(`secret ${key} no longer exists`);
    Object.assign(value, { textContent: found.value, className: 'revealed' });
    toggle.textContent = 'Hide';
    await afterWrite();
  });
}

/** @param {string} key @param {number} version */
async function deleteVersion(key, version) {
  if (
    !confirm(
      `Delete version ${version} of secret ${key}? Deleting the only version deletes the secret.`,
    )
  )
    return;
  await change(
    'secret-list',
    () => api('DELETE', `${scopePath()}/secrets/${enc(key)}/versions/${version}`),
    loadSecrets,
  );
}

const secretForm = byId('secret-form');
const showFileFields = () => {
  const file = input(secretForm, 'type').value === 'file';
  for (const el of secretForm.querySelectorAll('.file-only')) el.hidden = !file;
};
input(secretForm, 'type').addEventListener('change', showFileFields);
input(secretForm, 'upload').addEventListener('change', async () => {
  const file = input(secretForm, 'upload').files[0];
  if (!file) return;
  input(secretForm, 'value').value = await file.text();
  input(secretForm, 'file_name').value = file.name;
});

onSubmit('secret-form', async (form) => {
  byId('secret-status').textContent = '';
  const type = input(form, 'type').value;
  const fileName = input(form, 'file_name').value.trim();
  const body = {
    value: input(form, 'value').value,
    type,
    ...(type === 'file' && fileName && { file_name: fileName }),
  };
  const written = await api('PUT', `${scopePath()}/secrets/${keySegment(form)}`, body);
  form.reset();
  showFileFields();
  byId('secret-status').textContent = `${written.key}: version ${written.version} saved.`;
  await Promise.all([loadSecrets(), afterWrite()]);
});
