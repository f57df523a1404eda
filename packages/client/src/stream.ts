/**
 * The change stream: `GET /v1/stream` read with `fetch` and eventsource-parser, so the client
 * sets its own headers (`Last-Event-ID`) and notices silence itself. It reconnects with backoff
 * until stopped; a 401 or 404 stops it for good.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { Backoff } from './backoff.ts';
import type { ResolvedConfig } from './config.ts';
import { ServiceNotFoundError, ServiceUnauthorizedError } from './errors.ts';
import { describe, errorOf, type Transport } from './transport.ts';

export interface StreamHandlers {
  /** The revision to resume after (sent as `Last-Event-ID`), or undefined. */
  resumeAfter(): number | undefined;
  /** The events of one received chunk, in order. */
  onEvents(events: readonly EventSourceMessage[]): void;
  /** The stream became connected (true) or stopped being connected (false). */
  onState(connected: boolean): void;
}

type Ending = 'silence' | 'stopped';

/** One start-to-stop run of the connect loop; a restart gets a fresh one. */
interface Run {
  active: boolean;
  controller: AbortController | undefined;
  wake: (() => void) | undefined;
  done: Promise<void>;
}

export class StreamConnection {
  private run: Run | undefined;
  private readonly backoff: Backoff;

  constructor(
    private readonly transport: Transport,
    private readonly config: ResolvedConfig,
    private readonly handlers: StreamHandlers,
  ) {
    this.backoff = new Backoff(config.reconnect);
  }

  /** True from `start()` until `stop()`, or until a 401 or 404 ended the loop. */
  get isRunning(): boolean {
    return this.run?.active === true;
  }

  /** Starts the connect loop; does nothing when it runs already. */
  start(): void {
    if (this.run?.active) return;
    this.backoff.reset();
    const run: Run = {
      active: true,
      controller: undefined,
      wake: undefined,
      done: Promise.resolve(),
    };
    this.run = run;
    run.done = this.loop(run);
  }

  /** Ends the connection and the loop; resolves once the loop has finished. */
  stop(): Promise<void> {
    const run = this.run;
    if (run === undefined) return Promise.resolve();
    run.active = false;
    run.controller?.abort('stopped' satisfies Ending);
    run.wake?.();
    return run.done;
  }

  private async loop(run: Run): Promise<void> {
    const { logger } = this.config;
    while (run.active) {
      let delay: number;
      try {
        const outcome = await this.connectOnce(run);
        if (outcome === 'fatal') {
          run.active = false;
          break;
        }
        delay = outcome === 'ended-long' ? 0 : this.backoff.next();
        if (run.active) logger.info(`stream ended by the server; reconnecting in ${delay} ms`);
      } catch (error) {
        if (!run.active) break;
        delay = this.backoff.next();
        logger.error(`stream failed, reconnecting in ${delay} ms: ${describe(error)}`, error);
      }
      if (run.active && delay > 0) await this.sleep(run, delay);
    }
  }

  /**
   * One connection, from request to its end. `ended-long`: the server closed a connection that
   * lasted long enough (its maximum age): reconnect at once.
   */
  private async connectOnce(run: Run): Promise<'ended' | 'ended-long' | 'fatal'> {
    const { logger, reconnect } = this.config;
    const controller = new AbortController();
    run.controller = controller;
    const headers: Record<string, string> = {
      accept: 'text/event-stream',
      'cache-control': 'no-cache',
    };
    const resumeAfter = this.handlers.resumeAfter();
    if (resumeAfter !== undefined) headers['last-event-id'] = String(resumeAfter);

    // The time limit covers the answer's head too: a server that never answers is silent.
    const silence = setTimeout(
      () => controller.abort('silence' satisfies Ending),
      reconnect.silenceTimeoutMs,
    );
    silence.unref();
    let connectedAt: number | undefined;
    try {
      const response = await this.transport.send('/v1/stream', {
        headers,
        signal: controller.signal,
      });
      if (!response.ok) {
        const error = await errorOf(response, 'stream');
        if (error instanceof ServiceUnauthorizedError || error instanceof ServiceNotFoundError) {
          logger.error(`stream refused, not reconnecting: ${error.message}`, error);
          return 'fatal';
        }
        throw error;
      }
      const contentType = response.headers.get('content-type') ?? '';
      if (!contentType.startsWith('text/event-stream') || response.body === null) {
        await response.body?.cancel();
        throw new Error(`stream: unexpected content type "${contentType}"`);
      }
      connectedAt = Date.now();
      this.handlers.onState(true);
      logger.info('stream connected');

      let batch: EventSourceMessage[] = [];
      const parser = createParser({ onEvent: (event) => batch.push(event) });
      const decoder = new TextDecoder();
      const reader = response.body.getReader();
      // Cancel the body ourselves on abort: fetch may no longer link the signal to a body whose
      // Response object was garbage-collected, and a pending read would then wait for the server.
      const cancel = () => void reader.cancel(controller.signal.reason).catch(() => undefined);
      controller.signal.addEventListener('abort', cancel, { once: true });
      for (;;) {
        const { done, value } = await reader.read();
        if (controller.signal.aborted) throw controller.signal.reason;
        if (done) break;
        silence.refresh();
        parser.feed(decoder.decode(value, { stream: true }));
        if (batch.length > 0) {
          const events = batch;
          batch = [];
          this.handlers.onEvents(events);
        }
      }
      const lasted = Date.now() - connectedAt;
      this.backoff.connectionEnded(lasted);
      return lasted >= reconnect.resetAfterMs ? 'ended-long' : 'ended';
    } catch (error) {
      if (connectedAt !== undefined) this.backoff.connectionEnded(Date.now() - connectedAt);
      if (controller.signal.reason === 'silence') {
        throw new Error(`no data for ${reconnect.silenceTimeoutMs} ms`, { cause: error });
      }
      throw error;
    } finally {
      clearTimeout(silence);
      controller.abort('stopped' satisfies Ending);
      run.controller = undefined;
      if (connectedAt !== undefined) this.handlers.onState(false);
    }
  }

  private sleep(run: Run, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        run.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      run.wake = done;
    });
  }
}
