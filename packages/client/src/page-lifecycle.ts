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

export interface PageHandlers {
  /** The page was shown again. */
  visible(): void;
  /** The page was hidden (another tab, a minimized window, a locked screen). */
  hidden(): void;
  /** The browser is back online. */
  online(): void;
}

/** True while the page is hidden; false where there is no page. */
export function pageHidden(): boolean {
  return page.document?.visibilityState === 'hidden';
}

/** Follows the page's events; returns the function that stops following them. */
export function watchPage(handlers: PageHandlers): () => void {
  const { document } = page;
  if (!document) return () => {};
  const visibility = () => (pageHidden() ? handlers.hidden() : handlers.visible());
  document.addEventListener('visibilitychange', visibility);
  page.addEventListener('online', handlers.online);
  return () => {
    document.removeEventListener('visibilitychange', visibility);
    page.removeEventListener('online', handlers.online);
  };
}
