/** The secret write API for secret keys: `PUT/DELETE /v1/secrets/{key}`, `DELETE …/versions/{n}`. */
import type { Express, Request } from 'express';
import type { SecretWrites, WriteRequest } from '@svc/domain';
import { z } from 'zod';
import { tenantOf } from './api-server.ts';
import { jsonBody, pathParam, route, sendSecretWritten, versionParam } from './express-support.ts';
import { parseInput } from './validation.ts';

const putSecretBody = z.strictObject({
  value: z.string(),
  expected_version: z.number().int().min(0).optional(),
});

export function mountSecretWrites(app: Express, writes: SecretWrites): void {
  app.put(
    '/v1/secrets/:key',
    jsonBody,
    route(async (req, res) => {
      // The key first: a caller without a valid key learns nothing from body validation.
      writes.authorize(writeRequest(req));
      const body = parseInput(putSecretBody, req.body);
      const result = await writes.set(writeRequest(req), pathParam(req, 'key'), {
        value: body.value,
        expectedVersion: body.expected_version,
      });
      sendSecretWritten(res, result);
    }),
  );
  app.delete(
    '/v1/secrets/:key',
    route(async (req, res) => {
      await writes.delete(writeRequest(req), pathParam(req, 'key'));
      res.status(204).end();
    }),
  );
  app.delete(
    '/v1/secrets/:key/versions/:version',
    route(async (req, res) => {
      await writes.deleteVersion(writeRequest(req), pathParam(req, 'key'), versionParam(req));
      res.status(204).end();
    }),
  );
}

function writeRequest(req: Request): WriteRequest {
  const apiKey = req.headers['x-service-api-key'];
  return { slug: tenantOf(req).slug, apiKey: typeof apiKey === 'string' ? apiKey : undefined };
}
