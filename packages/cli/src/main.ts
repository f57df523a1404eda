/**
 * The `svc` command. Each subcommand's module is imported when it runs, so `svc run` does not
 * load the YAML and schema code of the workspace commands.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { CliError, EXIT } from './cli-error.ts';

const EXIT_CODES = `
Exit codes:
  0  success (plan: nothing would change)
  1  error (bad input, refused request, unreachable service)
  2  plan: something would change
  run: the command's own exit status (128 + the signal's number when a signal killed it;
       127 when it cannot be found, 126 when it cannot be started)`;

const program = new Command('svc')
  .description('Run any process with its configs and secrets, and keep a workspace as code.')
  .version(process.env.SVC_VERSION ?? '0.1.0')
  .enablePositionalOptions()
  .showHelpAfterError('(run with --help for usage)')
  .addHelpText('after', EXIT_CODES);

program
  .command('run')
  .summary('run a command with its configs and secrets in its environment')
  .description(
    'Sync once, then run <command> with every config and secret the key sees in its environment.',
  )
  .usage('[options] -- <command> [args...]')
  .argument('<command...>', 'the command and its arguments')
  .addOption(new Option('--base-url <url>', 'the workspace base URL').env('SERVICE_BASE_URL'))
  .addOption(new Option('--api-key <key>', 'a secret or public API key').env('SERVICE_API_KEY'))
  .option('--watch', 'keep the stream open and restart the command when a value it got changes')
  .option('--override', 'values from the service replace variables already set')
  .option('--grace-period <seconds>', 'after SIGTERM, before SIGKILL (--watch)', seconds, 10)
  .passThroughOptions()
  .addHelpText(
    'after',
    `
Variables: the key upper-cased, every character outside [A-Z0-9] as _ (db.pool -> DB_POOL).
  Strings as they are, other JSON as JSON text; a file secret is the path of a 0600 file in a
  private 0700 folder, removed when the command ends. Variables already set win unless
  --override. Two keys mapping to one name are an error.
Signals: SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 go to the command; svc exits
  with the command's status (128 + the signal's number when a signal killed it).
--watch: on a change of a value the command received, SIGTERM, --grace-period, SIGKILL, and
  the command starts again with the new values.`,
  )
  .action(async (argv: string[], options) => {
    const { runCommand } = await import('./run/run-command.ts');
    process.exitCode = await runCommand(argv, options);
  });

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('must be a number of seconds');
  return n;
}

try {
  await program.parseAsync();
} catch (error) {
  process.stderr.write(`svc: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = error instanceof CliError ? error.exitCode : EXIT.error;
}
