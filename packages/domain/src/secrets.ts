/**
 * Secret versioning: every set creates version max+1 (numbers are never reused, also after
 * deletions); the current value is the highest remaining version; deleting the last remaining
 * version deletes the secret.
 */
import {
  PayloadTooLargeError,
  SecretNotFoundError,
  ValidationError,
  VersionConflictError,
  VersionNotFoundError,
} from './errors.ts';
import type { Change, Scope, SealedValue, SecretType } from './model.ts';
import { assertItemKey } from './names.ts';
import type { SecretSealer, Store, StoreWriter } from './ports.ts';

export const SECRET_TEXT_MAX_BYTES = 64 * 1024;
/** Version numbers are stored as 32-bit integers: a larger one names no version. */
export const SECRET_VERSION_MAX = 2_147_483_647;
export const SECRET_FILE_MAX_BYTES = 1024 * 1024;
const FILE_NAME_PATTERN = /^[A-Za-z0-9._-]{1,255}$/;

/** What a sealed value is bound to besides where it lives. */
export interface SealedSecret {
  key: string;
  version: number;
  type: SecretType;
  fileName: string | null;
}

/**
 * Binds a sealed value to where it lives and what it is: a sealed row can be neither moved to
 * another secret or version nor turned from text into a file (or renamed) in the database.
 */
export function secretContext(scope: Scope, secret: SealedSecret): string {
  const { key, version, type, fileName } = secret;
  return `v2/${scope.projectId}/${scope.serviceId ?? ''}/${key}/${version}/${type}/${fileName ?? ''}`;
}

/** The context of values sealed before type and file name were bound (still opened). */
function legacySecretContext(scope: Scope, secret: SealedSecret): string {
  return `${scope.projectId}/${scope.serviceId ?? ''}/${secret.key}/${secret.version}`;
}

/**
 * Runs `use` with the secret's context, and again with the legacy one when that fails: values
 * sealed by earlier versions keep opening (a new version of the secret is sealed the new way).
 */
export function withSecretContext<T>(
  scope: Scope,
  secret: SealedSecret,
  use: (context: string) => T,
): T {
  try {
    return use(secretContext(scope, secret));
  } catch (error) {
    try {
      return use(legacySecretContext(scope, secret));
    } catch {
      throw error;
    }
  }
}

/** A secret version's plaintext. */
export function openSecret(
  sealer: Pick<SecretSealer, 'open'>,
  scope: Scope,
  secret: SealedSecret & { sealed: SealedValue },
): string {
  return withSecretContext(scope, secret, (context) => sealer.open(secret.sealed, context));
}

export interface SetSecretInput {
  key: string;
  value: string;
  type: SecretType;
  fileName?: string | null;
  /** Optimistic concurrency: the current version the caller expects (0 = must not exist). */
  expectedVersion?: number;
}

export interface SetSecretResult {
  key: string;
  version: number;
  type: SecretType;
  /** True when the secret had no remaining version before. */
  created: boolean;
  change: Change;
}

export function validateSecretInput(input: SetSecretInput): void {
  assertItemKey('key', input.key);
  const limit = input.type === 'file' ? SECRET_FILE_MAX_BYTES : SECRET_TEXT_MAX_BYTES;
  if (new TextEncoder().encode(input.value).length > limit) {
    throw new PayloadTooLargeError(`value: more than ${limit} bytes`);
  }
  if (input.type === 'file') {
    if (input.fileName != null && !FILE_NAME_PATTERN.test(input.fileName)) {
      throw new ValidationError('file_name', 'must be 1..255 characters of [A-Za-z0-9._-]');
    }
  } else if (input.fileName != null) {
    throw new ValidationError('file_name', 'only file secrets have a file name');
  }
  if (
    input.expectedVersion !== undefined &&
    (!Number.isSafeInteger(input.expectedVersion) || input.expectedVersion < 0)
  ) {
    throw new ValidationError('expected_version', 'must be a non-negative integer');
  }
}

/** Writes a new version of a secret; call inside a transaction. */
export async function setSecret(
  tx: StoreWriter,
  sealer: SecretSealer,
  scope: Scope,
  input: SetSecretInput,
): Promise<SetSecretResult> {
  validateSecretInput(input);
  // The current version only: a secret may have thousands of versions.
  const current = (await tx.findSecret(scope, input.key))?.version ?? 0;
  if (input.expectedVersion !== undefined && input.expectedVersion !== current) {
    throw new VersionConflictError(input.expectedVersion, current);
  }
  const version = (await tx.maxSecretVersion(scope, input.key)) + 1;
  const fileName = input.type === 'file' ? (input.fileName ?? input.key) : null;
  const change = await tx.insertSecretVersion(scope, input.key, {
    version,
    type: input.type,
    fileName,
    sealed: sealer.seal(
      input.value,
      secretContext(scope, { key: input.key, version, type: input.type, fileName }),
    ),
  });
  return { key: input.key, version, type: input.type, created: current === 0, change };
}

export async function deleteSecret(tx: StoreWriter, scope: Scope, key: string): Promise<Change> {
  assertItemKey('key', key);
  const change = await tx.deleteSecret(scope, key);
  if (!change) throw new SecretNotFoundError(`no secret '${key}'`);
  return change;
}

export async function deleteSecretVersion(
  tx: StoreWriter,
  scope: Scope,
  key: string,
  version: number,
): Promise<Change> {
  assertItemKey('key', key);
  if (!Number.isSafeInteger(version) || version < 1) {
    throw new ValidationError('version', 'must be a positive integer');
  }
  const change =
    version <= SECRET_VERSION_MAX ? await tx.deleteSecretVersion(scope, key, version) : undefined;
  if (!change) throw new VersionNotFoundError(`secret '${key}' has no version ${version}`);
  return change;
}

/** Re-wraps a sealed value's data key under the current root key (root-key rotation). */
export type Rewrap = (sealed: string, context: string) => string;

/**
 * Root-key rotation: re-wraps every remaining secret version under the current root key, in small
 * transactions so that writers are never held up for long. Values are not re-encrypted and
 * nothing changes for readers. Returns how many sealed values were rewritten.
 */
export async function rewrapAllSecrets(
  store: Store,
  rewrap: Rewrap,
  batchSize = 200,
): Promise<number> {
  const all = await store.listSealedVersions();
  let rewritten = 0;
  for (let i = 0; i < all.length; i += batchSize) {
    const batch = all.slice(i, i + batchSize);
    rewritten += await store.transaction(async (tx) => {
      let n = 0;
      for (const ref of batch) {
        const sealed = withSecretContext(ref.scope, ref, (context) => rewrap(ref.sealed, context));
        if (sealed !== ref.sealed && (await tx.replaceSealed({ ...ref, sealed }))) n += 1;
      }
      return n;
    });
  }
  return rewritten;
}
