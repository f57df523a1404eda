/**
 * Workload identities on the wire: request bodies (one method block, named by `method`, in
 * snake_case) and how they become the domain's typed input, and identities as the API shows
 * them (never the reviewer token: only whether one is set).
 */
import {
  IDENTITY_METHODS,
  isName,
  isSlug,
  NAME_RULE,
  SLUG_RULE,
  type BindingInput,
  type CreateIdentityInput,
  type IdentityListing,
  type IdentityMethod,
  type IdentityPatch,
} from '@svc/domain';
import { z } from 'zod';

const url = z.string().max(2048);
const item = z.string().max(512);
const list = z.array(item).max(100);

/** Each method's settings, every one optional here (the domain says which are required). */
const blocks = {
  oidc: z.strictObject({
    issuer: url,
    jwks_url: url.nullable(),
    audiences: list,
    subject: item.nullable(),
    claims: z.record(z.string().max(128), item),
  }),
  kubernetes: z.strictObject({
    api_server: url,
    ca_cert: z
      .string()
      .max(64 * 1024)
      .nullable(),
    reviewer_token: z
      .string()
      .max(16 * 1024)
      .nullable(),
    audiences: list,
    namespaces: list,
    service_accounts: list,
  }),
  aws: z.strictObject({
    accounts: list,
    principal_arns: list,
    sts_endpoint: url,
    server_id: z.string().max(256).nullable(),
  }),
  gcp: z.strictObject({
    audience: item,
    service_accounts: list,
    projects: list,
    jwks_url: url.nullable(),
  }),
  azure: z.strictObject({
    tenant_id: z.string().max(64),
    audience: item,
    principal_ids: list,
    jwks_url: url.nullable(),
  }),
} satisfies Record<IdentityMethod, z.ZodObject>;

const methodBlocks = {
  oidc: blocks.oidc.partial().optional(),
  kubernetes: blocks.kubernetes.partial().optional(),
  aws: blocks.aws.partial().optional(),
  gcp: blocks.gcp.partial().optional(),
  azure: blocks.azure.partial().optional(),
};

const common = {
  name: z.string().refine(isName, NAME_RULE),
  kind: z.enum(['secret', 'public']),
  ttl_s: z.number().int(),
  method: z.enum(IDENTITY_METHODS),
};

type Blocks = { [M in IdentityMethod]?: Record<string, unknown> | undefined };

/** The method blocks a body holds: only the one of its method (named or implied). */
function checkBlocks(body: Blocks & { method?: IdentityMethod | undefined }, ctx: z.RefinementCtx) {
  const present = IDENTITY_METHODS.filter((m) => body[m] !== undefined);
  if (present.length > 1) {
    ctx.addIssue({ code: 'custom', path: [present[1]!], message: 'give one method block only' });
  } else if (body.method !== undefined && present.length === 1 && present[0] !== body.method) {
    ctx.addIssue({ code: 'custom', path: [present[0]!], message: `the method is ${body.method}` });
  }
}

export const createIdentityBody = z
  .strictObject({
    ...common,
    service: z.string().refine(isSlug, SLUG_RULE).optional(),
    ttl_s: common.ttl_s.optional(),
    ...methodBlocks,
  })
  .superRefine(checkBlocks);

export const patchIdentityBody = z
  .strictObject({
    ...common,
    service: z.string().refine(isSlug, SLUG_RULE).nullable(),
    ...methodBlocks,
  })
  .partial()
  .superRefine(checkBlocks);

const snakeToCamel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const camelToSnake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The block as the domain's settings, and the reviewer token apart. */
function bindingOf(method: IdentityMethod, block: Record<string, unknown> | undefined) {
  const { reviewer_token: reviewerToken, ...settings } = block ?? {};
  const binding = {
    method,
    settings: Object.fromEntries(Object.entries(settings).map(([k, v]) => [snakeToCamel(k), v])),
  } as BindingInput;
  return { binding, reviewerToken: reviewerToken as string | null | undefined };
}

export function toCreateInput(body: z.infer<typeof createIdentityBody>): CreateIdentityInput {
  const { binding, reviewerToken } = bindingOf(body.method, body[body.method]);
  return {
    name: body.name,
    kind: body.kind,
    ...(body.service === undefined ? {} : { service: body.service }),
    ...(body.ttl_s === undefined ? {} : { ttlSeconds: body.ttl_s }),
    binding,
    ...(typeof reviewerToken === 'string' ? { reviewerToken } : {}),
  };
}

export function toPatch(body: z.infer<typeof patchIdentityBody>): IdentityPatch {
  const method = body.method ?? IDENTITY_METHODS.find((m) => body[m] !== undefined);
  const patch: IdentityPatch = {};
  if (body.name !== undefined) patch.name = body.name;
  if (body.kind !== undefined) patch.kind = body.kind;
  if (body.service !== undefined) patch.service = body.service;
  if (body.ttl_s !== undefined) patch.ttlSeconds = body.ttl_s;
  if (method !== undefined) {
    const { binding, reviewerToken } = bindingOf(method, body[method]);
    patch.binding = binding;
    if (reviewerToken !== undefined) patch.reviewerToken = reviewerToken;
  }
  return patch;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function identityJson(identity: IdentityListing) {
  const { method, settings } = identity.binding;
  const block: Record<string, unknown> = Object.fromEntries(
    Object.entries(settings).map(([k, v]) => [camelToSnake(k), v]),
  );
  if (method === 'kubernetes') block.reviewer_token_set = identity.sealedSecret !== null;
  return {
    id: identity.id,
    name: identity.name,
    kind: identity.kind,
    service: identity.service,
    ttl_s: identity.ttlSeconds,
    method,
    [method]: block,
    created_at: iso(identity.createdAt),
    updated_at: iso(identity.updatedAt),
    last_used_at: iso(identity.lastUsedAt),
    live_keys: identity.liveKeys,
  };
}
