/**
 * The change stream: `GET /v1/stream` read with `fetch` and a small event parser, so the client
 * sets its own headers (`Last-Event-ID`) and notices silence itself. It reconnects with backoff
 * until stopped; a 401 or 404 stops it for good.
 */
import { Backoff } from './backoff.ts';
import type { ResolvedCommon } from './common-config.ts';
import { describe, ServiceNotFoundError, ServiceUnauthorizedError } from './errors.ts';
import { createEventParser, type StreamEvent } from './event-parser.ts';
import { unrefTimer, type Timer } from './timers.ts';
import { errorOf, type RequestPlatform, type Transport } from './transport.ts';

export interface StreamHandlers {
  /** The revision to resume after (sent as `Last-Event-ID`), or undefined. */
  resumeAfter(): number | undefined;
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

/** Why a connection was aborted. */
type Ending = 'silence' | 'stopped';

/** One start-to-stop run of the connect loop; a restart gets a fresh one. */
interface Run {
  active: boolean;
  controller?: AbortController;
  wake?: () => void;
  done?: Promise<void>;
}

export function streamConnection(
  transport: Transport,
  { logger, reconnect }: ResolvedCommon,
  platform: RequestPlatform,
  handlers: StreamHandlers,
): StreamConnection {
  const backoff = new Backoff(reconnect);
  let run: Run | undefined;

  /**
   * One connection, from request to its end. `ended-long`: the server closed a connection that
   * lasted long enough (its maximum age): reconnect at once.
   */
  async function connect(run: Run): Promise<'ended' | 'ended-long' | 'fatal'> {
    const controller = (run.controller = new AbortController());
    const { signal } = controller;
    const headers: Record<string, string> = {
      accept: 'text/event-stream',
      ...platform.streamHeaders,
    };
    const resumeAfter = handlers.resumeAfter();
    if (resumeAfter !== undefined) headers['last-event-id'] = String(resumeAfter);
    // The time limit covers the answer's head too: a server that never answers is silent.
    // Re-armed on every chunk (browsers' timers have no `refresh()`).
    let silence: Timer | undefined;
    const listen = () => {
      clearTimeout(silence);
      silence = unrefTimer(
        setTimeout(() => controller.abort('silence' satisfies Ending), reconnect.silenceTimeoutMs),
      );
    };
    listen();
    let connectedAt: number | undefined;
    try {
      const response = await transport.send('/v1/stream', { headers, signal });
      if (!response.ok) {
        const error = await errorOf(response, 'stream');
        if (!(error instanceof ServiceUnauthorizedError || error instanceof ServiceNotFoundError)) {
          throw error;
        }
        logger.error(`stream refused, not reconnecting: ${error.message}`, error);
        handlers.onError(error);
        return 'fatal';
      }
      const contentType = response.headers.get('content-type') ?? '';
      if (!contentType.startsWith('text/event-stream') || !response.body) {
        await response.body?.cancel();
        throw new Error(`stream: unexpected content type "${contentType}"`);
      }
      connectedAt = Date.now();
      handlers.onState(true);
      logger.info('stream connected');

      const batch: StreamEvent[] = [];
      const feed = createEventParser((event) => batch.push(event));
      const decoder = new TextDecoder();
      const reader = response.body.getReader();
      // Cancel the body ourselves on abort: fetch may no longer link the signal to a body whose
      // Response object was garbage-collected, and a pending read would then wait for the server.
      signal.addEventListener('abort', () => void reader.cancel(signal.reason).catch(() => {}));
      for (;;) {
        const { done, value } = await reader.read();
        if (signal.aborted) throw signal.reason;
        if (done) break;
        listen();
        feed(decoder.decode(value, { stream: true }));
        if (batch.length > 0) handlers.onEvents(batch.splice(0));
      }
      const lasted = Date.now() - connectedAt;
      backoff.connectionEnded(lasted);
      return lasted >= reconnect.resetAfterMs ? 'ended-long' : 'ended';
    } catch (error) {
      if (connectedAt !== undefined) backoff.connectionEnded(Date.now() - connectedAt);
      if (signal.reason === 'silence') {
        throw new Error(`no data for ${reconnect.silenceTimeoutMs} ms`, { cause: error });
      }
      throw error;
    } finally {
      clearTimeout(silence);
      controller.abort('stopped' satisfies Ending);
      run.controller = undefined;
      if (connectedAt !== undefined) handlers.onState(false);
    }
  }

  async function loop(run: Run): Promise<void> {
    while (run.active) {
      let delay: number;
      try {
        const outcome = await connect(run);
        if (outcome === 'fatal') {
          run.active = false;
          break;
        }
        delay = outcome === 'ended-long' ? 0 : backoff.next();
        if (run.active) logger.info(`stream ended; reconnecting in ${delay} ms`);
      } catch (error) {
        if (!run.active) break;
        delay = backoff.next();
        logger.error(`stream failed, reconnecting in ${delay} ms: ${describe(error)}`, error);
        handlers.onError(error);
      }
      if (run.active && delay > 0) {
        await new Promise<void>((resolve) => {
          const timer = unrefTimer(setTimeout(resolve, delay));
          run.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        run.wake = undefined;
      }
    }
  }

  return {
    start() {
      if (run?.active) return;
      backoff.reset();
      run = { active: true };
      run.done = loop(run);
    },
    retryNow() {
      if (!run?.active) return;
      backoff.reset();
      run.wake?.();
    },
    stop() {
      if (run === undefined) return Promise.resolve();
      run.active = false;
      run.controller?.abort('stopped' satisfies Ending);
      run.wake?.();
      return run.done!;
    },
  };
}
