/**
 * The management API of the console (`{console}/api/…`, bearer admin token), as the workspace
 * commands use it: reads, and the writes `apply` makes, each answered or refused with the
 * server's problem detail.
 */
import { CliError } from '../cli-error.ts';

/** Each request's time limit. */
const TIMEOUT_MS = 30_000;
/** Requests in flight at once (reads of many services run side by side, up to this). */
const MAX_IN_FLIGHT = 8;

export interface ConsoleSettings {
  consoleUrl?: string;
  adminToken?: string;
}

/** A management request `apply` makes. The body may hold a secret value: never print it. */
export interface WriteRequest {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
}

/** A refused request: the server's problem+json, in words. */
export class ConsoleRequestError extends CliError {
  constructor(
    readonly request: string,
    readonly status: number,
    readonly problem: Problem | undefined,
  ) {
    const what = problem?.detail ?? problem?.code ?? 'no problem detail';
    const field = problem?.field === undefined ? '' : ` (field ${problem.field})`;
    super(`${request}: ${status}${problem?.code ? ` ${problem.code}` : ''}: ${what}${field}`);
  }
}

/** Path segments are slugs and item keys; encoded anyway. */
export const seg = encodeURIComponent;

export class ConsoleApi {
  private readonly base: string;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  private constructor(
    consoleUrl: string,
    private readonly token: string,
  ) {
    this.base = `${consoleUrl.replace(/\/+$/, '')}/api`;
  }

  /** From flags or `SVC_CONSOLE_URL` / `SVC_ADMIN_TOKEN`; a missing one is an error naming both. */
  static from(settings: ConsoleSettings): ConsoleApi {
    const url = settings.consoleUrl ?? process.env.SVC_CONSOLE_URL;
    const token = settings.adminToken ?? process.env.SVC_ADMIN_TOKEN;
    if (!url) throw new CliError('no console URL: pass --console-url or set SVC_CONSOLE_URL');
    if (!token) throw new CliError('no admin token: pass --admin-token or set SVC_ADMIN_TOKEN');
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      // reported below
    }
    if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:') {
      throw new CliError(`the console URL is not an http(s) URL: ${url}`);
    }
    return new ConsoleApi(url, token);
  }

  /** `GET /api{path}`; `undefined` for a 404. */
  find<T>(path: string): Promise<T | undefined> {
    return this.send('GET', path, undefined, true) as Promise<T | undefined>;
  }

  /** `GET /api{path}`. */
  get<T>(path: string): Promise<T> {
    return this.send('GET', path) as Promise<T>;
  }

  /** A write; resolves with the answer's JSON body (undefined for 204). */
  write(request: WriteRequest): Promise<unknown> {
    return this.send(request.method, request.path, request.body);
  }

  private async send(
    method: string,
    path: string,
    body?: unknown,
    notFoundIsEmpty = false,
  ): Promise<unknown> {
    // A finished request hands its slot straight to the next waiting one.
    if (this.inFlight < MAX_IN_FLIGHT) this.inFlight++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await this.request(method, path, body, notFoundIsEmpty);
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.inFlight--;
      else next();
    }
  }

  private async request(
    method: string,
    path: string,
    body: unknown,
    notFoundIsEmpty: boolean,
  ): Promise<unknown> {
    const label = `${method} ${path}`;
    let response: Response;
    try {
      response = await fetch(`${this.base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      const cause = (error as Error).cause ?? error;
      throw new CliError(`${label}: the console did not answer (${(cause as Error).message})`);
    }
    const text = await response.text();
    if (response.status === 404 && notFoundIsEmpty) return undefined;
    if (!response.ok) {
      throw new ConsoleRequestError(label, response.status, parse(text) as Problem | undefined);
    }
    return text === '' ? undefined : parse(text);
  }
}

interface Problem {
  code?: string;
  detail?: string;
  field?: string;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
