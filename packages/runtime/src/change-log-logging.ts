/**
 * What an api instance logs about following the change log: batches that fail (and are offered
 * again), secrets it cannot open (skipped), and writes answered before it applied them. Each
 * line says what happened and what to do.
 */
import type { Change, UnopenableSecret } from '@svc/domain';
import type { Logger } from './logger.ts';

/** After this many failures in a row a failing batch is an error, no longer a hiccup. */
const PERSISTENT_FAILURES = 10;

export interface ChangeLogLogging {
  /** For the change feed's `onError`. */
  onFeedError(error: Error, failures: number): void;
  /** For the read model's `onUnopenable`. */
  onUnopenable(secret: UnopenableSecret, error: Error): void;
  /** For the secret writes' `onApplyTimeout`. */
  onApplyTimeout(change: Change, timeoutMs: number): void;
}

export function changeLogLogging(logger: Logger): ChangeLogLogging {
  return {
    onFeedError(error, failures) {
      const level = failures >= PERSISTENT_FAILURES ? 'error' : 'warn';
      logger[level](
        { err: error, failures },
        'applying changes from the change log failed; the same changes are offered again ' +
          '(nothing is skipped, and nothing newer is applied until they are)',
      );
    },
    onUnopenable(secret, error) {
      logger.error(
        { err: error, ...secret },
        'a secret version cannot be opened with the root key of this instance: it was skipped ' +
          '(clients keep the version before it). Give every instance the same SERVICE_ROOT_KEY ' +
          '(and SERVICE_ROOT_KEY_PREVIOUS during a rotation), then restart this instance',
      );
    },
    onApplyTimeout(change, timeoutMs) {
      logger.warn(
        { seq: change.seq, revision: change.revision, timeoutMs },
        'a secret write was answered before this instance applied it (it is committed, and ' +
          'reaches the views once the change feed catches up)',
      );
    },
  };
}
