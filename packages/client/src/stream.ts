/**
 * The change stream: `GET /v1/stream` read with `fetch` and a small event parser, so the client
 * sets its own headers (`Last-Event-ID`) and notices silence itself. It reconnects with backoff
 * until stopped; a 401 or 404 stops it until the next start.
 */
import { Backoff } from './backoff.ts';
import type { ResolvedCommon } from './common-config.ts';
import { describe, offContract, ServiceNotFoundError, ServiceUnauthorizedError } from './errors.ts';
import { createEventParser, type StreamEvent } from './event-parser.ts';
import { unrefTimer, type Timer } from './timers.ts';
import type { Transport } from './transport.ts';

export interface StreamHandlers {
  /** The cache's revision: the stream resumes after it (`Last-Event-ID`) unless it is -1. */
  revision(): number;
  /** The events of one received chunk, in order. */
  onEvents(events: readonly StreamEvent[]): void;
  /** The stream became connected (true) or stopped being connected (false). */
  onState(connected: boolean): void;
  /** A connection failed or was refused (a 401 or 404 ends the loop after this). */
  onError(error: unknown): void;
}

/** The connect loop's controls. */
export interface StreamConnection {
  /** Starts the connect loop; does nothing when it runs already. */
  start(): void;
  /** Ends a wait between attempts at once, with the delays started over (the network is back). */
  retryNow(): void;
  /** Ends the connection and the loop; resolves once the loop has finished. */
  stop(): Promise<void>;
}

export function streamConnection(
  transport: Transport,
  { logger, reconnect }: ResolvedCommon,
  handlers: StreamHandlers,
): StreamConnection {
  const backoff = new Backoff(reconnect);
  /** The current start-to-stop run of the loop: `stop()` (or a 401 or 404) aborts it. */
  let run: AbortController | undefined;
  let done = Promise.resolve();
  /** Ends the wait between two attempts. */
  let wake: (() => void) | undefined;

  /** One connection, from request to its end; resolves with how long it was connected. */
  async function connect(running: AbortSignal): Promise<number> {
    const silence = new AbortController();
    const signal = AbortSignal.any([running, silence.signal]);
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    const revision = handlers.revision();
    if (revision >= 0) headers['last-event-id'] = String(revision);
    // The time limit covers the answer's head too: a server that never answers is silent.
    // Re-armed on every chunk (browsers' timers have no `refresh()`).
    let timer: Timer | undefined;
    const listen = () => {
      clearTimeout(timer);
      timer = unrefTimer(setTimeout(() => silence.abort(), reconnect.silenceTimeoutMs));
    };
    listen();
    let connectedAt: number | undefined;
    try {
      const response = await transport.send('/v1/stream', 'stream', { headers, signal });
      const contentType = response.headers.get('content-type') ?? '';
      // (A 2xx answer of this type has a body.)
      if (!contentType.startsWith('text/event-stream')) {
        throw offContract(`stream: content-type ${contentType}`);
      }
      connectedAt = Date.now();
      handlers.onState(true);
      logger.info('stream connected');

      const parse = createEventParser();
      const decoder = new TextDecoder();
      const reader = response.body!.getReader();
      // Cancel the body ourselves on abort: fetch may no longer link the signal to a body whose
      // Response object was garbage-collected, and a pending read would then wait for the server.
      signal.addEventListener('abort', () => void reader.cancel(signal.reason).catch(() => {}));
      for (;;) {
        const { done, value } = await reader.read();
        if (signal.aborted) throw signal.reason;
        if (done) return Date.now() - connectedAt;
        listen();
        const events = parse(decoder.decode(value, { stream: true }));
        if (events.length > 0) handlers.onEvents(events);
      }
    } catch (error) {
      throw silence.signal.aborted
        ? new Error(`no data for ${reconnect.silenceTimeoutMs} ms`, { cause: error })
        : error;
    } finally {
      clearTimeout(timer);
      // Ends what is still open (an answer of the wrong type, a handler that threw).
      silence.abort();
      if (connectedAt !== undefined) {
        backoff.connectionEnded(Date.now() - connectedAt);
        handlers.onState(false);
      }
    }
  }

  async function loop(run: AbortController): Promise<void> {
    const running = run.signal;
    while (!running.aborted) {
      let delay: number;
      try {
        // The server closed a connection that lasted long enough (its maximum age): at once.
        delay = (await connect(running)) >= reconnect.resetAfterMs ? 0 : backoff.next();
        if (!running.aborted) logger.info(`stream ended; reconnecting in ${delay} ms`);
      } catch (error) {
        if (running.aborted) break;
        handlers.onError(error);
        if (error instanceof ServiceUnauthorizedError || error instanceof ServiceNotFoundError) {
          logger.error(`stream refused, not reconnecting: ${error.message}`, error);
          run.abort();
          break;
        }
        delay = backoff.next();
        logger.error(`stream failed, reconnecting in ${delay} ms: ${describe(error)}`, error);
      }
      if (delay > 0 && !running.aborted) {
        await new Promise<void>((resolve) => {
          const timer = unrefTimer(setTimeout(resolve, delay));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    }
  }

  return {
    start() {
      if (run && !run.signal.aborted) return;
      backoff.reset();
      run = new AbortController();
      done = loop(run);
    },
    retryNow() {
      if (!run || run.signal.aborted) return;
      backoff.reset();
      wake?.();
    },
    stop() {
      run?.abort();
      wake?.();
      return done;
    },
  };
}
