/**
 * The page's script: hydrates the server-rendered app with the same props (its bootstrap among
 * them), or renders it afresh when the server sent no markup. `toggleFlag` writes through the
 * console (via the app server) and says when its answer arrived, on the page's clock.
 */
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App, type AppProps } from './app.tsx';

declare global {
  interface Window {
    toggleFlag?: (key: string, on: boolean) => Promise<number>;
  }
}

const props = JSON.parse(document.getElementById('props')!.textContent!) as AppProps;
const root = document.getElementById('root')!;
window.commits ??= [];
window.toggleFlag = async (key, on) => {
  const res = await fetch(`/console/flags/${encodeURIComponent(key)}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ is_active: on }),
  });
  const answeredAt = performance.now();
  if (!res.ok) throw new Error(`console: ${res.status}`);
  return answeredAt;
};
if (root.hasChildNodes()) hydrateRoot(root, <App {...props} />);
else createRoot(root).render(<App {...props} />);
