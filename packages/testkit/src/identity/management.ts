/**
 * Identities made as an operator makes them: `POST {project}/identities` on the console's
 * management API, one per method block.
 */
/** A management API call (`path` below `/api`) with the admin token. */
export type AdminCall = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; text: string; json(): any }>;

/** What an identity holds besides its method block (`kind` is `secret` unless given). */
export interface IdentityFields {
  name?: string;
  kind?: 'secret' | 'public';
  service?: string;
  ttl_s?: number;
}

/**
 * Creates one identity of `method` with `block` in the project at `projectPath`
 * (`/workspaces/{ws}/projects/{project}`); throws unless the answer is 2xx; resolves with its id.
 */
export async function createIdentity(
  admin: AdminCall,
  projectPath: string,
  method: string,
  block: Record<string, unknown>,
  fields: IdentityFields = {},
): Promise<string> {
  const res = await admin('POST', `${projectPath}/identities`, {
    name: method,
    kind: 'secret',
    ...fields,
    method,
    [method]: block,
  });
  if (res.status >= 300) throw new Error(`create ${method} identity: ${res.status} ${res.text}`);
  return res.json().id as string;
}

/**
 * One identity per entry of `blocks` (method → block), each with `fields(method)`: their ids by
 * method.
 */
export async function createIdentities(
  admin: AdminCall,
  projectPath: string,
  blocks: Record<string, Record<string, unknown>>,
  fields: (method: string) => IdentityFields = () => ({}),
): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const [method, block] of Object.entries(blocks)) {
    ids[method] = await createIdentity(admin, projectPath, method, block, fields(method));
  }
  return ids;
}
