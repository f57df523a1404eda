/**
 * What a test file needs of the live console and api that global-setup started, and of the
 * built `svc`: management calls, keys, and `svc` runs as real processes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { inject } from 'vitest';
import { adminCalls } from '@svc/testkit';
import { ADMIN_TOKEN, svcBin } from './paths.ts';

export interface SvcResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface SvcProcess {
  child: ChildProcess;
  /** Everything written so far. */
  stdout: () => string;
  stderr: () => string;
  /** Resolves when `svc` has exited. */
  exited: Promise<SvcResult>;
}

export function liveService() {
  const consolePort = inject('consolePort');
  const apiPort = inject('apiPort');
  const { admin, adminRaw } = adminCalls(() => consolePort, ADMIN_TOKEN);
  const consoleUrl = `http://127.0.0.1:${consolePort}`;
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  /** The environment svc reads its console settings from. */
  const consoleEnv = { SVC_CONSOLE_URL: consoleUrl, SVC_ADMIN_TOKEN: ADMIN_TOKEN };

  /** Starts `node dist/svc.mjs …args` with `env` on top of this process's environment. */
  function start(
    args: string[],
    options: { env?: Record<string, string | undefined>; cwd?: string; stdin?: string } = {},
  ): SvcProcess {
    const child = spawn(process.execPath, [svcBin, ...args], {
      env: { ...process.env, ...options.env },
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdin!.end(options.stdin ?? '');
    const exited = new Promise<SvcResult>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
    );
    return { child, stdout: () => stdout, stderr: () => stderr, exited };
  }

  return {
    consoleUrl,
    apiUrl,
    consoleEnv,
    admin,
    adminRaw,
    start,
    /** Runs `svc …args` to its end. */
    svc: (args: string[], options: Parameters<typeof start>[1] = {}) => start(args, options).exited,
    /** Creates a key of `project` in `ws` and returns its plaintext. */
    async createKey(ws: string, project: string, kind: 'secret' | 'public', service?: string) {
      const res = await admin('POST', `/workspaces/${ws}/projects/${project}/keys`, {
        kind,
        ...(service ? { service } : {}),
      });
      return res.json().key as string;
    },
  };
}
