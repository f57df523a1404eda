/**
 * The exit codes of `svc` and the error that carries one. Every command fails by throwing a
 * {@link CliError} (or anything else, which counts as 1); `main.ts` prints it and exits.
 */

/** Exit codes: 0 success, 1 error, 2 `plan` found changes (terraform's `-detailed-exitcode`). */
export const EXIT = { ok: 0, error: 1, changes: 2 } as const;

/** A failure to report as `svc: <message>`, with the exit code it ends the process with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.error,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}
