/**
 * The rules an identity must follow, on typed input (the http adapter has parsed the body).
 * Field names in errors are the wire's (`kubernetes.api_server`), so the caller sees which.
 */
import type { KeyKind } from '../api-key-format.ts';
import { ValidationError } from '../errors.ts';
import { assertName } from '../names.ts';
import {
  IDENTITY_TTL_MAX_S,
  IDENTITY_TTL_MIN_S,
  type IdentityBinding,
  type IdentityMethod,
  type MethodSettings,
} from './identity.ts';

/** What an admin gives to create (or, merged, to patch) an identity. */
export interface IdentityInput {
  name: string;
  kind: KeyKind;
  /** Service slug, or null for project level. */
  service: string | null;
  ttlSeconds: number;
  binding: IdentityBinding;
  /** The Kubernetes reviewer token, sealed before it is stored; null: none. */
  reviewerToken: string | null;
}

/** Server-wide rules for identities. */
export interface IdentityPolicy {
  /** `IDENTITY_ALLOW_HTTP=true`: upstream URLs may be plain http (tests, air-gapped labs). */
  allowHttp: boolean;
}

const URL_MAX = 2048;
const ITEM_MAX = 512;
const LIST_MAX = 100;
const PEM_MAX = 64 * 1024;
const TOKEN_MAX = 16 * 1024;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const ACCOUNT = /^\d{12}$/;
/** No control characters, no whitespace at either end. */
const PLAIN_TEXT = /^[^\s\p{Cc}](?:[^\p{Cc}]*[^\s\p{Cc}])?$/u;
const CLAIM_NAME = /^[A-Za-z0-9_.:/-]{1,128}$/;

export function validateIdentity(input: IdentityInput, policy: IdentityPolicy): void {
  assertName('name', input.name);
  if (
    !Number.isInteger(input.ttlSeconds) ||
    input.ttlSeconds < IDENTITY_TTL_MIN_S ||
    input.ttlSeconds > IDENTITY_TTL_MAX_S
  ) {
    throw new ValidationError(
      'ttl_s',
      `must be a whole number ${IDENTITY_TTL_MIN_S}..${IDENTITY_TTL_MAX_S}`,
    );
  }
  const { method } = input.binding;
  const check = new Checker(method, policy);
  // The table makes a method without rules a type error.
  (checks[method] as (c: Checker, s: MethodSettings[typeof method]) => void)(
    check,
    input.binding.settings,
  );
  if (input.reviewerToken !== null) {
    if (method !== 'kubernetes') {
      throw new ValidationError(`${method}.reviewer_token`, 'only kubernetes identities have one');
    }
    check.text('reviewer_token', input.reviewerToken, TOKEN_MAX, /^[\x21-\x7e]+$/);
  }
}

const checks: { [M in IdentityMethod]: (c: Checker, s: MethodSettings[M]) => void } = {
  oidc(c, s) {
    c.url('issuer', s.issuer);
    if (s.jwksUrl !== null) c.url('jwks_url', s.jwksUrl);
    c.list('audiences', s.audiences, 1);
    if (s.subject !== null) c.text('subject', s.subject, ITEM_MAX);
    const claims = Object.entries(s.claims);
    if (claims.length > LIST_MAX) c.fail('claims', `at most ${LIST_MAX} entries`);
    for (const [name, pattern] of claims) {
      if (!CLAIM_NAME.test(name)) c.fail('claims', `'${name.slice(0, 64)}' is not a claim name`);
      c.text(`claims.${name}`, pattern, ITEM_MAX);
    }
  },
  kubernetes(c, s) {
    c.url('api_server', s.apiServer);
    if (s.caCert !== null) {
      c.text('ca_cert', s.caCert, PEM_MAX, /^[\s\x21-\x7e]+$/);
      if (!s.caCert.includes('-----BEGIN CERTIFICATE-----')) {
        c.fail('ca_cert', 'must be PEM (-----BEGIN CERTIFICATE-----)');
      }
    }
    c.list('audiences', s.audiences, 0);
    c.list('namespaces', s.namespaces, 1);
    c.list('service_accounts', s.serviceAccounts, 1);
  },
  aws(c, s) {
    c.list('accounts', s.accounts, 1);
    for (const account of s.accounts) {
      if (!ACCOUNT.test(account))
        c.fail('accounts', `'${account.slice(0, 64)}' is not a 12-digit account id`);
    }
    c.list('principal_arns', s.principalArns, 0);
    for (const arn of s.principalArns) {
      if (!arn.startsWith('arn:'))
        c.fail('principal_arns', `'${arn.slice(0, 64)}' is not an ARN pattern`);
    }
    c.url('sts_endpoint', s.stsEndpoint);
    if (s.serverId !== null) c.text('server_id', s.serverId, 256, /^[\x21-\x7e]+$/);
  },
  gcp(c, s) {
    c.text('audience', s.audience, ITEM_MAX);
    c.list('service_accounts', s.serviceAccounts, 1);
    for (const email of s.serviceAccounts) {
      if (!EMAIL.test(email)) c.fail('service_accounts', `'${email.slice(0, 64)}' is not an email`);
    }
    c.list('projects', s.projects, 0);
    if (s.jwksUrl !== null) c.url('jwks_url', s.jwksUrl);
  },
  azure(c, s) {
    if (!GUID.test(s.tenantId)) c.fail('tenant_id', 'must be a tenant id (GUID)');
    c.text('audience', s.audience, ITEM_MAX);
    c.list('principal_ids', s.principalIds, 1);
    for (const id of s.principalIds) {
      if (!GUID.test(id))
        c.fail('principal_ids', `'${id.slice(0, 64)}' is not an object id (GUID)`);
    }
    if (s.jwksUrl !== null) c.url('jwks_url', s.jwksUrl);
  },
};

/** Field checks that name `{method}.{field}` when they fail. */
class Checker {
  constructor(
    private readonly method: IdentityMethod,
    private readonly policy: IdentityPolicy,
  ) {}

  fail(field: string, message: string): never {
    throw new ValidationError(`${this.method}.${field}`, message);
  }

  text(field: string, value: string, max: number, pattern = PLAIN_TEXT): void {
    if (value.length === 0 || value.length > max) this.fail(field, `must be 1..${max} characters`);
    if (!pattern.test(value)) this.fail(field, 'has characters it may not have');
  }

  list(field: string, values: string[], min: number): void {
    if (values.length < min || values.length > LIST_MAX) {
      this.fail(field, `must have ${min}..${LIST_MAX} entries`);
    }
    for (const value of values) this.text(field, value, ITEM_MAX);
  }

  /** An upstream the server will call: https (http only when allowed), no credentials. */
  url(field: string, value: string): void {
    this.text(field, value, URL_MAX);
    const url = upstreamUrl(value, this.policy);
    if (typeof url === 'string') this.fail(field, url);
  }
}

/**
 * Parses an upstream URL an admin configured; a string says why it is refused. Only https
 * unless the policy allows http; never credentials or a fragment.
 */
export function upstreamUrl(value: string, policy: IdentityPolicy): URL | string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    return policy.allowHttp ? 'must be http(s)' : 'must be https (IDENTITY_ALLOW_HTTP is off)';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (url.hash) return 'must not have a fragment';
  return url;
}
