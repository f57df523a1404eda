// @ts-check
/** Forms and row controls: an error shows next to the form (or list) that caused it. */
import { FormError } from './api.js';
import { byId, input } from './dom.js';
import { afterWrite } from './panels.js';

/** @type {(error: FormError) => void} */
let unauthorized = () => {};

/** What to do when the API refuses the token (sign out, saying why). @param {(error: FormError) => void} handler */
export function onUnauthorized(handler) {
  unauthorized = handler;
}

/** @param {HTMLElement} container a form or a list, holding one `.error` */
export function clearError(container) {
  Object.assign(container.querySelector('.error') ?? {}, { textContent: '', hidden: true });
  for (const el of container.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
}

/** @param {HTMLElement} container @param {unknown} error */
export function showError(container, error) {
  if (error instanceof FormError && error.status === 401) return unauthorized(error);
  const message = error instanceof Error ? error.message : String(error);
  Object.assign(container.querySelector('.error') ?? {}, { textContent: message, hidden: false });
  // The input named as the field (`oidc.issuer`), else the one named by its first part: the
  // field `rules[0].conditions[0].operator` is the input named `rules`.
  const full = error instanceof FormError ? error.field : undefined;
  const name = full?.split(/[.[]/)[0];
  const named = (/** @type {string | undefined} */ n) =>
    n ? container.querySelector(`[name="${CSS.escape(n)}"]`) : null;
  const field = named(full) ?? named(name);
  if (field instanceof HTMLElement) {
    field.setAttribute('aria-invalid', 'true');
    field.focus();
  }
}

/** Runs an action, showing its error in `container`. @param {HTMLElement} container @param {() => Promise<unknown>} action */
export async function attempt(container, action) {
  clearError(container);
  try {
    await action();
  } catch (error) {
    showError(container, error);
  }
}

/** @param {string} id @param {(form: HTMLFormElement) => Promise<unknown>} handler */
export function onSubmit(id, handler) {
  const form = byId(id);
  form.addEventListener('submit', async (/** @type {Event} */ event) => {
    event.preventDefault();
    const submit = form.querySelector('button[type="submit"]');
    submit.disabled = true;
    await attempt(form, () => handler(form));
    submit.disabled = false;
  });
}

/** A write from a row's control; the list is reloaded either way, so it shows the truth. @param {string} listId @param {() => Promise<unknown>} write @param {() => Promise<unknown>} reload */
export const change = (listId, write, reload) =>
  attempt(byId(listId), async () => {
    try {
      await write();
    } finally {
      await Promise.all([reload(), afterWrite()]);
    }
  });

/** @param {string} text @param {string} field */
export function parseJson(text, field) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new FormError(
      `${field}: not valid JSON (${String(error).replace(/^SyntaxError: /, '')}); nothing was sent`,
      field,
    );
  }
}

/** The form's slug and name. @param {HTMLFormElement} form */
export const slugged = (form) => ({
  slug: input(form, 'slug').value.trim(),
  name: input(form, 'name').value.trim(),
});

/** The form's key as a path segment (`.` and `..` would be eaten by URL resolution). @param {HTMLFormElement} form */
export function keySegment(form) {
  const key = input(form, 'key').value.trim();
  if (key === '.' || key === '..')
    throw new FormError('key: must be [A-Za-z0-9_-] segments', 'key');
  return encodeURIComponent(key);
}
