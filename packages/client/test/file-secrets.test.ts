/** File secrets on disk: private modes, atomic rewrite only on change, removal. */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '@svc/testkit';
import { ServiceClient, silentLogger } from '../src/index.ts';
import { BASE_URL, FakeService, SK } from './support/fake-service.ts';

const parent = tempDir('svc-client-files-');
const clients: ServiceClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(() => rmSync(parent, { recursive: true, force: true }));

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

async function start(service: FakeService) {
  const client = await ServiceClient.create({
    baseUrl: BASE_URL,
    apiKey: SK,
    stream: false,
    fetch: service.fetch,
    logger: silentLogger,
    secretFilesDir: parent,
  });
  clients.push(client);
  return client;
}

function service(): FakeService {
  const s = new FakeService();
  s.snapshot.secrets = {
    'tls.cert': { value: 'PEM-1', type: 'file', version: 1, file_name: 'tls.pem' },
    'ssh.key': { value: 'KEY', type: 'file', version: 1 },
    'odd.name': { value: 'X', type: 'file', version: 1, file_name: '../../escape' },
    'stripe.key': { value: 'sk', type: 'text', version: 1 },
  };
  return s;
}

describe('file secrets', () => {
  it('are files with mode 0600 in private folders (0700), named after file_name or the key', async () => {
    const client = await start(service());
    const tls = client.getSecretFilePath('tls.cert')!;
    expect(tls.endsWith('/tls.cert/tls.pem')).toBe(true);
    expect(readFileSync(tls, 'utf8')).toBe('PEM-1');
    expect(mode(tls)).toBe('600');
    expect(mode(dirname(tls))).toBe('700');
    expect(mode(dirname(dirname(tls)))).toBe('700');
    expect(dirname(dirname(tls)).startsWith(parent)).toBe(true);
    expect(client.getSecretFilePath('ssh.key')!.endsWith('/ssh.key/ssh.key')).toBe(true);
    // A file_name that is not a plain name cannot leave the folder.
    const odd = client.getSecretFilePath('odd.name')!;
    expect(dirname(odd)).toBe(join(dirname(dirname(tls)), 'odd.name'));
    expect(client.getSecretFilePath('stripe.key')).toBeUndefined();
    // No temporary files are left behind.
    expect(readdirSync(dirname(tls))).toEqual(['tls.pem']);
  });

  it('are rewritten only when the secret changed, atomically by rename', async () => {
    const s = service();
    const client = await start(s);
    const tls = client.getSecretFilePath('tls.cert')!;
    const inode = statSync(tls).ino;
    s.snapshot = { ...s.snapshot, revision: 2, flags: { unrelated: true } };
    await client.sync();
    expect(statSync(tls).ino).toBe(inode);
    s.snapshot = {
      ...s.snapshot,
      revision: 3,
      secrets: {
        ...s.snapshot.secrets,
        'tls.cert': { value: 'PEM-2', type: 'file', version: 2, file_name: 'tls.pem' },
      },
    };
    await client.sync();
    expect(client.getSecretFilePath('tls.cert')).toBe(tls);
    expect(statSync(tls).ino).not.toBe(inode); // a new file renamed over the old one
    expect(readFileSync(tls, 'utf8')).toBe('PEM-2');
    expect(mode(tls)).toBe('600');
  });

  it('follow a renamed file, and go when the secret goes or becomes text', async () => {
    const s = service();
    const client = await start(s);
    const tls = client.getSecretFilePath('tls.cert')!;
    const ssh = client.getSecretFilePath('ssh.key')!;
    s.snapshot = {
      ...s.snapshot,
      revision: 2,
      secrets: {
        'tls.cert': { value: 'PEM-1', type: 'file', version: 2, file_name: 'server.pem' },
        'ssh.key': { value: 'KEY', type: 'text', version: 2 },
      },
    };
    await client.sync();
    const renamed = client.getSecretFilePath('tls.cert')!;
    expect(renamed.endsWith('/tls.cert/server.pem')).toBe(true);
    expect(existsSync(tls)).toBe(false);
    expect(existsSync(ssh)).toBe(false);
    expect(client.getSecretFilePath('ssh.key')).toBeUndefined();
    expect(client.getSecretFilePath('odd.name')).toBeUndefined();
  });

  it('are removed with their folder on close()', async () => {
    const client = await start(service());
    const tls = client.getSecretFilePath('tls.cert')!;
    const root = dirname(dirname(tls));
    await client.close();
    expect(existsSync(root)).toBe(false);
    expect(client.getSecretFilePath('tls.cert')).toBeUndefined();
  });

  it('no secret file, no folder', async () => {
    const s = new FakeService();
    const before = readdirSync(parent).length;
    await start(s);
    expect(readdirSync(parent).length).toBe(before);
  });

  it.each([['the process ends'], ['process.exit()']])(
    'are removed when %s without close()',
    (how) => {
      const fixture = fileURLToPath(new URL('./fixtures/exit-without-close.ts', import.meta.url));
      const out = execFileSync(
        process.execPath,
        ['--import', 'tsx', fixture, parent, how === 'process.exit()' ? 'exit' : 'end'],
        { encoding: 'utf8' },
      );
      const path = out.trim();
      expect(path.endsWith('tls.pem')).toBe(true);
      expect(existsSync(path)).toBe(false);
      expect(existsSync(dirname(dirname(path)))).toBe(false);
    },
    20_000,
  );
});
