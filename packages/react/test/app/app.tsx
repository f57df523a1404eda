/**
 * The example app the browser tests build (esbuild) and serve: every hook of `@svc/react` on one
 * page. It records, in the page, when each value was committed, so a test can tell a first
 * paint that already had the bootstrapped values from one that flashed the defaults.
 */
import { Component, useEffect, useLayoutEffect, type ReactNode } from 'react';
import {
  ServiceProvider,
  useAllConfigs,
  useAllFlags,
  useConfig,
  useEvaluateAB,
  useFlag,
  useServiceStatus,
  type ServiceProviderProps,
} from '../../src/index.ts';

/** A value the page committed, and when (`performance.now()`). */
export interface Commit {
  name: string;
  value: unknown;
  at: number;
}

declare global {
  interface Window {
    commits?: Commit[];
  }
}

// Layout effects run at commit, before paint; there are none during server rendering.
const useCommitEffect = typeof window === 'undefined' ? useEffect : useLayoutEffect;

function useRecord(name: string, value: unknown): void {
  useCommitEffect(() => {
    window.commits?.push({ name, value, at: performance.now() });
  }, [name, value]);
}

function Flag({ name }: { name: string }) {
  const on = useFlag(name);
  useRecord(name, on);
  return <p id="flag">{on ? 'on' : 'off'}</p>;
}

function Theme() {
  const theme = useConfig('ui.theme');
  useRecord('ui.theme', theme);
  return <p id="theme">{String(theme ?? 'default')}</p>;
}

function Everything() {
  const flags = useAllFlags();
  const configs = useAllConfigs();
  return <pre id="all">{JSON.stringify({ flags, configs })}</pre>;
}

function Status() {
  const { ready, streamConnected, syncedAt, error } = useServiceStatus();
  return (
    <p id="status" data-ready={ready} data-stream={streamConnected}>
      {syncedAt ? 'synced' : 'not synced'} {error ? `error: ${error.message}` : ''}
    </p>
  );
}

function Variant({ userId }: { userId: string }) {
  const { data, error, loading } = useEvaluateAB(['ab.checkout'], userId, { country: 'DE' });
  return (
    <p id="variant" data-loading={loading}>
      {error ? `error: ${error.message}` : JSON.stringify(data ?? null)}
    </p>
  );
}

/** Shows what a render threw (a secret key, say) instead of the app. */
class Guard extends Component<{ children: ReactNode }, { error?: Error }> {
  override state: { error?: Error } = {};
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override render() {
    if (this.state.error) {
      return <p id="error">{`${this.state.error.name}: ${this.state.error.message}`}</p>;
    }
    return this.props.children;
  }
}

export type AppProps = Omit<ServiceProviderProps, 'children'> & { userId: string };

export function App({ userId, ...config }: AppProps) {
  return (
    <Guard>
      <ServiceProvider {...config}>
        <Flag name="checkout.v2" />
        <Theme />
        <Status />
        <Variant userId={userId} />
        <Everything />
      </ServiceProvider>
    </Guard>
  );
}
