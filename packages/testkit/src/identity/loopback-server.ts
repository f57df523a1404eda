/**
 * A real HTTP or HTTPS server on 127.0.0.1 and a free port: what every identity stand-in runs
 * on. With `tls`, it serves a fresh self-signed certificate for 127.0.0.1 and localhost, whose
 * PEM the caller gives to the client under test as its CA (as a Kubernetes `ca_cert` is).
 */
import { once } from 'node:events';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

export type Handler = (
  req: IncomingMessage,
  body: string,
  res: ServerResponse,
) => void | Promise<void>;

export interface LoopbackServer {
  /** `http://127.0.0.1:PORT` or `https://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** `127.0.0.1:PORT`. */
  host: string;
  /** PEM of the server's self-signed certificate (with `tls`). */
  caCert: string | undefined;
  close(): Promise<void>;
}

/** Bodies above this are refused (the stand-ins take small JSON or form bodies). */
const MAX_BODY = 256 * 1024;

export async function startLoopbackServer(
  handler: Handler,
  options: { tls?: boolean } = {},
): Promise<LoopbackServer> {
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY) return sendJson(res, 413, { message: 'body too large' });
      Promise.resolve(handler(req, Buffer.concat(chunks).toString('utf8'), res)).catch(
        (error: unknown) => {
          if (!res.headersSent) sendJson(res, 500, { message: String(error) });
          else res.destroy();
        },
      );
    });
  };
  let caCert: string | undefined;
  let server: Server;
  if (options.tls) {
    const pems = await selfSignedCertificate();
    caCert = pems.cert;
    server = createHttpsServer({ key: pems.private, cert: pems.cert }, listener);
  } else {
    server = createHttpServer(listener);
  }
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const host = `127.0.0.1:${port}`;
  return {
    url: `${options.tls ? 'https' : 'http'}://${host}`,
    host,
    caCert,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A certificate for 127.0.0.1 and localhost, valid for a day, that is its own CA. */
async function selfSignedCertificate() {
  return generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate: new Date(Date.now() + 24 * 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  });
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  contentType: string,
): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
