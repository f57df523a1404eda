/**
 * The hooks with React's own test utilities (`act`, react-dom's `createRoot`) in jsdom, against
 * the real console and api as processes. Runs twice: with React 19 and with React 18 (see
 * vitest.config.ts).
 */
import { act, Component, useState, version, type ReactNode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startProcesses, waitFor, type ProcessServer } from '@svc/testkit';
import {
  ServiceProvider,
  useAllFlags,
  useConfig,
  useEvaluateAB,
  useFlag,
  useServiceStatus,
  type EvaluateABState,
  type ServiceProviderProps,
} from '../src/index.ts';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const TOKEN = 'react-hooks-test-admin-token-0123456789';
const P = '/workspaces/hooks/projects/web';
let server: ProcessServer;
let publicKey: string;
let secretKey: string;
let baseUrl: string;
const roots: Root[] = [];

beforeAll(async () => {
  server = await startProcesses(TOKEN);
  baseUrl = `${server.apiUrl}/hooks`;
  await server.admin('POST', '/workspaces', { slug: 'hooks', name: 'Hooks' });
  await server.admin('POST', '/workspaces/hooks/projects', { slug: 'web', name: 'Web' });
  await server.admin('PATCH', P, { ab_testing: true });
  await server.admin('PUT', `${P}/flags/beta`, { is_active: true });
  await server.admin('PUT', `${P}/flags/ab`, { is_active: true, rollout_percentage: 50 });
  await server.admin('PUT', `${P}/configs/ui.theme`, { value: 'dark', is_public: true });
  publicKey = (await server.admin('POST', `${P}/keys`, { kind: 'public' })).json().key;
  secretKey = (await server.admin('POST', `${P}/keys`, { kind: 'secret' })).json().key;
  await waitFor(async () => (await syncBody()) !== undefined, 10_000);
}, 60_000);

afterEach(async () => {
  await act(async () => roots.splice(0).forEach((root) => root.unmount()));
});

afterAll(() => server?.stop(), 30_000);

/** What a server would pass as `bootstrap`: a `/v1/sync` with the public key. */
async function syncBody(): Promise<unknown> {
  const res = await fetch(`${baseUrl}/v1/sync`, { headers: { 'x-service-api-key': publicKey } });
  return res.ok ? res.json() : undefined;
}

/** Counts the requests the client sends, by path (the requests themselves are real). */
function countingFetch() {
  const paths: string[] = [];
  const fetchFn: typeof fetch = (input, init) => {
    paths.push(new URL(String(input)).pathname.replace(/^\/hooks/, ''));
    return fetch(input, init);
  };
  return { fetch: fetchFn, count: (path: string) => paths.filter((p) => p === path).length };
}

async function render(node: ReactNode): Promise<HTMLElement> {
  const container = document.createElement('div');
  const root = createRoot(container);
  roots.push(root);
  await act(async () => root.render(node));
  return container;
}

const config = (extra: Partial<ServiceProviderProps> = {}): ServiceProviderProps => ({
  baseUrl,
  apiKey: publicKey,
  reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
  ...extra,
});

/**
 * Waits for `condition`, letting React apply what arrived meanwhile: each short wait is an
 * `act` of its own, and React flushes the updates queued in an `act` when it ends.
 */
async function until(condition: () => boolean, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await act(() => new Promise((resolve) => setTimeout(resolve, 10)));
  }
}

/** Keeps what a render threw (React reports it to the console too: silenced here). */
class Guard extends Component<{ children: ReactNode }, { error?: unknown }> {
  static caught: unknown;
  override state: { error?: unknown } = {};
  static getDerivedStateFromError(error: unknown) {
    Guard.caught = error;
    return { error };
  }
  override render() {
    return this.state.error === undefined ? this.props.children : null;
  }
}

async function renderGuarded(node: ReactNode): Promise<unknown> {
  Guard.caught = undefined;
  const quiet = console.error;
  console.error = () => {};
  // React 18 rethrows a render error through a DOM event in development; jsdom would print it.
  const handled = (event: Event) => event.preventDefault();
  window.addEventListener('error', handled);
  try {
    await render(<Guard>{node}</Guard>);
  } finally {
    console.error = quiet;
    window.removeEventListener('error', handled);
  }
  return Guard.caught;
}

describe(`hooks (React ${version})`, () => {
  it('the first render already reads the bootstrap, before any request', async () => {
    const seen: [boolean, unknown][] = [];
    function Probe() {
      const beta = useFlag('beta');
      const theme = useConfig('ui.theme');
      seen.push([beta, theme]);
      return null;
    }
    const counting = countingFetch();
    const bootstrap = await syncBody();
    await render(
      <ServiceProvider {...config({ bootstrap, fetch: counting.fetch })}>
        <Probe />
      </ServiceProvider>,
    );
    expect(seen[0]).toEqual([true, 'dark']);
    expect(seen.every(([beta]) => beta === true)).toBe(true);
    // The stream resumed from the bootstrap's revision: no sync was needed.
    await until(() => counting.count('/v1/stream') === 1);
    expect(counting.count('/v1/sync')).toBe(0);
  });

  it('re-renders on a console change, and only the components whose value changed', async () => {
    const renders = { flag: 0, theme: 0 };
    function FlagView() {
      renders.flag++;
      return <i id="flag">{String(useFlag('beta'))}</i>;
    }
    function ThemeView() {
      renders.theme++;
      return <i id="theme">{String(useConfig('ui.theme'))}</i>;
    }
    function Ready({ children }: { children: ReactNode }) {
      return useServiceStatus().streamConnected ? children : null;
    }
    const container = await render(
      <ServiceProvider {...config({ bootstrap: await syncBody() })}>
        <Ready>
          <FlagView />
          <ThemeView />
        </Ready>
      </ServiceProvider>,
    );
    await until(() => container.querySelector('#flag') !== null);
    const before = { ...renders };
    try {
      await server.admin('PUT', `${P}/flags/beta`, { is_active: false });
      await until(() => container.querySelector('#flag')!.textContent === 'false');
      // React may render a component more than once per update; one that reads a value that
      // did not change is not rendered at all.
      expect(renders.flag).toBeGreaterThan(before.flag);
      expect(renders.theme).toBe(before.theme);
    } finally {
      await server.admin('PUT', `${P}/flags/beta`, { is_active: true });
    }
    await until(() => container.querySelector('#flag')!.textContent === 'true');
  });

  it('useAllFlags keeps its object until a flag changes', async () => {
    const seen: Record<string, boolean>[] = [];
    let rerender: () => void = () => {};
    function All() {
      const [, set] = useState(0);
      rerender = () => set((n) => n + 1);
      seen.push(useAllFlags());
      return null;
    }
    await render(
      <ServiceProvider {...config({ bootstrap: await syncBody() })}>
        <All />
      </ServiceProvider>,
    );
    await act(async () => rerender());
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.at(-1)).toBe(seen[0]);
    expect(seen[0]).toEqual({ beta: true, ab: true });
    await server.admin('PUT', `${P}/flags/new.one`, { is_active: true });
    await until(() => seen.at(-1)!['new.one'] === true);
    expect(seen.at(-1)).not.toBe(seen[0]);
    await server.admin('DELETE', `${P}/flags/new.one`);
  });

  it('useServiceStatus: not ready, then ready with a sync time, then the stream', async () => {
    const states: { ready: boolean; stream: boolean; synced: boolean }[] = [];
    function StatusView() {
      const { ready, streamConnected, syncedAt, error } = useServiceStatus();
      expect(error).toBeNull();
      states.push({ ready, stream: streamConnected, synced: syncedAt !== null });
      return null;
    }
    await render(
      <ServiceProvider {...config()}>
        <StatusView />
      </ServiceProvider>,
    );
    await until(() => states.at(-1)!.stream);
    expect(states[0]).toEqual({ ready: false, stream: false, synced: false });
    expect(states.at(-1)).toEqual({ ready: true, stream: true, synced: true });
  });

  it('useEvaluateAB: the server’s answer; asked again only when an input changes in value', async () => {
    const counting = countingFetch();
    const seen: EvaluateABState[] = [];
    let setUser: (user: string) => void = () => {};
    let rerender: () => void = () => {};
    function Variant() {
      const [user, set] = useState('u-1');
      const [, bump] = useState(0);
      setUser = set;
      rerender = () => bump((n) => n + 1);
      // New array and object literals on every render: the same request.
      seen.push(useEvaluateAB(['ab', 'beta'], user, { country: 'DE' }));
      return null;
    }
    await render(
      <ServiceProvider {...config({ bootstrap: await syncBody(), fetch: counting.fetch })}>
        <Variant />
      </ServiceProvider>,
    );
    await until(() => !seen.at(-1)!.loading);
    const direct = async (user: string) => {
      const res = await fetch(`${baseUrl}/v1/flags/evaluate-ab`, {
        method: 'POST',
        headers: { 'x-service-api-key': publicKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          flags: ['ab', 'beta'],
          user_id: user,
          attributes: { country: 'DE' },
        }),
      });
      return ((await res.json()) as { results: Record<string, boolean> }).results;
    };
    expect(seen[0]).toMatchObject({ data: undefined, loading: true });
    expect(seen.at(-1)).toEqual({ data: await direct('u-1'), error: null, loading: false });
    await act(async () => rerender());
    expect(counting.count('/v1/flags/evaluate-ab')).toBe(1);

    // Another user: asked again; the previous answer stays while the new one loads.
    const from = seen.length;
    await act(async () => setUser('u-2'));
    await until(() => !seen.at(-1)!.loading);
    const first = await direct('u-1');
    expect(seen.slice(from)[0]).toEqual({ data: first, error: null, loading: true });
    expect(seen.at(-1)).toEqual({ data: await direct('u-2'), error: null, loading: false });
    expect(counting.count('/v1/flags/evaluate-ab')).toBe(2);
  });

  it('refuses a secret key while rendering, with a TypeError and no request', async () => {
    const counting = countingFetch();
    const caught = await renderGuarded(
      <ServiceProvider {...config({ apiKey: secretKey, fetch: counting.fetch })}>
        <p />
      </ServiceProvider>,
    );
    expect(caught).toBeInstanceOf(TypeError);
    expect(String(caught)).toMatch(/public key/);
    expect(String(caught)).not.toContain(secretKey);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(counting.count('/v1/sync') + counting.count('/v1/stream')).toBe(0);
  });

  it('a hook outside a ServiceProvider throws a clear error', async () => {
    function Lost() {
      useFlag('beta');
      return null;
    }
    expect(String(await renderGuarded(<Lost />))).toMatch(/no <ServiceProvider> above/);
  });

  it('unmounting the provider closes its stream', async () => {
    const streams: AbortSignal[] = [];
    const fetchFn: typeof fetch = (input, init) => {
      if (String(input).endsWith('/v1/stream')) streams.push(init!.signal!);
      return fetch(input, init);
    };
    const container = document.createElement('div');
    const root = createRoot(container);
    await act(async () =>
      root.render(<ServiceProvider {...config({ bootstrap: await syncBody(), fetch: fetchFn })} />),
    );
    await until(() => streams.length === 1);
    expect(streams[0]!.aborted).toBe(false);
    await act(async () => root.unmount());
    await until(() => streams[0]!.aborted);
  });
});
