/** Test helpers shared by the apps' end-to-end tests. */
import { once } from 'node:events';
import { createServer, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh folder under the system temp dir. */
export function tempDir(prefix = 'svc-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Polls `condition` every few milliseconds until it holds or `timeoutMs` passes. */
export async function waitFor(
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 2000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body's bytes as they came (still encoded when the answer has a Content-Encoding). */
  bytes: Buffer;
  json: () => any;
}

export function httpCall(
  port: number,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; rawBody?: string | Buffer } = {},
): Promise<HttpResponse> {
  const payload =
    options.rawBody ??
    (options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body)));
  const headers: Record<string, string | number> = { ...options.headers };
  if (payload !== undefined) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = Buffer.byteLength(payload);
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text,
          bytes,
          json: () => JSON.parse(text),
        });
      });
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** A TCP port on 127.0.0.1 that was free a moment ago (for a process started next). */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/**
 * Management API calls (`path` below `/api`) with the admin token: `admin` throws unless the
 * answer is 2xx, `adminRaw` does not look.
 */
export function adminCalls(consolePort: () => number, token: string) {
  const adminRaw = (method: string, path: string, body?: unknown): Promise<HttpResponse> =>
    httpCall(consolePort(), method, `/api${path}`, {
      headers: { authorization: `Bearer ${token}` },
      body,
    });
  const admin = async (method: string, path: string, body?: unknown): Promise<HttpResponse> => {
    const res = await adminRaw(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res;
  };
  return { admin, adminRaw };
}

/**
 * Sends the head of a request announcing `length` body bytes and only the first few of them:
 * resolves with the status line when an answer comes without the rest, i.e. before the body was
 * read (an authentication that comes first).
 */
export function answerBeforeBody(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  length: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const head = [
      `${method} ${path} HTTP/1.1`,
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      `Content-Length: ${length}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ].join('\r\n');
    socket.write(`${head}\r\n\r\n{"value": "`);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
      if (received.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(received.split('\r\n', 1)[0]!);
      }
    });
    socket.on('error', reject);
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer before the body; got: ${received}`));
    }, 5000);
  });
}

export { startProcesses, type ProcessServer } from './live-processes.ts';
