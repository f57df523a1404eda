/**
 * A pooled keep-alive connection that the server closed: the first sync after a long idle
 * period failed with "other side closed", because Node's fetch reused a connection the api
 * (Node's server: idle keep-alive connections close after 5 s) had just closed. Reproduced on a
 * real socket with Node's own fetch: this server closes a connection when a second request
 * arrives on it, as a server whose idle timeout fired just as the request was sent.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceClient, ServiceError, silentLogger } from '../src/index.ts';
import { SK, sleep } from './support/fake-service.ts';

interface Closing {
  server: Server;
  baseUrl: string;
  /** Requests by method, answered or not. */
  requests: string[];
  /** Connections closed on a request that reused them. */
  closed: number;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

/** A service that answers the first request of each connection and closes it on the next. */
async function closingServer(): Promise<Closing> {
  const served = new WeakSet<Socket>();
  const state = { requests: [] as string[], closed: 0 };
  const server = createServer((req: IncomingMessage, res) => {
    state.requests.push(req.method!);
    if (served.has(req.socket)) {
      state.closed++;
      req.socket.destroy();
      return;
    }
    served.add(req.socket);
    res.setHeader('content-type', 'application/json');
    if (req.method === 'PUT') res.end(JSON.stringify({ key: 'a', version: 1, type: 'text' }));
    else
      res.end(JSON.stringify({ revision: 1, key_type: 'sk', configs: {}, flags: {}, secrets: {} }));
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return Object.assign(state, { server, baseUrl: `http://127.0.0.1:${port}/acme` });
}

async function client(baseUrl: string): Promise<ServiceClient> {
  return ServiceClient.create({ baseUrl, apiKey: SK, stream: false, logger: silentLogger });
}

describe('a pooled connection the server closed', () => {
  it('a sync (GET) is sent again at once on a fresh connection, and succeeds', async () => {
    const service = await closingServer();
    const c = await client(service.baseUrl);
    try {
      for (let i = 0; i < 3; i++) {
        // Long enough for the answered connection to be back in fetch's pool.
        await sleep(100);
        await c.sync();
      }
      // Each sync tried the pooled connection first (closed), then a fresh one.
      expect(service.closed).toBeGreaterThanOrEqual(1);
      expect(service.requests.length).toBe(1 + 3 + service.closed);
      expect(c.getStatus().error).toBeNull();
    } finally {
      await c.close();
    }
  });

  it('a write (PUT) is not sent twice: it fails with a ServiceError', async () => {
    const service = await closingServer();
    const c = await client(service.baseUrl);
    try {
      await sleep(100);
      const error = await c.setSecret('a', 'v').catch((e: unknown) => e);
      expect(service.closed).toBe(1);
      expect(error).toBeInstanceOf(ServiceError);
      expect((error as Error).message).toMatch(/PUT .* failed/);
      expect(service.requests.filter((method) => method === 'PUT')).toHaveLength(1);
    } finally {
      await c.close();
    }
  });
});
