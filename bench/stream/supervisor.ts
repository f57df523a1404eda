/**
 * The stream bench's child processes: the apps, the raw baseline and the load generators. A
 * server that exits when nobody stopped it ends the run (its numbers would be void); on the
 * way out every child is stopped and every temporary folder removed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';

export class Supervisor {
  private readonly children = new Set<ChildProcess>();
  /** Children whose exit is expected (stopped by us, or load generators that end on their own). */
  private readonly stopping = new Set<ChildProcess>();
  private readonly folders: string[] = [];

  constructor(
    private readonly root: string,
    /** Pins a server to CPU 0 when the run is pinned: how to run node for it. */
    private readonly nodeOn: (cpu: number | undefined) => [string, string[]],
  ) {}

  /** Starts a node server: the console floats, the api and the raw baseline go on CPU 0. */
  start(
    name: string,
    entry: string,
    env: Record<string, string>,
    /** Arguments for a process that reports `ready` over IPC (the raw baseline). */
    ipcArgs?: string[],
  ): ChildProcess {
    // taskset execs node in place: the child's pid is node's.
    const [command, lead] = this.nodeOn(name === 'console' ? undefined : 0);
    // The apps run from their bundles, as `pnpm start` runs them; the raw baseline through tsx.
    const loader = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
    const child = spawn(command, [...lead, ...loader, entry, ...(ipcArgs ?? [])], {
      cwd: this.root,
      env: { ...process.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', SEED_DEMO: 'false', ...env },
      stdio: ipcArgs ? ['ignore', 'inherit', 'inherit', 'ipc'] : ['ignore', 'inherit', 'inherit'],
    });
    this.children.add(child);
    child.once('exit', (code, signal) => {
      this.children.delete(child);
      if (!this.stopping.has(child)) {
        console.error(`${name} exited unexpectedly (${signal ?? code})`);
        void this.cleanUp().then(() => process.exit(1));
      }
    });
    return child;
  }

  /** A child started elsewhere that may exit on its own, stopped on the way out if not. */
  adopt(child: ChildProcess): void {
    this.children.add(child);
    this.stopping.add(child);
  }

  /** A child that has exited. */
  release(child: ChildProcess): void {
    this.children.delete(child);
  }

  /** A folder removed on the way out. */
  removeLater(folder: string): void {
    this.folders.push(folder);
  }

  async stop(child: ChildProcess): Promise<void> {
    this.stopping.add(child);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }

  async cleanUp(): Promise<void> {
    await Promise.all([...this.children].map((child) => this.stop(child)));
    for (const folder of this.folders) rmSync(folder, { recursive: true, force: true });
  }
}
