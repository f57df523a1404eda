// @ts-check
/** The audit log of the chosen workspace, reloaded after every write. */
import { api } from '../lib/api.js';
import { byId, fill, h, row, when } from '../lib/dom.js';
import { attempt } from '../lib/forms.js';
import { onWrite, registerPanel } from '../lib/panels.js';
import { state, wsPath } from '../lib/state.js';

async function loadAudit() {
  if (!state.ws) return;
  const entries = await api('GET', `${wsPath()}/audit?limit=50`);
  const rows = entries.map((/** @type {any} */ e) =>
    row('', when(e.at), e.actor, h('code', {}, e.action), e.target),
  );
  fill('audit-rows', rows, 'Nothing yet.', 4);
}
registerPanel({ level: 'workspace', load: loadAudit });
onWrite(loadAudit);

byId('audit-refresh').addEventListener('click', () => attempt(byId('audit-list'), loadAudit));
