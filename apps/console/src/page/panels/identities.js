// @ts-check
/**
 * The workload identities panel of a project: a form per method (the other methods' fieldsets
 * are disabled, so the browser checks only the chosen one), the list with last use and live
 * minted keys, delete (which revokes every key minted from the identity).
 */
import { api, FormError } from '../lib/api.js';
import { button, byId, enc, fill, h, input, row, when } from '../lib/dom.js';
import { change, onSubmit } from '../lib/forms.js';
import { afterWrite, registerPanel } from '../lib/panels.js';
import { projectPath } from '../lib/state.js';

const form = byId('identity-form');

/** Settings that are lists: comma-separated in the form. */
const LISTS = new Set([
  'audiences',
  'namespaces',
  'service_accounts',
  'accounts',
  'principal_arns',
  'projects',
  'principal_ids',
]);

async function loadIdentities() {
  const identities = await api('GET', `${projectPath()}/identities`);
  const rows = identities.map((/** @type {any} */ i) =>
    row(
      '',
      i.name,
      i.method,
      i.kind,
      i.service ?? '—',
      `${i.ttl_s} s`,
      h('code', {}, i.id),
      i.last_used_at ? when(i.last_used_at) : 'never',
      String(i.live_keys),
      button('Delete', () => deleteIdentity(i), 'danger'),
    ),
  );
  fill('identity-rows', rows, 'No workload identities yet.', 9);
}
registerPanel({
  level: 'project',
  load: loadIdentities,
  reset: () => (byId('new-identity').hidden = true),
});

/** @param {any} identity */
async function deleteIdentity(identity) {
  const live = identity.live_keys
    ? ` Its ${identity.live_keys} live keys are revoked and their streams close.`
    : '';
  if (!confirm(`Delete identity ${identity.name}?${live}`)) return;
  await change(
    'identity-list',
    () => api('DELETE', `${projectPath()}/identities/${enc(identity.id)}`),
    loadIdentities,
  );
}

/** Shows the chosen method's fieldset only; the others are disabled (not checked, not sent). */
function showMethod() {
  const method = input(form, 'method').value;
  for (const fieldset of form.querySelectorAll('fieldset[data-method]')) {
    const chosen = fieldset.dataset.method === method;
    fieldset.hidden = !chosen;
    fieldset.disabled = !chosen;
  }
}
input(form, 'method').addEventListener('change', showMethod);
showMethod();

/** The chosen method's block, as the API takes it: lists from commas, claims from lines. */
function methodBlock(/** @type {string} */ method) {
  /** @type {Record<string, unknown>} */
  const block = {};
  const fieldset = form.querySelector(`fieldset[data-method="${method}"]`);
  for (const element of fieldset.querySelectorAll('input, textarea')) {
    const setting = element.name.slice(method.length + 1);
    const value = element.value.trim();
    if (value === '') continue;
    if (LISTS.has(setting))
      block[setting] = value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);
    else if (setting === 'claims') block.claims = claimsOf(value, element.name);
    else block[setting] = value;
  }
  return block;
}

/** `name=pattern` lines. @param {string} text @param {string} field */
function claimsOf(text, field) {
  /** @type {Record<string, string>} */
  const claims = {};
  for (const line of text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)) {
    const at = line.indexOf('=');
    if (at < 1) throw new FormError(`${field}: each line is name=pattern; nothing was sent`, field);
    claims[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return claims;
}

onSubmit('identity-form', async () => {
  const method = input(form, 'method').value;
  const service = input(form, 'service').value;
  const created = await api('POST', `${projectPath()}/identities`, {
    name: input(form, 'name').value.trim(),
    kind: input(form, 'kind').value,
    ...(service && { service }),
    ttl_s: Number(input(form, 'ttl_s').value),
    method,
    [method]: methodBlock(method),
  });
  const note = byId('new-identity');
  note.textContent = `Identity ${created.name} created. Workloads exchange with identity id ${created.id} and method ${created.method}.`;
  note.hidden = false;
  // The reviewer token is sealed on the server: it leaves the page at once.
  input(form, 'kubernetes.reviewer_token').value = '';
  input(form, 'name').value = '';
  await Promise.all([loadIdentities(), afterWrite()]);
});
