/**
 * `svc run -- <command> [args…]`: one sync, then the command with every visible config and secret
 * in its environment; its exit status is svc's. `--watch` keeps the stream open and restarts the
 * command when a value it received changes.
 */
import { ServiceClient, ServiceInitError, type ServiceLogger } from '@svc/client';
import { CliError } from '../cli-error.ts';
import { changedNames, childEnvironment } from './child-environment.ts';
import { runCredentials } from './credentials.ts';
import { identityMessage, type SourceOf } from './identity-settings.ts';
import { Supervisor } from './supervisor.ts';

export interface RunOptions {
  baseUrl?: string;
  apiKey?: string;
  /** The workload identity's settings (`identityId`, `identityMethod`, …), instead of `apiKey`. */
  [identitySetting: `identity${string}`]: string | undefined;
  watch?: boolean;
  override?: boolean;
  /** Seconds a restarted command gets between SIGTERM and SIGKILL. */
  gracePeriod: number;
}

/** The longest timer Node keeps (about 24.8 days): without `--watch` the cache is never renewed. */
const NEVER_MS = 2 ** 31 - 1;

const say = (message: string) => process.stderr.write(`svc: ${message}\n`);

/** What the client has to say goes to stderr; its routine messages only with `SVC_DEBUG`. */
const logger: ServiceLogger = {
  debug: (message) => process.env.SVC_DEBUG && say(message),
  info: (message) => process.env.SVC_DEBUG && say(message),
  error: (message, cause) => say(cause instanceof Error ? `${message}: ${cause.message}` : message),
};

/**
 * Runs `argv` and resolves with its exit status. `source` says whether an option came from the
 * command line or the environment, for messages.
 */
export async function runCommand(
  argv: readonly string[],
  options: RunOptions,
  source: SourceOf = () => undefined,
): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined) throw new CliError('nothing to run: svc run -- <command> [args…]');
  const baseUrl = options.baseUrl ?? process.env.SERVICE_BASE_URL;
  if (!baseUrl) throw new CliError('no base URL: pass --base-url or set SERVICE_BASE_URL');
  const credentials = runCredentials(
    { apiKey: process.env.SERVICE_API_KEY, ...options } as Record<string, unknown>,
    source,
  );

  // Signals are caught from here on: one during the sync ends svc after its cleanup.
  const supervisor = new Supervisor({
    command,
    args,
    gracePeriodMs: options.gracePeriod * 1000,
    say,
  });
  let client: ServiceClient;
  try {
    client = await ServiceClient.create({
      baseUrl,
      // With an identity the client exchanges and refreshes keys; none reaches the command.
      ...credentials,
      stream: options.watch === true,
      cacheTtlMs: options.watch ? undefined : NEVER_MS,
      logger,
    });
  } catch (error) {
    supervisor.close();
    if (error instanceof TypeError) throw new CliError(identityMessage(error.message, source));
    const cause = error instanceof ServiceInitError ? error.cause : error;
    const reason = cause instanceof Error ? cause.message : String(cause);
    // A failed exchange says so itself ("identity exchange: HTTP 401 unauthorized: audience").
    const message = reason.startsWith('identity') ? reason : `the sync failed: ${reason}`;
    throw new CliError(message, 1, { cause });
  }
  try {
    const override = options.override === true;
    let current = childEnvironment(client, process.env, override);
    supervisor.start(current.env);
    if (options.watch) {
      client.onChange(() => {
        let next;
        try {
          next = childEnvironment(client, process.env, override);
        } catch (error) {
          // A collision introduced by the change: keep the command running on what it has.
          return say(`not restarting: ${(error as Error).message}`);
        }
        const changed = changedNames(current.received, next.received);
        current = next;
        if (changed.length === 0) return;
        say(`${changed.join(', ')} changed: restarting ${command}`);
        supervisor.restart(next.env);
      });
    }
    return await supervisor.done;
  } finally {
    supervisor.close();
    // Removes the file secrets' private folder.
    await client.close();
  }
}
