/**
 * Where an OFREP caller's API key comes from: the contract's `X-Service-API-Key`, or what OFREP
 * providers send — `Authorization: Bearer <key>` or `X-API-Key` — in that order.
 */
import type { KeyReader } from '../route-table.ts';

const BEARER = /^Bearer +(\S+) *$/i;

export const ofrepApiKey: KeyReader = (req) => {
  const { headers } = req;
  const service = headers['x-service-api-key'];
  if (typeof service === 'string') return service;
  const authorization = headers.authorization;
  if (authorization !== undefined) {
    const bearer = BEARER.exec(authorization);
    if (bearer) return bearer[1];
  }
  const apiKey = headers['x-api-key'];
  return typeof apiKey === 'string' ? apiKey : undefined;
};
