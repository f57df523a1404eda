/**
 * The command `svc run` starts: spawned with its environment and svc's standard streams, signals
 * forwarded to it, its exit status handed back, and (for `--watch`) restarted: SIGTERM, a grace
 * period, then SIGKILL, then the same command with the new environment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';

/** Signals svc passes on to the command rather than dying of them. */
const FORWARDED: NodeJS.Signals[] = [
  'SIGINT',
  'SIGTERM',
  'SIGHUP',
  'SIGQUIT',
  'SIGUSR1',
  'SIGUSR2',
];

export interface SupervisorOptions {
  command: string;
  args: readonly string[];
  /** How long a restarted command may take to stop after SIGTERM before it gets SIGKILL. */
  gracePeriodMs: number;
  /** Where svc says what it does (stderr). */
  say: (message: string) => void;
}

/** The exit status a shell would report: the code, or 128 + the signal's number. */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal === null ? 0 : (constants.signals[signal] ?? 0));
}

export class Supervisor {
  private child: ChildProcess | undefined;
  /** The environment of the next start, while a restart waits for the old command to stop. */
  private pendingEnv: NodeJS.ProcessEnv | undefined;
  private stopping = false;
  private killTimer: NodeJS.Timeout | undefined;
  private resolveDone!: (status: number) => void;
  /** The command's exit status, once it ended for good (not for a restart). */
  readonly done = new Promise<number>((resolve) => (this.resolveDone = resolve));
  /** The signal svc received before the command started, if any: it never starts then. */
  private early: NodeJS.Signals | undefined;
  private readonly forward = (signal: NodeJS.Signals) => {
    // A signal to svc is meant for the command; one that arrives mid-restart cancels the restart.
    this.stopping = true;
    this.pendingEnv = undefined;
    if (this.child === undefined) this.early ??= signal;
    else this.child.kill(signal);
  };

  /** Catches the forwarded signals from now on (so none kills svc before its cleanup). */
  constructor(private readonly options: SupervisorOptions) {
    for (const signal of FORWARDED) process.on(signal, this.forward);
  }

  /** Stops catching signals. */
  close(): void {
    for (const signal of FORWARDED) process.off(signal, this.forward);
  }

  /**
   * Starts the command with `env`; when a signal came first, it does not, and `done` is the
   * status that signal would have given.
   */
  start(env: NodeJS.ProcessEnv): void {
    if (this.early !== undefined) {
      this.resolveDone(exitStatus(null, this.early));
      return;
    }
    const { command, args, say } = this.options;
    const child = spawn(command, args, { env, stdio: 'inherit' });
    this.child = child;
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return say(`${command}: ${error.message}`);
      // It could not be started at all (no exit event follows): 127 or 126, as shells say.
      say(`cannot run ${command}: ${error.message}`);
      this.finish(child, error.code === 'ENOENT' ? 127 : 126);
    });
    child.once('exit', (code, signal) => this.finish(child, exitStatus(code, signal)));
  }

  /**
   * Stops the command (SIGTERM, then SIGKILL after the grace period) and starts it again with
   * `env`. Calls during a restart only replace the environment it will start with.
   */
  restart(env: NodeJS.ProcessEnv): void {
    if (this.stopping) return;
    const restarting = this.pendingEnv !== undefined;
    this.pendingEnv = env;
    if (restarting || this.child === undefined) return;
    const child = this.child;
    child.kill('SIGTERM');
    this.killTimer = setTimeout(() => {
      this.options.say(`the command did not stop within the grace period: SIGKILL`);
      child.kill('SIGKILL');
    }, this.options.gracePeriodMs);
  }

  private finish(child: ChildProcess, status: number): void {
    if (child !== this.child) return;
    clearTimeout(this.killTimer);
    this.child = undefined;
    const env = this.pendingEnv;
    this.pendingEnv = undefined;
    if (env !== undefined && !this.stopping) this.start(env);
    else this.resolveDone(status);
  }
}
