/**
 * The load generator (`loadgen/main.go`, Go, standard library only): built once per run, then
 * one or more processes that open the streams, make the changes and time their arrival. They
 * speak JSON lines: `start` in, `connected` out, `go` in, `done` out.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { rssMb } from '../lib/proc-stats.ts';
import type { Supervisor } from './supervisor.ts';

/** What a load generator is told to do. */
export interface LoadStart {
  type: 'start';
  apiPort: number;
  consolePort: number;
  adminToken: string;
  /** Path of the stream below the api, e.g. `/bench/v1/stream`. */
  streamPath: string;
  /** Keys used in turn by the streams (one view per key kind). */
  keys: string[];
  /** The management path of the config each round changes. */
  configPath: string;
  streams: number;
  rounds: number;
  warmupRounds: number;
  /** Warm-up lasts at least this long after `go`. */
  warmupMs: number;
  connectConcurrency: number;
  roundTimeoutMs: number;
  /** The loopback address its streams connect from (each generator its own ephemeral ports). */
  sourceAddress?: string;
}

export interface RoundResult {
  /** Per stream that got the change: ms from the change request's start to the kernel's receive timestamp. */
  latenciesMs: number[];
  /** The same arrivals as the load generator's reads returned them. */
  readLatenciesMs: number[];
  missing: number;
  /** The management API's own response time. */
  changeRequestMs: number;
}

export interface LoadDone {
  type: 'done';
  connectMs: number;
  rounds: RoundResult[];
  /** The warm-up rounds: the server's first seconds. */
  warmup: RoundResult[];
  /** The load generator's CPU time (user + system), in ms. */
  cpuMs: { connect: number; rounds: number; total: number };
  closedEarly: number;
}

/** A run's result, with the server's memory once the streams were open and after the rounds. */
export type LoadResult = Awaited<ReturnType<LoadGenerators['run']>>;

export class LoadGenerators {
  private constructor(
    private readonly binary: string,
    private readonly supervisor: Supervisor,
    /** Runs the generators on CPU 1. */
    private readonly pin: boolean,
  ) {}

  /** Builds the generator once per run (`go build`). */
  static build(root: string, supervisor: Supervisor, pin: boolean): LoadGenerators {
    // Not in the data folder: the apps make its files 0600 (not executable) at start.
    const folder = mkdtempSync(join(tmpdir(), 'svc-bench-loadgen-'));
    supervisor.removeLater(folder);
    const binary = join(folder, 'loadgen');
    const built = spawnSync('go', ['build', '-o', binary, '.'], {
      cwd: join(root, 'bench/stream/loadgen'),
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (built.status !== 0) {
      throw new Error('go build of bench/stream/loadgen failed (is Go installed?)');
    }
    return new LoadGenerators(binary, supervisor, pin);
  }

  /** Runs the generators together (each with its streams and its config) and merges their rounds. */
  async run(options: LoadStart[], serverPid: number) {
    const gens = options.map((o) => this.start(o));
    await Promise.all(gens.map((g) => g.nextMessage('connected')));
    // Flush what the run wrote so far (the generator's build, tsx's cache, the new database):
    // on ext4 a commit's fsync also waits for other files' dirty data, which stalled single
    // commits by 28 to 124 ms (strace) and so whole rounds, none of it the service's own doing.
    spawnSync('sync');
    await new Promise((r) => setTimeout(r, 500));
    const connected = rssMb(serverPid);
    for (const g of gens) g.child.stdin!.write('{"type":"go"}\n');
    const all = (await Promise.all(gens.map((g) => g.nextMessage('done')))) as LoadDone[];
    for (const g of gens) {
      g.child.stdin!.end();
      await g.exited;
      this.supervisor.release(g.child);
    }
    const done: LoadDone = {
      type: 'done',
      connectMs: Math.max(...all.map((d) => d.connectMs)),
      rounds: all.flatMap((d) => d.rounds),
      warmup: all.flatMap((d) => d.warmup),
      cpuMs: {
        connect: all.reduce((t, d) => t + d.cpuMs.connect, 0),
        rounds: all.reduce((t, d) => t + d.cpuMs.rounds, 0) / all.length,
        total: all.reduce((t, d) => t + d.cpuMs.total, 0),
      },
      closedEarly: all.reduce((t, d) => t + d.closedEarly, 0),
    };
    return { done, connected, after: rssMb(serverPid) };
  }

  /** One load-generator process: started, told what to do, read line by line. */
  private start(options: LoadStart) {
    const [command, lead] = this.pin ? ['taskset', ['-c', '1', this.binary]] : [this.binary, []];
    const child = spawn(command, lead, { stdio: ['pipe', 'pipe', 'inherit'] });
    this.supervisor.adopt(child);
    const exited = once(child, 'close');
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const nextMessage = async (type: string) => {
      const { value, done } = await lines.next();
      if (done)
        throw new Error(`the load generator exited (${child.exitCode ?? child.signalCode})`);
      const message = JSON.parse(value as string) as { type: string };
      if (message.type !== type) {
        throw new Error(`load generator: ${type} expected, got ${message.type}`);
      }
      return message;
    };
    child.stdin!.write(`${JSON.stringify(options)}\n`);
    return { child, exited, nextMessage };
  }
}
