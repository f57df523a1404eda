/**
 * The baseline: a raw node:http server sending the same bytes and headers as the api's sync,
 * with the same one-string-compare 304. A POST is answered the same once its body is read (the
 * floor under OFREP's bulk evaluation, a POST). Run as its own process:
 * `tsx raw-server.ts PORT FILE ETAG`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';

const [port, file, etag] = process.argv.slice(2) as [string, string, string];
const body = readFileSync(file);
createServer((req, res) => {
  if (req.method !== 'POST') return answer(req, res);
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    Buffer.concat(chunks).toString();
    answer(req, res);
  });
}).listen(Number(port), '127.0.0.1', () => process.send?.('ready'));

function answer(req: IncomingMessage, res: ServerResponse): void {
  const headers = {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Expose-Headers': 'ETag, Retry-After',
    ETag: etag,
    'Cache-Control': 'private, no-cache',
  };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': body.length,
  });
  res.end(body);
}
