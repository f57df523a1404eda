/**
 * The management of identities (console API): create, list, patch, delete. Each write runs in
 * one transaction with its audit entry; the Kubernetes reviewer token is sealed at rest and
 * never given back. Deleting an identity revokes every key minted from it.
 */
import type { KeyKind } from '../api-key-format.ts';
import { NotFoundError } from '../errors.ts';
import { completeBinding, type BindingInput } from '../identities/binding-input.ts';
import type { NewIdentity } from '../identities/identity-ports.ts';
import {
  IDENTITY_TTL_DEFAULT_S,
  identitySecretContext,
  type IdentityRecord,
} from '../identities/identity.ts';
import { validateIdentity } from '../identities/validate-identity.ts';
import type { Project, Workspace } from '../model.ts';
import type { StoreReader, StoreWriter } from '../ports.ts';
import { requireProject, requireService } from './lookup.ts';
import type { ManagementPorts } from './ports.ts';

export interface CreateIdentityInput {
  name: string;
  kind: KeyKind;
  /** Service slug; absent for project level. */
  service?: string;
  ttlSeconds?: number;
  binding: BindingInput;
  reviewerToken?: string;
}

/** Fields to change; `service: null` moves to project level, `reviewerToken: null` removes it. */
export interface IdentityPatch {
  name?: string;
  kind?: KeyKind;
  service?: string | null;
  ttlSeconds?: number;
  binding?: BindingInput;
  reviewerToken?: string | null;
}

/** An identity as the console lists it (never the reviewer token itself). */
export interface IdentityListing extends IdentityRecord {
  service: string | null;
  /** Minted keys that still work. */
  liveKeys: number;
}

export class IdentityManagement {
  constructor(
    private readonly deps: Pick<ManagementPorts, 'store' | 'sealer' | 'clock' | 'identityPolicy'>,
    private readonly actor: string,
  ) {}

  async create(
    workspace: string,
    project: string,
    input: CreateIdentityInput,
  ): Promise<IdentityListing> {
    return this.deps.store.transaction(async (tx) => {
      const { ws, project: p } = await requireProject(tx, workspace, project);
      const serviceId = await serviceIdOf(tx, p, input.service ?? null);
      const binding = completeBinding(input.binding);
      const reviewerToken = binding.method === 'kubernetes' ? (input.reviewerToken ?? null) : null;
      const definition = {
        name: input.name,
        kind: input.kind,
        service: input.service ?? null,
        ttlSeconds: input.ttlSeconds ?? IDENTITY_TTL_DEFAULT_S,
        binding,
        reviewerToken: input.reviewerToken ?? null,
      };
      validateIdentity(definition, this.deps.identityPolicy);
      // The id is the store's; the secret is sealed to it, so it is sealed once the row exists.
      const created = await tx.insertIdentity({
        ...toNew(p, ws, serviceId, definition),
        sealedSecret: null,
      });
      const identity =
        reviewerToken === null
          ? created
          : await tx.updateIdentity(created.id, {
              ...toNew(p, ws, serviceId, definition),
              sealedSecret: this.seal(created.id, reviewerToken),
            });
      await this.audit(
        tx,
        ws,
        'identity.create',
        `${project} ${identity.name} (${binding.method})`,
      );
      return { ...identity, service: definition.service, liveKeys: 0 };
    });
  }

  async list(workspace: string, project: string): Promise<IdentityListing[]> {
    const { store, clock } = this.deps;
    const { project: p } = await requireProject(store, workspace, project);
    const services = new Map((await store.listServices(p.id)).map((s) => [s.id, s.slug]));
    const live = await store.countLiveIdentityKeys(p.id, clock.now());
    return (await store.listIdentities(p.id)).map((identity) => ({
      ...identity,
      service: identity.serviceId === null ? null : (services.get(identity.serviceId) ?? null),
      liveKeys: live.get(identity.id) ?? 0,
    }));
  }

  /**
   * Changes fields. Keys minted before keep working until they expire, unless the kind or the
   * service changed: those saw another view, so they are revoked.
   */
  async patch(
    workspace: string,
    project: string,
    id: string,
    patch: IdentityPatch,
  ): Promise<IdentityListing> {
    return this.deps.store.transaction(async (tx) => {
      const { ws, project: p } = await requireProject(tx, workspace, project);
      const current = await requireIdentity(tx, p, id);
      const services = new Map((await tx.listServices(p.id)).map((s) => [s.id, s.slug]));
      const service =
        patch.service !== undefined
          ? patch.service
          : current.serviceId === null
            ? null
            : (services.get(current.serviceId) ?? null);
      const serviceId = await serviceIdOf(tx, p, service);
      const binding = patch.binding
        ? completeBinding(patch.binding, current.binding)
        : current.binding;
      const keptSecret = binding.method === 'kubernetes' && patch.reviewerToken === undefined;
      const definition = {
        name: patch.name ?? current.name,
        kind: patch.kind ?? current.kind,
        service,
        ttlSeconds: patch.ttlSeconds ?? current.ttlSeconds,
        binding,
        reviewerToken: keptSecret ? null : (patch.reviewerToken ?? null),
      };
      validateIdentity(definition, this.deps.identityPolicy);
      const sealedSecret = keptSecret
        ? current.sealedSecret
        : definition.reviewerToken === null
          ? null
          : this.seal(id, definition.reviewerToken);
      const updated = await tx.updateIdentity(id, {
        ...toNew(p, ws, serviceId, definition),
        sealedSecret,
      });
      const revoked =
        updated.kind !== current.kind || updated.serviceId !== current.serviceId
          ? await tx.revokeIdentityKeys(id, this.deps.clock.now())
          : 0;
      await this.audit(
        tx,
        ws,
        'identity.update',
        `${project} ${updated.name}${revoked ? ` (${revoked} minted keys revoked)` : ''}`,
      );
      const live = await tx.countLiveIdentityKeys(p.id, this.deps.clock.now());
      return { ...updated, service, liveKeys: live.get(id) ?? 0 };
    });
  }

  /** Removes the binding and revokes every key minted from it (their streams close). */
  async delete(workspace: string, project: string, id: string): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      const { ws, project: p } = await requireProject(tx, workspace, project);
      const identity = await requireIdentity(tx, p, id);
      // The row first: its lock makes a concurrent exchange wait, then find it gone.
      await tx.deleteIdentity(id);
      const revoked = await tx.revokeIdentityKeys(id, this.deps.clock.now());
      await this.audit(
        tx,
        ws,
        'identity.delete',
        `${project} ${identity.name} (${revoked} minted keys revoked)`,
      );
    });
  }

  private seal(identityId: string, reviewerToken: string): string {
    return this.deps.sealer.seal(reviewerToken, identitySecretContext(identityId));
  }

  private async audit(
    tx: StoreWriter,
    ws: Workspace,
    action: string,
    target: string,
  ): Promise<void> {
    await tx.appendAudit({ workspaceId: ws.id, actor: this.actor, action, target });
  }
}

function toNew(
  project: Project,
  ws: Workspace,
  serviceId: string | null,
  definition: {
    name: string;
    kind: KeyKind;
    ttlSeconds: number;
    binding: IdentityRecord['binding'];
  },
): Omit<NewIdentity, 'sealedSecret'> {
  return {
    workspaceId: ws.id,
    projectId: project.id,
    serviceId,
    name: definition.name,
    kind: definition.kind,
    ttlSeconds: definition.ttlSeconds,
    binding: definition.binding,
  };
}

async function serviceIdOf(
  reader: StoreReader,
  project: Project,
  slug: string | null,
): Promise<string | null> {
  return slug === null ? null : (await requireService(reader, project, slug)).id;
}

async function requireIdentity(
  reader: StoreReader,
  project: Project,
  id: string,
): Promise<IdentityRecord> {
  const identity = await reader.findIdentity(id);
  if (!identity || identity.projectId !== project.id) {
    throw new NotFoundError(`no identity '${id}' in project '${project.slug}'`);
  }
  return identity;
}
