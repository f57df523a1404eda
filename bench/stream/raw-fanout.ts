/**
 * The baseline of `bench/stream`: a raw `node:http` server in one process that holds the same
 * streams and, when a `PUT` arrives, writes one change event to every stream at once, then
 * answers. No database, no second process, no change feed: what is left is the load
 * generator, the sockets and the kernel, measured by the same load generator in the same run.
 * Run as its own process: `tsx raw-fanout.ts PORT`; it sends `ready` over IPC.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

const port = Number(process.argv[2]);
const streams = new Set<Socket>();
let id = 0;

/** One HTTP chunk, built once per change and written to every socket (as the api's hub does). */
function chunk(text: string): Buffer {
  const bytes = Buffer.from(text);
  return Buffer.concat([
    Buffer.from(`${bytes.length.toString(16)}\r\n`),
    bytes,
    Buffer.from('\r\n'),
  ]);
}

function openStream(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  res.write(`retry: 1000\n\nid: ${id}\nevent: resync\ndata: {"revision":${id}}\n\n`);
  const socket = res.socket!;
  streams.add(socket);
  socket.on('close', () => streams.delete(socket));
}

createServer((req, res) => {
  if (req.method === 'GET') return openStream(res);
  const body: Buffer[] = [];
  req.on('data', (c: Buffer) => body.push(c));
  req.on('end', () => {
    const { value } = JSON.parse(Buffer.concat(body).toString()) as { value: string };
    id += 1;
    // The api's event, byte for byte in shape.
    const data = `{"revision":${id},"kind":"config","key":"bench.value","op":"upsert","value":${JSON.stringify(value)}}`;
    const frame = chunk(`event: change\nid: ${id}\ndata: ${data}\n\n`);
    for (const socket of streams) socket.write(frame);
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
  });
}).listen(port, '127.0.0.1', () => process.send?.('ready'));
