/** The secret write API for secret keys: `PUT/DELETE /v1/secrets/{key}`, `DELETE …/versions/{n}`. */
import type { ServerResponse } from 'node:http';
import type { SecretWrites } from '@svc/domain';
import { z } from 'zod';
import { corsHeaders } from './cors.ts';
import { readJsonBody } from './json-body.ts';
import { writeJson } from './json-response.ts';
import type { KeyRoute } from './route-table.ts';
import { parseInput, parseVersionNumber } from './validation.ts';

type Deps = { writes: SecretWrites };

const putSecretBody = z.strictObject({
  value: z.string(),
  expected_version: z.number().int().min(0).optional(),
});

/** `PUT /v1/secrets/{key}`: a new version; 201 when the secret is new. */
export function putSecretHandler({ writes }: Deps): KeyRoute['handle'] {
  return async (req, res, { principal, params }) => {
    // 403/402 before the body: a caller who may not write learns nothing from its validation.
    writes.authorize(principal);
    const body = parseInput(putSecretBody, await readJsonBody(req));
    const result = await writes.set(principal, params['key']!, {
      value: body.value,
      expectedVersion: body.expected_version,
    });
    return writeJson(res, result.created ? 201 : 200, {
      key: result.key,
      version: result.version,
      type: result.type,
      revision: result.revision,
    });
  };
}

/** `DELETE /v1/secrets/{key}`: the secret and every version. */
export function deleteSecretHandler({ writes }: Deps): KeyRoute['handle'] {
  return async (_req, res, { principal, params }) => {
    const { revision } = await writes.delete(principal, params['key']!);
    return noContent(res, revision);
  };
}

/** `DELETE /v1/secrets/{key}/versions/{version}`: one version. */
export function deleteSecretVersionHandler({ writes }: Deps): KeyRoute['handle'] {
  return async (_req, res, { principal, params }) => {
    const version = parseVersionNumber(params['version']!);
    const { revision } = await writes.deleteVersion(principal, params['key']!, version);
    return noContent(res, revision);
  };
}

/** 204, with the change's revision in `X-Revision` (there is no body to carry it). */
function noContent(res: ServerResponse, revision: number): number {
  res.writeHead(204, { ...corsHeaders, 'x-revision': String(revision) });
  res.end();
  return 204;
}
