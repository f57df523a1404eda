import { parseApiKey, type KeyKind } from '../api-key-format.ts';
import { NotFoundError } from '../errors.ts';
import type { ApiKeyRecord } from '../model.ts';
import { assertName } from '../names.ts';
import { requireProject, requireService } from './lookup.ts';
import type { ManagementPorts } from './ports.ts';

export interface NewApiKey {
  kind: KeyKind;
  /** Binds the key to one service of the project (it then sees that service's overrides). */
  service?: string;
  name?: string;
}

export interface CreatedApiKey {
  id: string;
  /** The plaintext key: shown this once, never stored. */
  key: string;
  kind: KeyKind;
  service: string | null;
}

export type ListedApiKey = ApiKeyRecord & { service: string | null };

/** Ids are opaque, but made of these: anything else names no key (and is never queried). */
const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** API keys of a project: minted here (the plaintext shown once), stored as hashes, revoked. */
export class ApiKeyManagement {
  constructor(
    private readonly deps: Pick<ManagementPorts, 'store' | 'hasher' | 'keys'>,
    private readonly actor: string,
  ) {}

  async create(workspace: string, project: string, input: NewApiKey): Promise<CreatedApiKey> {
    if (input.name !== undefined) assertName('name', input.name);
    return this.deps.store.transaction(async (tx) => {
      const { ws, project: p } = await requireProject(tx, workspace, project);
      const service =
        input.service === undefined ? undefined : await requireService(tx, p, input.service);
      const key = this.deps.keys.generate(input.kind);
      const parsed = parseApiKey(key);
      if (!parsed) throw new Error('key generator produced a malformed key');
      const record = await tx.insertApiKey({
        workspaceId: ws.id,
        projectId: p.id,
        serviceId: service?.id ?? null,
        kind: input.kind,
        name: input.name ?? `${input.kind} key`,
        prefix: parsed.prefix,
        hash: this.deps.hasher.hash(key),
      });
      await tx.appendAudit({
        workspaceId: ws.id,
        actor: this.actor,
        action: 'key.create',
        target: `${project} ${record.prefix}… (${input.kind})`,
      });
      return { id: record.id, key, kind: input.kind, service: service?.slug ?? null };
    });
  }

  async list(workspace: string, project: string): Promise<ListedApiKey[]> {
    const { store } = this.deps;
    const { project: p } = await requireProject(store, workspace, project);
    const services = new Map((await store.listServices(p.id)).map((s) => [s.id, s.slug]));
    // Keys minted by workload identities are counted with their identity, never listed one by one.
    const keys = (await store.listApiKeys(p.id)).filter((k) => k.identityId === null);
    return keys.map((k) => ({
      ...k,
      service: k.serviceId === null ? null : (services.get(k.serviceId) ?? null),
    }));
  }

  /** Revokes a key: api instances drop it and close its streams. */
  async revoke(workspace: string, project: string, id: string): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      const { ws, project: p } = await requireProject(tx, workspace, project);
      const key = KEY_ID_PATTERN.test(id) ? await tx.findApiKeyById(id) : undefined;
      if (!key || key.projectId !== p.id || !(await tx.revokeApiKey(p.id, id))) {
        throw new NotFoundError(`no active key '${id}'`);
      }
      await tx.appendAudit({
        workspaceId: ws.id,
        actor: this.actor,
        action: 'key.revoke',
        target: `${project} ${key.prefix}…`,
      });
    });
  }
}
