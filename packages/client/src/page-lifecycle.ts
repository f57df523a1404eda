/**
 * The page events a browser client follows: `visibilitychange` (a hidden page holds no stream)
 * and `online` (reconnect at once instead of waiting out the backoff). Does nothing where there
 * is no page (server-side rendering, a worker), so the browser entry can be imported anywhere.
 */

/** The parts of `window` and `document` used here (the package builds without the DOM types). */
interface EventTarget {
  addEventListener(type: string, listener: () => void): void;
  removeEventListener(type: string, listener: () => void): void;
}
interface Page extends EventTarget {
  document?: EventTarget & { visibilityState?: string };
}

const page = globalThis as unknown as Page;

/** True while the page is hidden; false where there is no page. */
export function pageHidden(): boolean {
  return page.document?.visibilityState === 'hidden';
}

/**
 * Follows the page's events: `visibility` with {@link pageHidden} when the page is shown or
 * hidden (another tab, a minimized window, a locked screen), `online` when the browser is back
 * online. Returns the function that stops following them.
 */
export function watchPage(visibility: (hidden: boolean) => void, online: () => void): () => void {
  const { document } = page;
  if (!document) return () => {};
  const onVisibility = () => visibility(pageHidden());
  document.addEventListener('visibilitychange', onVisibility);
  page.addEventListener('online', online);
  return () => {
    document.removeEventListener('visibilitychange', onVisibility);
    page.removeEventListener('online', online);
  };
}
