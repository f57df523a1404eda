// @ts-check
/** Signing in with the admin token, and out. */
import { FormError, token } from '../lib/api.js';
import { byId, input } from '../lib/dom.js';
import { attempt, clearError, onSubmit, onUnauthorized, showError } from '../lib/forms.js';
import { resetPanels } from '../lib/panels.js';
import { state } from '../lib/state.js';
import { loadWorkspaces } from './workspaces.js';

const REJECTED =
  'The admin token was not accepted (401). Use the CONSOLE_ADMIN_TOKEN the console runs with ' +
  '(printed at its start, or kept in DATA_DIR/admin.token).';

/** @param {boolean} yes */
function showSignedIn(yes) {
  byId('login').hidden = yes;
  byId('app').hidden = !yes;
  byId('sign-out').hidden = !yes;
}

/** Forgets the token and everything shown. @param {string} [message] */
function signOut(message) {
  token.forget();
  Object.assign(state, { ws: '', project: '', scope: '' });
  resetPanels('workspace', 'project', 'scope');
  for (const body of document.querySelectorAll('tbody')) body.replaceChildren();
  byId('workspace-view').hidden = true;
  showSignedIn(false);
  clearError(byId('login-form'));
  if (message) showError(byId('login-form'), new FormError(message, 'token'));
}

onUnauthorized(() => signOut(REJECTED));

onSubmit('login-form', async (form) => {
  token.set(input(form, 'token').value.trim());
  try {
    await loadWorkspaces();
  } catch (error) {
    token.forget();
    throw error instanceof FormError && error.status === 401
      ? new FormError(REJECTED, 'token')
      : error;
  }
  form.reset();
  showSignedIn(true);
});
byId('sign-out').addEventListener('click', () => signOut());

/** Shows the page as signed in when this tab holds a token, and loads the workspaces. */
export function startSession() {
  showSignedIn(Boolean(token.get()));
  if (token.get()) void attempt(byId('workspace-list'), loadWorkspaces);
}
