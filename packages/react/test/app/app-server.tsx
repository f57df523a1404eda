/**
 * The example app's server, as a Next.js page would work: it fetches `/v1/sync` with the public
 * key, renders the app to HTML with that snapshot as `bootstrap`, and sends the same props to
 * the page, which hydrates. It serves the bundled script and passes `/console/flags/{key}` on to
 * the console's management API (with the admin token, which the page never sees). Its origin
 * differs from the api's, so the page's calls to the api are real cross-origin requests.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderToString } from 'react-dom/server';
import { httpCall } from '@svc/testkit';
import { App, type AppProps } from './app.tsx';

export interface AppServerOptions {
  /** The bundled `main.tsx`. */
  script: string;
  /** The workspace's base URL on the api. */
  baseUrl: string;
  publicKey: string;
  secretKey: string;
  consolePort: number;
  adminToken: string;
  /** The management API's scope of the flags the page may toggle (`/api/workspaces/…`). */
  flagScope: string;
}

export interface AppServer {
  url: string;
  close(): Promise<void>;
}

/**
 * `GET /?user=…&key=public|secret&ssr=0&bootstrap=0&ttl=…&delay=…`: the page. `ssr=0` sends no
 * markup (the page renders from the bootstrap alone); `bootstrap=0` no bootstrap either (the
 * page renders from its own sync).
 */
export async function startAppServer(options: AppServerOptions): Promise<AppServer> {
  const server = createServer((req, res) => {
    handle(options, req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function handle(options: AppServerOptions, req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://app');
  if (url.pathname === '/app.js') {
    res.writeHead(200, { 'content-type': 'text/javascript' }).end(options.script);
  } else if (url.pathname.startsWith('/console/flags/') && req.method === 'PUT') {
    const key = url.pathname.slice('/console/flags/'.length);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const answer = await httpCall(options.consolePort, 'PUT', `${options.flagScope}/flags/${key}`, {
      headers: {
        authorization: `Bearer ${options.adminToken}`,
        'content-type': 'application/json',
      },
      rawBody: Buffer.concat(chunks),
    });
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.text);
  } else if (url.pathname === '/') {
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(await page(options, url));
  } else {
    res.writeHead(404).end();
  }
}

async function page(options: AppServerOptions, url: URL): Promise<string> {
  const q = url.searchParams;
  const apiKey = q.get('key') === 'secret' ? options.secretKey : options.publicKey;
  const bootstrap = q.get('bootstrap') !== '0';
  const ssr = bootstrap && q.get('ssr') !== '0';
  const props: AppProps = {
    baseUrl: options.baseUrl,
    apiKey,
    userId: q.get('user') ?? 'user-1',
    cacheTtlMs: Number(q.get('ttl') ?? 60_000),
    // `delay`: the stream's reconnect delay (from half of it to all of it, with jitter).
    reconnect: {
      initialDelayMs: Number(q.get('delay') ?? 1000),
      maxDelayMs: Math.max(2000, Number(q.get('delay') ?? 1000)),
    },
  };
  if (bootstrap) {
    // What a Next.js server component or getServerSideProps does: one sync with the public key.
    const sync = await fetch(`${options.baseUrl}/v1/sync`, {
      headers: { 'x-service-api-key': apiKey },
    });
    if (!sync.ok) throw new Error(`bootstrap sync: ${sync.status}`);
    props.bootstrap = await sync.json();
  }
  const markup = ssr ? renderToString(<App {...props} />) : '';
  // `<` escaped: the JSON sits inside a script element.
  const json = JSON.stringify(props).replace(/</g, '\\u003c');
  return `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>@svc/react example</title></head>
<body><div id="root">${markup}</div>
<script>
  // What the browser has to paint before any script of the app ran.
  window.commits = [];
  window.firstPaint = {
    flag: document.getElementById('flag')?.textContent,
    theme: document.getElementById('theme')?.textContent,
  };
</script>
<script type="application/json" id="props">${json}</script>
<script type="module" src="/app.js"></script>
</body></html>`;
}
