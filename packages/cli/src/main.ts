/**
 * The `svc` command. Each subcommand's module is imported when it runs, so `svc run` does not
 * load the YAML and schema code of the workspace commands.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { CliError, EXIT } from './cli-error.ts';
import { API_KEY } from './run/credentials.ts';
import { IDENTITY_METHODS, IDENTITY_SETTINGS } from './run/identity-settings.ts';

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

const run = program
  .command('run')
  .summary('run a command with its configs and secrets in its environment')
  .description(
    'Sync once, then run <command> with every config and secret the key sees in its environment.',
  )
  .usage('[options] -- <command> [args...]')
  .argument('<command...>', 'the command and its arguments')
  .addOption(new Option('--base-url <url>', 'the workspace base URL').env('SERVICE_BASE_URL'))
  .addOption(new Option(API_KEY.flags, 'a secret or public API key').env(API_KEY.env))
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
  the command starts again with the new values.
Workload identity: instead of a key, svc exchanges the platform's token (POST /v1/auth/token)
  for short-lived keys and exchanges again before each expires; --watch's stream carries on
  under each new key. The command never gets a key. Kubernetes, for example:
  svc run --identity-method kubernetes --identity-id <id> \\
    --identity-token-file /var/run/secrets/svc/token -- node server.js`,
  )
  .action(async (argv: string[], options, command: Command) => {
    const { runCommand } = await import('./run/run-command.ts');
    const source = (name: string) => {
      const from = command.getOptionValueSource(name);
      return from === 'cli' || from === 'env' ? (from as 'cli' | 'env') : undefined;
    };
    process.exitCode = await runCommand(argv, options, source);
  });
for (const setting of IDENTITY_SETTINGS) {
  const option = new Option(setting.flags, setting.description)
    .env(setting.env)
    .helpGroup('Workload identity (instead of --api-key):');
  run.addOption(setting.field === 'method' ? option.choices(IDENTITY_METHODS) : option);
}

const consoleOptions = (command: Command) =>
  command
    .addOption(
      new Option('--console-url <url>', 'the console (management API under /api)').env(
        'SVC_CONSOLE_URL',
      ),
    )
    .addOption(new Option('--admin-token <token>', 'the admin token').env('SVC_ADMIN_TOKEN'));

consoleOptions(
  program
    .command('export')
    .summary('write a workspace as a YAML file')
    .description(
      'Write a workspace as one YAML document: projects (with the AB add-on), services, configs, ' +
        'flags, and secrets by name and type only, never a value. Its first line points editors at ' +
        'the JSON Schema that ships with svc.',
    )
    .requiredOption('--workspace <slug>', 'the workspace')
    .option('--project <slug>', 'only this project')
    .option('-o, --output <file>', 'write to this file instead of standard output')
    .option('--schema <ref>', 'the $schema reference (default: the shipped schema, relative)'),
).action(async (options) => {
  const { exportCommand } = await import('./workspace/workspace-commands.ts');
  process.exitCode = await exportCommand(options);
});

const fileOptions = (command: Command) =>
  consoleOptions(
    command
      .requiredOption('-f, --file <file>', 'the workspace file (- for standard input)')
      .option('--workspace <slug>', "apply the file to this workspace instead of the file's")
      .option('--prune', 'delete configs, flags and secrets the file does not name'),
  );

fileOptions(
  program
    .command('plan')
    .summary('show what apply would change')
    .description(
      'Show what `svc apply` would change: create, update (old -> new) and delete, secrets by ' +
        'name only. Exit 0 when nothing would change, 2 when something would, 1 on error.',
    ),
).action(async (options) => {
  const { planCommand } = await import('./workspace/workspace-commands.ts');
  process.exitCode = await planCommand(options);
});

fileOptions(
  program
    .command('apply')
    .summary('make a workspace match a file')
    .description(
      'Make the workspace match the file through the management API (audited and streamed like ' +
        'a console change). Deletes only with --prune. Secret values come only from ' +
        '`value_from_env: NAME` entries; a new version is written only when the value differs. ' +
        'Stops at the first refused request, saying what was already applied.',
    )
    .option('-y, --yes', 'apply without asking (needed when standard input is not a terminal)'),
).action(async (options) => {
  const { applyCommand } = await import('./workspace/workspace-commands.ts');
  process.exitCode = await applyCommand(options);
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
