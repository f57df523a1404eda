import type { SecretType } from '../model.ts';
import { assertItemKey } from '../names.ts';
import {
  deleteSecret,
  deleteSecretVersion,
  openSecret,
  setSecret,
  type SetSecretResult,
} from '../secrets.ts';
import { requireWorkspace, resolveScope, scopeLabel, type ScopeRef } from './lookup.ts';
import { revisionOf, type ManagementPorts, type Revisioned } from './ports.ts';
import { writeInScope } from './scoped-write.ts';

export interface SecretInput {
  value: string;
  /** `text` by default. */
  type?: SecretType;
  /** File secrets only; the key by default. */
  fileName?: string | null;
  /** Optimistic concurrency: the current version the caller expects (0 = must not exist). */
  expectedVersion?: number;
}

export interface SecretListing {
  key: string;
  version: number;
  type: SecretType;
  fileName: string | null;
  versions: number[];
  value?: string;
}

/** Secrets of a scope: sealed at rest, versioned, shown only when revealed (and audited). */
export class SecretManagement {
  constructor(
    private readonly deps: Pick<ManagementPorts, 'store' | 'sealer'>,
    private readonly actor: string,
  ) {}

  /** Writes a new version. */
  async put(ref: ScopeRef, key: string, input: SecretInput): Promise<SetSecretResult & Revisioned> {
    assertItemKey('key', key);
    const write = { actor: this.actor, ref, action: 'secret.put', target: key };
    return writeInScope(this.deps.store, write, async (tx, scope) => {
      const type = input.type ?? 'text';
      const result = await setSecret(tx, this.deps.sealer, scope, { ...input, key, type });
      return { ...result, revision: revisionOf(result.change) };
    });
  }

  /** Deletes the secret and every version. */
  async delete(ref: ScopeRef, key: string): Promise<Revisioned> {
    assertItemKey('key', key);
    const write = { actor: this.actor, ref, action: 'secret.delete', target: key };
    return writeInScope(this.deps.store, write, async (tx, scope) => ({
      revision: revisionOf(await deleteSecret(tx, scope, key)),
    }));
  }

  /** Deletes one version; deleting the last remaining one deletes the secret. */
  async deleteVersion(ref: ScopeRef, key: string, version: number): Promise<Revisioned> {
    const target = `${key}@${version}`;
    const write = { actor: this.actor, ref, action: 'secret.delete_version', target };
    return writeInScope(this.deps.store, write, async (tx, scope) => ({
      revision: revisionOf(await deleteSecretVersion(tx, scope, key, version)),
    }));
  }

  /** Secrets with their remaining versions; values only when `reveal` (and then audited). */
  async list(ref: ScopeRef, reveal: boolean): Promise<SecretListing[]> {
    const { store, sealer } = this.deps;
    const { scope } = await resolveScope(store, ref);
    const listings: SecretListing[] = [];
    for (const secret of await store.listSecrets(scope)) {
      const versions = await store.listSecretVersions(scope, secret.key);
      const listing: SecretListing = {
        key: secret.key,
        version: secret.version,
        type: secret.type,
        fileName: secret.fileName,
        versions: versions.map((v) => v.version),
      };
      if (reveal) {
        listing.value = openSecret(sealer, scope, secret);
      }
      listings.push(listing);
    }
    if (reveal && listings.length > 0) {
      await store.transaction(async (tx) => {
        const ws = await requireWorkspace(tx, ref.workspace);
        await tx.appendAudit({
          workspaceId: ws.id,
          actor: this.actor,
          action: 'secret.reveal',
          target: scopeLabel(ref),
        });
      });
    }
    return listings;
  }
}
