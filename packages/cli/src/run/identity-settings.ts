/**
 * The workload identity `svc run` can present instead of an API key: one option and one
 * environment variable per setting of the client's `identity` (`--identity-token-file` /
 * `SERVICE_IDENTITY_TOKEN_FILE` is `tokenFile`, as Spring Boot's `service.identity.token-file`).
 * The client checks the identity; its messages are put back in the words of these options.
 * No import of the client here: `main.ts` builds its help from this table.
 */
import type { IdentityMethod, WorkloadIdentity } from '@svc/client';
import { CliError } from '../cli-error.ts';

export const IDENTITY_METHODS: readonly IdentityMethod[] = [
  'kubernetes',
  'aws',
  'gcp',
  'azure',
  'oidc',
];

/** A setting of `svc run`: its commander attribute, option and environment variable. */
export interface Setting {
  attribute: string;
  flags: string;
  env: string;
}

/** One identity setting: also the client field it gives and its help. */
export interface IdentitySetting extends Setting {
  field: keyof WorkloadIdentity;
  description: string;
}

const setting = (
  name: string,
  value: string,
  field: keyof WorkloadIdentity,
  description: string,
): IdentitySetting => ({
  attribute: `identity${name.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase())}`,
  flags: `--identity-${name} <${value}>`,
  env: `SERVICE_IDENTITY_${name.toUpperCase().replace(/-/g, '_')}`,
  field,
  description,
});

export const IDENTITY_SETTINGS: readonly IdentitySetting[] = [
  setting('id', 'id', 'identityId', "the workload identity's id (instead of an API key)"),
  setting('method', 'method', 'method', "the identity's method"),
  setting(
    'token-file',
    'path',
    'tokenFile',
    'kubernetes, oidc: the token file, read at each exchange; kubernetes defaults to the ' +
      'service-account token',
  ),
  setting('token-env', 'name', 'token', 'oidc: the variable holding the token (instead of a file)'),
  setting('audience', 'audience', 'audience', 'gcp, azure: the audience the token is asked for'),
  setting('metadata-url', 'url', 'metadataUrl', 'gcp, azure: the metadata server'),
  setting('client-id', 'id', 'clientId', 'azure: a user-assigned managed identity'),
  setting('sts-endpoint', 'url', 'stsEndpoint', 'aws: the STS endpoint the request is signed for'),
  setting('region', 'region', 'region', "aws: the signing region, if not the endpoint's"),
  setting('server-id', 'id', 'serverId', "aws: the identity's server_id (X-Svc-Server-Id)"),
  setting('refresh-at', 'share', 'refreshAt', "exchange again at this share of a key's life: 2/3"),
];

/** How a setting was given, as the user would recognise it: `--identity-id` or its variable. */
export type SourceOf = (attribute: string) => 'cli' | 'env' | undefined;

/** Both names of a setting: `--identity-id (SERVICE_IDENTITY_ID)`. */
export const bothNames = (setting: Setting) => `${setting.flags.split(' ')[0]} (${setting.env})`;

/** A setting's name for messages: the option or the variable it came from, else both. */
export function settingName(setting: Setting, source: SourceOf): string {
  const from = source(setting.attribute);
  if (from === 'env') return setting.env;
  return from === 'cli' ? setting.flags.split(' ')[0]! : bothNames(setting);
}

/** The identity settings given (an empty string counts as not given), by attribute. */
export function givenIdentitySettings(
  options: Record<string, unknown>,
): Map<IdentitySetting, string> {
  const given = new Map<IdentitySetting, string>();
  for (const s of IDENTITY_SETTINGS) {
    const value = options[s.attribute];
    if (typeof value === 'string' && value !== '') given.set(s, value);
  }
  return given;
}

/**
 * The client's identity from the given settings; the client checks the rest.
 *
 * @throws {@link CliError} when the id or method is missing, or oidc has not one token source.
 */
export function workloadIdentity(
  given: Map<IdentitySetting, string>,
  source: SourceOf,
): WorkloadIdentity {
  const identity: Record<string, unknown> = {};
  for (const [s, value] of given) identity[s.field] = value;
  const missing = [byField('identityId'), byField('method')].filter((s) => !given.has(s));
  if (missing.length > 0) {
    throw new CliError(
      `incomplete workload identity: ${missing.map(bothNames).join(' and ')} missing`,
    );
  }
  if (identity.method === 'oidc' && (identity.tokenFile === undefined) === !identity.token) {
    const [file, env] = [byField('tokenFile'), byField('token')];
    throw new CliError(
      `the oidc method takes one token source: ${bothNames(file)} or ${bothNames(env)}`,
    );
  }
  if (typeof identity.token === 'string') identity.token = tokenFromEnv(identity.token, source);
  if (identity.refreshAt !== undefined) identity.refreshAt = Number(identity.refreshAt);
  return identity as unknown as WorkloadIdentity;
}

/** A client's message about `identity.<field>` in the words of the setting that gave it. */
export function identityMessage(message: string, source: SourceOf): string {
  return message.replace(/\bidentity\.(\w+)/g, (text, field: string) => {
    const s = IDENTITY_SETTINGS.find((candidate) => candidate.field === field);
    return s ? settingName(s, source) : text;
  });
}

function byField(field: keyof WorkloadIdentity): IdentitySetting {
  return IDENTITY_SETTINGS.find((s) => s.field === field)!;
}

/**
 * oidc's token callback: the variable's value (a CI job's ID token). svc's environment does not
 * change while it runs, so this is the one token of the job.
 */
function tokenFromEnv(variable: string, source: SourceOf): () => string {
  const token = process.env[variable];
  if (token === undefined || token === '') {
    throw new CliError(`${settingName(byField('token'), source)}: ${variable} is not set`);
  }
  return () => token;
}
