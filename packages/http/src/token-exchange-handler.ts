/**
 * `POST {base_url}/v1/auth/token`: a workload identity's exchange, the one /v1 route that takes
 * no API key (the body's platform token proves the caller). The body is parsed here, within
 * small limits; the domain's exchange does the rest.
 */
import { NotFoundError, type IdentityExchange, type WorkloadCredential } from '@svc/domain';
import { z } from 'zod';
import { readJsonBody } from './json-body.ts';
import { writeJson } from './json-response.ts';
import type { OpenRoute } from './route-table.ts';
import { parseInput } from './validation.ts';

/** A JWT, a signed STS request: never near this. */
const EXCHANGE_BODY_LIMIT = 64 * 1024;
const AWS_HEADERS_MAX = 50;

const awsRequest = z.strictObject({
  method: z.string().min(1).max(16),
  url: z.string().min(1).max(2048),
  headers: z
    .record(z.string().min(1).max(128), z.string().max(8192))
    .refine((headers) => Object.keys(headers).length <= AWS_HEADERS_MAX, {
      message: `at most ${AWS_HEADERS_MAX} headers`,
    }),
  body: z.base64().max(8192),
});

const exchangeBody = z
  .strictObject({
    identity_id: z.string().min(1).max(64),
    token: z
      .string()
      .min(1)
      .max(16 * 1024)
      .optional(),
    aws: awsRequest.optional(),
  })
  .refine((body) => (body.token === undefined) !== (body.aws === undefined), {
    message: 'give exactly one of token and aws',
    path: ['token'],
  });

export function tokenExchangeHandler({
  exchange,
}: {
  exchange?: IdentityExchange | undefined;
}): OpenRoute['handle'] {
  return async (req, res, { tenant }) => {
    if (!exchange) throw new NotFoundError('this server exchanges no workload tokens');
    const body = parseInput(exchangeBody, await readJsonBody(req, EXCHANGE_BODY_LIMIT));
    const credential: WorkloadCredential = body.aws
      ? {
          type: 'aws',
          request: { ...body.aws, body: Buffer.from(body.aws.body, 'base64').toString('utf8') },
        }
      : { type: 'token', token: body.token! };
    const minted = await exchange.exchange({
      slug: tenant.slug,
      identityId: body.identity_id,
      credential,
    });
    return writeJson(res, 200, {
      key: minted.key,
      kind: minted.kind,
      expires_at: new Date(minted.expiresAt).toISOString(),
      expires_in: minted.expiresIn,
    });
  };
}
