/**
 * A signal that reaches `svc run` while its sync is still on the way: the command never starts,
 * svc exits as the signal would have made it, and the file secrets the sync wrote are removed.
 * The api is a stand-in on a real socket that answers the sync after a delay.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { waitFor } from '@svc/testkit';
import { liveService } from './support/live.ts';

const KEY = 'svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN';
const live = liveService();
const tmp = mkdtempSync(join(tmpdir(), 'svc-cli-early-'));
let syncAsked = false;
const api = createServer((req, res) => {
  syncAsked = true;
  setTimeout(() => {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        revision: 1,
        key_type: 'sk',
        configs: {},
        flags: {},
        secrets: { 'tls.cert': { value: 'PEM', type: 'file', version: 1, file_name: 'tls.pem' } },
      }),
    );
  }, 800);
}).listen(0, '127.0.0.1');

afterAll(() => {
  api.close();
  rmSync(tmp, { recursive: true, force: true });
});

it('SIGTERM during the sync: the command never runs, exit 143, no secret file left', async () => {
  if (!api.listening) await once(api, 'listening');
  const port = (api.address() as { port: number }).port;
  const svc = live.start(['run', '--', 'sh', '-c', 'echo ran'], {
    env: { SERVICE_BASE_URL: `http://127.0.0.1:${port}/acme`, SERVICE_API_KEY: KEY, TMPDIR: tmp },
  });
  await waitFor(() => syncAsked, 10_000);
  svc.child.kill('SIGTERM');
  const result = await svc.exited;
  expect(result).toMatchObject({ code: 143, stdout: '' });
  expect(readdirSync(tmp)).toEqual([]);
});
