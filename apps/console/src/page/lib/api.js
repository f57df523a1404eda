// @ts-check
/**
 * The management API (`api/…` beside the page), called with the admin token this tab holds. The
 * token stays in sessionStorage: this tab only, never in a URL.
 */
const TOKEN_KEY = 'svc-console-admin-token';

/** An error to show next to a form; `field` names the input at fault, as problem+json does. */
export class FormError extends Error {
  /** @param {string} message @param {string} [field] @param {number} [status] */
  constructor(message, field, status = 0) {
    super(message);
    this.field = field;
    this.status = status;
  }
}

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  /** @param {string} value */
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  forget: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** @param {string} method @param {string} path @param {unknown} [body] @returns {Promise<any>} */
export async function api(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { authorization: `Bearer ${token.get() ?? ''}` };
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
