// @ts-check
/** The API keys panel of a project: create (the key shown once, with a copy button), revoke. */
import { api } from '../lib/api.js';
import { button, byId, enc, fill, h, input, row, when } from '../lib/dom.js';
import { change, onSubmit } from '../lib/forms.js';
import { afterWrite, registerPanel } from '../lib/panels.js';
import { projectPath } from '../lib/state.js';

async function loadKeys() {
  const keys = await api('GET', `${projectPath()}/keys`);
  const rows = keys.map((/** @type {any} */ k) => {
    const status = k.revoked_at
      ? `revoked ${when(k.revoked_at)}`
      : button('Revoke', () => revokeKey(k), 'danger');
    const prefix = h('code', {}, `${k.prefix}…`);
    const used = k.last_used_at ? when(k.last_used_at) : 'never';
    return row(
      k.revoked_at ? 'revoked' : '',
      k.name,
      k.kind,
      k.service ?? '—',
      prefix,
      when(k.created_at),
      used,
      status,
    );
  });
  fill('key-rows', rows, 'No keys yet.', 7);
}
registerPanel({ level: 'project', load: loadKeys, reset: hideNewKey });

/** @param {any} key */
async function revokeKey(key) {
  if (!confirm(`Revoke key ${key.prefix}…? Its clients lose access and its streams close.`)) return;
  await change('key-list', () => api('DELETE', `${projectPath()}/keys/${enc(key.id)}`), loadKeys);
}

onSubmit('key-form', async (form) => {
  const service = input(form, 'service').value;
  const name = input(form, 'name').value.trim();
  const body = {
    kind: input(form, 'kind').value,
    ...(service && { service }),
    ...(name && { name }),
  };
  const created = await api('POST', `${projectPath()}/keys`, body);
  const bound = created.service ? ` for service ${created.service}` : '';
  byId('new-key-note').textContent =
    `New ${created.kind} key${bound}. Copy it now: it is shown only this once.`;
  byId('new-key-value').textContent = created.key;
  byId('new-key-status').textContent = '';
  byId('new-key').hidden = false;
  input(form, 'name').value = '';
  await Promise.all([loadKeys(), afterWrite()]);
});

function hideNewKey() {
  byId('new-key-value').textContent = '';
  byId('new-key').hidden = true;
}
byId('new-key-done').addEventListener('click', hideNewKey);
byId('new-key-copy').addEventListener('click', async () => {
  const status = byId('new-key-status');
  try {
    await navigator.clipboard.writeText(byId('new-key-value').textContent);
    status.textContent = 'Copied.';
  } catch {
    getSelection()?.selectAllChildren(byId('new-key-value'));
    status.textContent = 'The browser refused to copy: the key is selected, copy it by hand.';
  }
});
