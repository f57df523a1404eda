/**
 * Unleash Edge (Rust), built from crates.io with `cargo install unleash-edge --locked` (without
 * `--locked` it does not compile) into a cache outside the repository, then run in offline mode
 * on the bench's 50 flags: `GET /api/client/features` with a client token.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { unleashFeatures } from './unleash-features.ts';

/** Where the peers are kept between runs, outside the repository (BENCH_CACHE overrides). */
export const BENCH_CACHE = process.env.BENCH_CACHE ?? join(homedir(), '.cache', 'svc-bench');
export const EDGE_TOKEN = '*:development.benchbenchbenchbenchbenchbenchbench';

/** The binary, built on first use (a long compile: several minutes). */
export function requireUnleashEdge(): string {
  const root = join(BENCH_CACHE, 'unleash-edge');
  const binary = join(root, 'bin', 'unleash-edge');
  if (!existsSync(binary)) {
    console.log(`building Unleash Edge into ${root} (cargo install --locked; once)…`);
    execFileSync('cargo', ['install', 'unleash-edge', '--locked', '--root', root], {
      stdio: 'inherit',
    });
  }
  return binary;
}

/** Edge in offline mode on `port` with one worker thread, serving the 50 flags to EDGE_TOKEN. */
export function startUnleashEdge(dir: string, port: number): ChildProcess {
  const features = join(dir, 'unleash-features.json');
  writeFileSync(features, JSON.stringify(unleashFeatures()));
  const args = ['-p', String(port), '-i', '127.0.0.1', '-w', '1'];
  args.push('offline', '-b', features, '-c', EDGE_TOKEN);
  return spawn(requireUnleashEdge(), args, {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, RUST_LOG: 'warn' },
  });
}
