import type { IdentityPolicy } from '../identities/validate-identity.ts';
import type { Change } from '../model.ts';
import type { Clock, KeyGenerator, KeyHasher, SecretSealer, Store } from '../ports.ts';

/** Every port a management slice may use; each slice takes `Pick<>` of the ones it does. */
export interface ManagementPorts {
  store: Store;
  hasher: KeyHasher;
  keys: KeyGenerator;
  sealer: SecretSealer;
  clock: Clock;
  /** Rules for the upstream URLs of workload identities (`IDENTITY_ALLOW_HTTP`). */
  identityPolicy: IdentityPolicy;
}

/** The project revision a value write produced: what a client's sync shows once it has it. */
export interface Revisioned {
  revision: number;
}

export function revisionOf(change: Change): number {
  if (change.revision === null) throw new Error(`a ${change.kind} change carries no revision`);
  return change.revision;
}
