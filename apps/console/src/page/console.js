// @ts-check
/**
 * The console page: plain DOM over the management API (`api/…` beside this page). Whatever comes
 * from the API or the operator is written as text (`h()` appends text nodes, never HTML). The
 * admin token stays in sessionStorage: this tab only, never in a URL.
 */
const TOKEN_KEY = 'svc-console-admin-token';
const REJECTED =
  'The admin token was not accepted (401). Use the CONSOLE_ADMIN_TOKEN the console runs with ' +
  '(printed at its start, or kept in DATA_DIR/admin.token).';

/** Where the operator is: workspace, project, and scope ('' = project level, else a service). */
const state = { ws: '', project: '', scope: '' };

/** An error to show next to a form; `field` names the input at fault, as problem+json does. */
class FormError extends Error {
  /** @param {string} message @param {string} [field] @param {number} [status] */
  constructor(message, field, status = 0) {
    super(message);
    this.field = field;
    this.status = status;
  }
}

/** @param {string} id @returns {any} */
const byId = (id) => document.getElementById(id);
/** @param {HTMLFormElement} form @param {string} name @returns {any} */
const input = (form, name) => form.elements.namedItem(name);
/** @param {HTMLFormElement} form */
const slugged = (form) => ({
  slug: input(form, 'slug').value.trim(),
  name: input(form, 'name').value.trim(),
});
const enc = encodeURIComponent;
/** ISO time as `YYYY-MM-DD HH:MM:SS` (UTC). @param {string | null} iso */
const when = (iso) => (iso ? iso.replace('T', ' ').slice(0, 19) : '—');

/**
 * An element with properties (`textContent`, `checked`, …), `on*` listeners, dashed names as
 * attributes (`aria-label`), and children appended as nodes or as text.
 * @param {string} tag @param {Record<string, any>} [props] @param {...any} children @returns {any}
 */
function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else if (name.includes('-')) node.setAttribute(name, String(value));
    else Object.assign(node, { [name]: value });
  }
  node.append(...children.flat().map((c) => (c instanceof Node ? c : String(c ?? ''))));
  return node;
}
/** A table row; a cell is a `td` as it is, or content to wrap in one. @param {string} className @param {...any} cells */
const row = (className, ...cells) =>
  h('tr', { className }, ...cells.map((c) => (c?.tagName === 'TD' ? c : h('td', {}, c))));
/** @param {string} text @param {() => void} onclick @param {string} [className] */
const button = (text, onclick, className = '') =>
  h('button', { type: 'button', className, onclick }, text);
/** @param {string} label @param {boolean} checked */
const checkbox = (label, checked) => h('input', { type: 'checkbox', checked, 'aria-label': label });

/** @param {string} method @param {string} path @param {unknown} [body] @returns {Promise<any>} */
async function api(method, path, body) {
  const headers = { authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) ?? ''}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const init = { method, headers, cache: /** @type {const} */ ('no-store') };
  let res;
  try {
    res = await fetch(
      `api${path}`,
      body === undefined ? init : { ...init, body: JSON.stringify(body) },
    );
  } catch {
    throw new FormError('The console did not answer. Is it running?');
  }
  const data = res.status === 204 ? undefined : await res.json().catch(() => undefined);
  if (res.ok) return data;
  throw new FormError(data?.detail ?? `${res.status} ${res.statusText}`, data?.field, res.status);
}

// --- errors next to the form (or list) that caused them --------------------------------------

/** @param {HTMLElement} container a form or a list, holding one `.error` */
function clearError(container) {
  Object.assign(container.querySelector('.error') ?? {}, { textContent: '', hidden: true });
  for (const el of container.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
}

/** @param {HTMLElement} container @param {unknown} error */
function showError(container, error) {
  if (error instanceof FormError && error.status === 401) return signOut(REJECTED);
  const message = error instanceof Error ? error.message : String(error);
  Object.assign(container.querySelector('.error') ?? {}, { textContent: message, hidden: false });
  // The field `rules[0].conditions[0].operator` is the input named `rules`.
  const name = error instanceof FormError ? error.field?.split(/[.[]/)[0] : undefined;
  const field = name ? container.querySelector(`[name="${CSS.escape(name)}"]`) : null;
  if (field instanceof HTMLElement) {
    field.setAttribute('aria-invalid', 'true');
    field.focus();
  }
}

/** Runs an action, showing its error in `container`. @param {HTMLElement} container @param {() => Promise<unknown>} action */
async function attempt(container, action) {
  clearError(container);
  try {
    await action();
  } catch (error) {
    showError(container, error);
  }
}

/** @param {string} id @param {(form: HTMLFormElement) => Promise<unknown>} handler */
function onSubmit(id, handler) {
  const form = byId(id);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const submit = form.querySelector('button[type="submit"]');
    submit.disabled = true;
    await attempt(form, () => handler(form));
    submit.disabled = false;
  });
}

/** A write from a row's control; the list is reloaded either way, so it shows the truth. @param {string} listId @param {() => Promise<unknown>} write @param {() => Promise<unknown>} reload */
const change = (listId, write, reload) =>
  attempt(byId(listId), async () => {
    try {
      await write();
    } finally {
      await Promise.all([reload(), loadAudit()]);
    }
  });

/** @param {string} text @param {string} field */
function parseJson(text, field) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new FormError(
      `${field}: not valid JSON (${String(error).replace(/^SyntaxError: /, '')}); nothing was sent`,
      field,
    );
  }
}

/** The form's key as a path segment (`.` and `..` would be eaten by URL resolution). @param {HTMLFormElement} form */
function keySegment(form) {
  const key = input(form, 'key').value.trim();
  if (key === '.' || key === '..')
    throw new FormError('key: must be [A-Za-z0-9_-] segments', 'key');
  return enc(key);
}

/** @param {string} id @param {any[]} rows @param {string} empty @param {number} columns */
function fill(id, rows, empty, columns) {
  const none = row('', h('td', { colSpan: columns, className: 'empty' }, empty));
  byId(id).replaceChildren(...(rows.length ? rows : [none]));
}

const wsPath = () => `/workspaces/${enc(state.ws)}`;
const projectPath = () => `${wsPath()}/projects/${enc(state.project)}`;
const scopePath = () => projectPath() + (state.scope ? `/services/${enc(state.scope)}` : '');
const scopeLabel = () => (state.scope ? `service ${state.scope}` : `project ${state.project}`);

// --- sign in ---------------------------------------------------------------------------------

/** @param {boolean} yes */
function showSignedIn(yes) {
  byId('login').hidden = yes;
  byId('app').hidden = !yes;
  byId('sign-out').hidden = !yes;
}

/** Forgets the token and everything shown. @param {string} [message] */
function signOut(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  Object.assign(state, { ws: '', project: '', scope: '' });
  hideNewKey();
  for (const body of document.querySelectorAll('tbody')) body.replaceChildren();
  byId('workspace-view').hidden = true;
  showSignedIn(false);
  clearError(byId('login-form'));
  if (message) showError(byId('login-form'), new FormError(message, 'token'));
}

onSubmit('login-form', async (form) => {
  sessionStorage.setItem(TOKEN_KEY, input(form, 'token').value.trim());
  try {
    await loadWorkspaces();
  } catch (error) {
    sessionStorage.removeItem(TOKEN_KEY);
    throw error instanceof FormError && error.status === 401
      ? new FormError(REJECTED, 'token')
      : error;
  }
  form.reset();
  showSignedIn(true);
});
byId('sign-out').addEventListener('click', () => signOut());

// --- workspaces, projects, services ----------------------------------------------------------

async function loadWorkspaces() {
  const workspaces = await api('GET', '/workspaces');
  const rows = workspaces.map((w) => {
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
    Promise.all([loadWorkspaces(), loadProjects(), loadAudit()]),
  );
}

onSubmit('workspace-form', async (form) => {
  const created = await api('POST', '/workspaces', slugged(form));
  form.reset();
  await selectWorkspace(created.slug);
});

async function loadProjects() {
  const projects = await api('GET', `${wsPath()}/projects`);
  const rows = projects.map((p) => {
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

/** @param {string} slug */
async function selectProject(slug) {
  Object.assign(state, { project: slug, scope: '' });
  for (const el of document.querySelectorAll('.project-slug')) el.textContent = slug;
  hideNewKey();
  byId('project-view').hidden = false;
  await attempt(byId('project-list'), () =>
    Promise.all([loadProjects(), loadServices(), loadKeys(), loadValues()]),
  );
}

onSubmit('project-form', async (form) => {
  const created = await api('POST', `${wsPath()}/projects`, slugged(form));
  form.reset();
  await Promise.all([selectProject(created.slug), loadAudit()]);
});

async function loadServices() {
  const services = await api('GET', `${projectPath()}/services`);
  const rows = services.map((s) => row('', s.slug, s.name, when(s.created_at)));
  fill('service-rows', rows, 'No services yet.', 3);
  /** Offers "none" and every service, keeping the choice when it still exists. @param {any} select @param {string} none */
  const offer = (select, none) => {
    const chosen = select === byId('scope') ? state.scope : select.value;
    const options = services.map((s) => h('option', { value: s.slug }, `service ${s.slug}`));
    select.replaceChildren(h('option', { value: '' }, none), ...options);
    select.value = services.some((s) => s.slug === chosen) ? chosen : '';
  };
  offer(input(byId('key-form'), 'service'), 'none (project level)');
  offer(byId('scope'), `project ${state.project}`);
}

onSubmit('service-form', async (form) => {
  await api('POST', `${projectPath()}/services`, slugged(form));
  form.reset();
  await Promise.all([loadServices(), loadAudit()]);
});

// --- API keys --------------------------------------------------------------------------------

async function loadKeys() {
  const keys = await api('GET', `${projectPath()}/keys`);
  const rows = keys.map((k) => {
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
  await Promise.all([loadKeys(), loadAudit()]);
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

// --- configs, flags, secrets of one scope ----------------------------------------------------

const loadValues = () => Promise.all([loadConfigs(), loadFlags(), loadSecrets()]);

byId('scope').addEventListener('change', () => {
  state.scope = byId('scope').value;
  return attempt(byId('config-list'), loadValues);
});

/** @param {'configs' | 'flags' | 'secrets'} kind @param {string} key @param {() => Promise<void>} reload */
const deleteButton = (kind, key, reload) =>
  button(
    'Delete',
    async () => {
      if (!confirm(`Delete ${kind.slice(0, -1)} ${key} from ${scopeLabel()}?`)) return;
      await change(
        `${kind.slice(0, -1)}-list`,
        () => api('DELETE', `${scopePath()}/${kind}/${enc(key)}`),
        reload,
      );
    },
    'danger',
  );
/** @param {...any} buttons */
const actions = (...buttons) => h('td', { className: 'actions' }, buttons);

async function loadConfigs() {
  const configs = await api('GET', `${scopePath()}/configs`);
  const rows = configs.map((c) => {
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
  await Promise.all([loadConfigs(), loadAudit()]);
});

async function loadFlags() {
  const flags = await api('GET', `${scopePath()}/flags`);
  const rows = flags.map((f) => {
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
  await Promise.all([loadFlags(), loadAudit()]);
});

async function loadSecrets() {
  const secrets = await api('GET', `${scopePath()}/secrets`);
  const rows = secrets.map((s) => {
    const value = h('span', { className: 'concealed' }, 'hidden');
    const reveal = button('Reveal', () => toggleReveal(s.key, value, reveal));
    const versions = s.versions.map((v) =>
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

/** Shows one secret's value (the API reveals, and audits, the whole scope). @param {string} key @param {any} value @param {any} toggle */
async function toggleReveal(key, value, toggle) {
  if (toggle.textContent === 'Hide') {
    Object.assign(value, { textContent: 'hidden', className: 'concealed' });
    toggle.textContent = 'Reveal';
    return;
  }
  await attempt(byId('secret-list'), async () => {
    const revealed = await api('GET', `${scopePath()}/secrets?reveal=true`);
    const found = revealed.find((s) => s.key === key);
    if (!found) throw new FormError(`secret ${key} no longer exists`);
    Object.assign(value, { textContent: found.value, className: 'revealed' });
    toggle.textContent = 'Hide';
    await loadAudit();
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
  await Promise.all([loadSecrets(), loadAudit()]);
});

// --- audit log -------------------------------------------------------------------------------

async function loadAudit() {
  if (!state.ws) return;
  const entries = await api('GET', `${wsPath()}/audit?limit=50`);
  const rows = entries.map((e) => row('', when(e.at), e.actor, h('code', {}, e.action), e.target));
  fill('audit-rows', rows, 'Nothing yet.', 4);
}
byId('audit-refresh').addEventListener('click', () => attempt(byId('audit-list'), loadAudit));

// --- start -----------------------------------------------------------------------------------

showSignedIn(Boolean(sessionStorage.getItem(TOKEN_KEY)));
if (sessionStorage.getItem(TOKEN_KEY)) void attempt(byId('workspace-list'), loadWorkspaces);
