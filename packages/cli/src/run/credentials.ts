/**
 * What `svc run` proves itself with: a static API key or a workload identity, exactly one. Both,
 * neither, or an identity missing its id or method is a usage error before any request.
 */
import type { WorkloadIdentity } from '@svc/client';
import { CliError } from '../cli-error.ts';
import {
  bothNames,
  givenIdentitySettings,
  settingName,
  workloadIdentity,
  type Setting,
  type SourceOf,
} from './identity-settings.ts';

export type RunCredentials = { apiKey: string } | { identity: WorkloadIdentity };

export const API_KEY: Setting = {
  attribute: 'apiKey',
  flags: '--api-key <key>',
  env: 'SERVICE_API_KEY',
};

/**
 * The key or identity the options give (commander fills them from the environment too; an
 * empty value counts as not given).
 *
 * @throws {@link CliError} naming the settings when both or neither are given, or the identity
 *   is incomplete.
 */
export function runCredentials(options: Record<string, unknown>, source: SourceOf): RunCredentials {
  const apiKey = typeof options.apiKey === 'string' ? options.apiKey : '';
  const identity = givenIdentitySettings(options);
  if (apiKey !== '' && identity.size > 0) {
    const names = [...identity.keys()].map((s) => settingName(s, source));
    throw new CliError(
      `an API key (${settingName(API_KEY, source)}) and a workload identity ` +
        `(${names.join(', ')}) exclude each other: give one`,
    );
  }
  if (apiKey !== '') return { apiKey };
  if (identity.size > 0) return { identity: workloadIdentity(identity, source) };
  throw new CliError(
    `no API key or workload identity: pass ${bothNames(API_KEY)}, ` +
      'or --identity-id and --identity-method (see svc run --help)',
  );
}
