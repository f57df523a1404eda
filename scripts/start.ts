/**
 * `pnpm start`: the embedded default. Runs the console and the api as two processes over the
 * SQLite file in DATA_DIR (the console seeds the demo workspace on first start: SEED_DEMO=true
 * unless set otherwise), waits until both are ready, and prints where everything is. `pnpm start` first builds the apps
 * (`dist/main.mjs` in each) and this launcher (`dist/start.mjs`), which all run on plain node.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { resolveAdminToken, readDemoSeed } from '@svc/console';
import { loadSettings, SettingsError, type Settings } from '@svc/runtime';

const root = fileURLToPath(new URL('..', import.meta.url));
const children: ChildProcess[] = [];

function run(name: string, entry: string, env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, [entry], {
    cwd: root,
    env,
    stdio: 'inherit',
  });
  child.on('exit', (code, signal) => {
    if (shuttingDown) return;
    console.error(`${name} exited (${signal ?? code}); stopping`);
    stop(typeof code === 'number' && code !== 0 ? code : 1);
  });
  children.push(child);
  return child;
}

async function waitReady(port: number, name: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${name} did not become ready on port ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let shuttingDown = false;
function stop(code: number): void {
  shuttingDown = true;
  for (const child of children) child.kill('SIGTERM');
  Promise.all(
    children.map((c) => (c.exitCode === null ? new Promise((r) => c.on('exit', r)) : null)),
  ).then(() => process.exit(code));
}

function banner(settings: Settings): string {
  const api = `http://localhost:${settings.PORT}`;
  const consoleUrl = `http://localhost:${settings.CONSOLE_PORT}`;
  const { token, generated } = resolveAdminToken(settings.CONSOLE_ADMIN_TOKEN, settings.dataDir);
  const demo = readDemoSeed(settings.dataDir);
  const lines = [
    '',
    `  svc is running (${settings.DATABASE_URL?.startsWith('postgres') ? 'PostgreSQL from DATABASE_URL' : `embedded SQLite in ${settings.dataDir}`})`,
    '',
    `  api        ${api}/{workspace}/v1/…   or   http://{workspace}.localhost:${settings.PORT}/v1/…`,
    `  console    ${consoleUrl}   (management API under ${consoleUrl}/api)`,
    `  admin token  ${generated ? token + '   (generated, kept in DATA_DIR/admin.token)' : '(from CONSOLE_ADMIN_TOKEN)'}`,
  ];
  if (demo) {
    lines.push(
      '',
      `  demo workspace '${demo.workspace}', project '${demo.project}', service '${demo.service}'`,
      `  secret key          ${demo.secretKey}`,
      `  public key          ${demo.publicKey}`,
      `  service secret key  ${demo.serviceSecretKey}   (bound to '${demo.service}')`,
      '',
      '  try:',
      `  curl -s -H 'X-Service-API-Key: ${demo.secretKey}' ${api}/${demo.workspace}/v1/sync`,
      `  curl -s -H 'Authorization: Bearer ${token}' ${consoleUrl}/api/workspaces`,
    );
  }
  return lines.join('\n') + '\n';
}

try {
  // The local launcher is for trying things out: the demo workspace unless SEED_DEMO says no.
  const settings = loadSettings({ ...process.env, SEED_DEMO: process.env.SEED_DEMO || 'true' });
  const env = { ...process.env, DATA_DIR: settings.dataDir, SEED_DEMO: settings.SEED_DEMO };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stop(0));
  // The console first: it migrates the database and seeds the demo before the api loads it.
  run('console', 'apps/console/dist/main.mjs', env);
  await waitReady(settings.CONSOLE_PORT, 'console');
  run('api', 'apps/api/dist/main.mjs', env);
  await waitReady(settings.PORT, 'api');
  console.log(banner(settings));
} catch (error) {
  if (error instanceof SettingsError) console.error(error.message);
  else console.error(error);
  stop(1);
}
