import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RateLimitedError, UnauthorizedError, ValidationError } from '@svc/domain';
import { etagMatches, parseInput, problemOf, statusByCode, tenantResolver } from '../src/index.ts';

describe('tenant resolution', () => {
  const resolve = tenantResolver('example.com');

  it('uses host form when the Host is {slug}.{BASE_DOMAIN}', () => {
    expect(resolve('acme.example.com', '/v1/sync?x=1')).toEqual({ slug: 'acme', path: '/v1/sync' });
    expect(resolve('ACME.Example.com:8443', '/v1/sync')).toEqual({
      slug: 'acme',
      path: '/v1/sync',
    });
  });

  it('falls back to path form for any other host', () => {
    expect(resolve('localhost:8080', '/acme/v1/sync')).toEqual({ slug: 'acme', path: '/v1/sync' });
    expect(resolve('a.b.example.com', '/acme/v1/sync')).toEqual({ slug: 'acme', path: '/v1/sync' });
    expect(resolve('example.com', '/acme')).toEqual({ slug: 'acme', path: '/' });
    expect(resolve(undefined, '/')).toBeUndefined();
  });
});

describe('If-None-Match', () => {
  it('matches exactly, in lists, weakly and with *', () => {
    expect(etagMatches('"abc"', '"abc"')).toBe(true);
    expect(etagMatches('"x", "abc"', '"abc"')).toBe(true);
    expect(etagMatches('W/"abc"', '"abc"')).toBe(true);
    expect(etagMatches('*', '"abc"')).toBe(true);
    expect(etagMatches('"abd"', '"abc"')).toBe(false);
    expect(etagMatches(undefined, '"abc"')).toBe(false);
  });
});

describe('problem+json mapping', () => {
  it('maps every code to the contract status', () => {
    expect(statusByCode).toMatchObject({
      invalid_request: 400,
      unauthorized: 401,
      billing_overdue: 402,
      ab_addon_inactive: 403,
      public_key_forbidden: 403,
      not_found: 404,
      version_conflict: 409,
      payload_too_large: 413,
      rate_limited: 429,
      sync_quarantined: 429,
    });
  });

  it('adds Retry-After in whole seconds and names the failing field', () => {
    expect(problemOf(new RateLimitedError(2.2))?.headers).toEqual({ 'Retry-After': '3' });
    expect(problemOf(new ValidationError('flags[2]', 'bad'))?.problem).toMatchObject({
      status: 400,
      field: 'flags[2]',
    });
    expect(problemOf(new UnauthorizedError())?.problem).toMatchObject({
      status: 401,
      code: 'unauthorized',
    });
    expect(problemOf(new Error('boom'))).toBeUndefined();
  });
});

describe('parseInput', () => {
  const schema = z.strictObject({ a: z.array(z.strictObject({ b: z.string() })) });
  it('names the first failing field as a path', () => {
    expect(() => parseInput(schema, { a: [{ b: 'x' }, { b: 1 }] })).toThrow(/^a\[1\]\.b:/);
    expect(() => parseInput(schema, { a: [], extra: 1 })).toThrow(/^extra:/);
    expect(() => parseInput(schema, null)).toThrow(/^body:/);
    expect(parseInput(schema, { a: [{ b: 'ok' }] })).toEqual({ a: [{ b: 'ok' }] });
  });
});
