/**
 * The load generator of `bench/stream`, a process of its own (forked by bench.ts): opens N
 * streams on raw sockets, then for each round makes one console change and records, per stream,
 * the time from just before the change request until the change's bytes arrive.
 *
 * Messages: parent → `{ type: 'start', … }`, child → `{ type: 'connected' }`, parent → `{ type:
 * 'go' }`, child → `{ type: 'done', … }`.
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';

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
  connectConcurrency: number;
  roundTimeoutMs: number;
}

export interface RoundResult {
  /** Arrival times in ms after the change request started, one per stream that got it. */
  latenciesMs: number[];
  missing: number;
  /** The management API's own response time. */
  changeRequestMs: number;
}

export interface LoadDone {
  type: 'done';
  connectMs: number;
  rounds: RoundResult[];
  /** This process's CPU time (user + system), in ms. */
  cpuMs: { connect: number; rounds: number; total: number };
  closedEarly: number;
}

interface Client {
  socket: Socket;
  connected: boolean;
  /** The response head until the stream is open. */
  head: string;
  /** The tail of the previous chunk, so that a marker split across chunks is still found. */
  tail: Buffer | undefined;
  arrivedAt: number;
}

const send = (message: object) =>
  new Promise<void>((resolve, reject) =>
    process.send!(message, undefined, {}, (error) => (error ? reject(error) : resolve())),
  );

process.once('message', (message: LoadStart) => {
  run(message).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
});

async function run(options: LoadStart): Promise<void> {
  const cpuStart = process.cpuUsage();
  const connectStarted = performance.now();
  const clients: Client[] = [];
  const readBuffer = Buffer.alloc(64 * 1024);
  let marker = Buffer.from('\u0000never');
  let roundStart = 0;
  let waiting = 0;
  let wake: (() => void) | undefined;
  let closedEarly = 0;
  let done = false;

  const open = (index: number) =>
    new Promise<void>((resolve, reject) => {
      const key = options.keys[index % options.keys.length]!;
      const client: Client = {
        socket: undefined as unknown as Socket,
        connected: false,
        head: '',
        tail: undefined,
        arrivedAt: -1,
      };
      const onChunk = (chunk: Buffer) => {
        if (!client.connected) {
          const text = client.head + chunk.toString('latin1');
          if (!text.startsWith('HTTP/1.1 200')) {
            reject(new Error(`stream ${index}: ${text.split('\r\n', 1)[0]}`));
            return;
          }
          client.connected = text.includes('event: resync');
          client.head = client.connected ? '' : text;
          if (client.connected) resolve();
          return;
        }
        if (client.arrivedAt >= 0) return;
        // Kept lean (no strings, no stream machinery): this process reads every stream on one thread.
        let found = chunk.indexOf(marker) !== -1;
        if (!found && client.tail)
          found = Buffer.concat([client.tail, chunk]).indexOf(marker) !== -1;
        if (found) {
          client.arrivedAt = performance.now() - roundStart;
          client.tail = undefined;
          if (--waiting === 0) wake?.();
        } else {
          // An event split across reads: keep enough of this one to find the marker next time.
          client.tail = Buffer.from(chunk.subarray(Math.max(0, chunk.length - marker.length)));
        }
      };
      const socket = connect(
        {
          port: options.apiPort,
          host: '127.0.0.1',
          noDelay: true,
          // One read buffer for all sockets: `onChunk` is done with it before the next read.
          onread: {
            buffer: readBuffer,
            callback: (n: number, buffer: Uint8Array) => {
              onChunk(Buffer.from(buffer.buffer, buffer.byteOffset, n));
              return true;
            },
          },
        },
        () => {
          socket.write(
            `GET ${options.streamPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n` +
              `X-Service-API-Key: ${key}\r\n\r\n`,
          );
        },
      );
      client.socket = socket;
      socket.on('error', (error) => (client.connected ? undefined : reject(error)));
      socket.on('close', () => {
        if (!done && client.connected) closedEarly++;
      });
      clients.push(client);
    });

  // A bounded number of connects in flight: the api's accept backlog is finite.
  let next = 0;
  const worker = async () => {
    while (next < options.streams) await open(next++);
  };
  await Promise.all(
    Array.from({ length: Math.min(options.connectConcurrency, options.streams) }, worker),
  );
  const connectMs = performance.now() - connectStarted;
  const cpuConnected = process.cpuUsage(cpuStart);
  await send({ type: 'connected' });
  await new Promise<void>((resolve) => process.once('message', () => resolve()));

  const cpuRoundsStart = process.cpuUsage();
  const rounds: RoundResult[] = [];
  for (let r = 0; r < options.warmupRounds + options.rounds; r++) {
    for (const c of clients) c.arrivedAt = -1;
    const value = `bench-${process.pid}-${r}-${Math.random().toString(36).slice(2)}`;
    marker = Buffer.from(value);
    for (const c of clients) c.tail = undefined;
    waiting = clients.length;
    const allArrived = new Promise<void>((resolve) => {
      wake = resolve;
    });
    roundStart = performance.now();
    const changeRequestMs = await change(options, value).then(() => performance.now() - roundStart);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      allArrived,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, options.roundTimeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (process.env.BENCH_TRACE) {
      const arr = clients.map((c) => c.arrivedAt).sort((a, b) => a - b);
      const t0 = performance.timeOrigin + roundStart;
      process.stderr.write(
        `round start=${(t0 % 100000).toFixed(2)} first=${arr[0]!.toFixed(2)} p50=${arr[arr.length >> 1]!.toFixed(2)} last=${arr.at(-1)!.toFixed(2)} put=${changeRequestMs.toFixed(2)}\n`,
      );
    }
    const latenciesMs = clients.filter((c) => c.arrivedAt >= 0).map((c) => c.arrivedAt);
    if (r >= options.warmupRounds) {
      rounds.push({ latenciesMs, missing: clients.length - latenciesMs.length, changeRequestMs });
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const cpuRounds = process.cpuUsage(cpuRoundsStart);
  done = true;
  const ms = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
  for (const c of clients) c.socket.destroy();
  // Sent before disconnecting: a message still in flight would be lost.
  await send({
    type: 'done',
    connectMs,
    rounds,
    cpuMs: {
      connect: ms(cpuConnected),
      rounds: ms(cpuRounds),
      total: ms(process.cpuUsage(cpuStart)),
    },
    closedEarly,
  } satisfies LoadDone);
  process.disconnect();
}

/** `PUT {configPath}` on the console: the one change of a round. */
function change(options: LoadStart, value: string): Promise<void> {
  const body = JSON.stringify({ value, is_public: true });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: options.consolePort,
        method: 'PUT',
        path: options.configPath,
        headers: {
          authorization: `Bearer ${options.adminToken}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`change: ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
