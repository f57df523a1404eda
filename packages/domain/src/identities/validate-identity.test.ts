import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.ts';
import { completeBinding, type BindingInput } from './binding-input.ts';
import { validateIdentity, type IdentityInput } from './validate-identity.ts';

const strict = { allowHttp: false };

function input(binding: BindingInput, patch: Partial<IdentityInput> = {}): IdentityInput {
  return {
    name: 'payments',
    kind: 'secret',
    service: null,
    ttlSeconds: 900,
    binding: completeBinding(binding),
    reviewerToken: null,
    ...patch,
  };
}

/** The field a ValidationError names, or undefined when the input is valid. */
function failingField(value: IdentityInput, policy = strict): string | undefined {
  try {
    validateIdentity(value, policy);
    return undefined;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.field;
  }
}

const oidc: BindingInput = {
  method: 'oidc',
  settings: { issuer: 'https://token.actions.githubusercontent.com', audiences: ['svc'] },
};
const kubernetes: BindingInput = {
  method: 'kubernetes',
  settings: {
    apiServer: 'https://10.0.0.1:443',
    namespaces: ['payments'],
    serviceAccounts: ['checkout'],
  },
};
const aws: BindingInput = { method: 'aws', settings: { accounts: ['123456789012'] } };
const gcp: BindingInput = {
  method: 'gcp',
  settings: { audience: 'svc', serviceAccounts: ['app@proj.iam.gserviceaccount.com'] },
};
const azure: BindingInput = {
  method: 'azure',
  settings: {
    tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47',
    audience: 'api://svc',
    principalIds: ['0c4e1b5a-1234-4abc-9def-0123456789ab'],
  },
};

describe('validateIdentity', () => {
  it.each([oidc, kubernetes, aws, gcp, azure])('accepts a minimal $method identity', (binding) => {
    expect(failingField(input(binding))).toBeUndefined();
  });

  it('names the missing required setting of each method', () => {
    expect(failingField(input({ method: 'oidc', settings: { audiences: ['a'] } }))).toBe(
      'oidc.issuer',
    );
    expect(failingField(input({ method: 'oidc', settings: { issuer: 'https://i' } }))).toBe(
      'oidc.audiences',
    );
    expect(
      failingField(
        input({ method: 'kubernetes', settings: { apiServer: 'https://k', namespaces: ['n'] } }),
      ),
    ).toBe('kubernetes.service_accounts');
    expect(failingField(input({ method: 'aws', settings: {} }))).toBe('aws.accounts');
    expect(failingField(input({ method: 'gcp', settings: { audience: 'a' } }))).toBe(
      'gcp.service_accounts',
    );
    expect(
      failingField(input({ method: 'azure', settings: { audience: 'a', principalIds: [] } })),
    ).toBe('azure.tenant_id');
  });

  it('keeps ttl_s within 60..43200', () => {
    expect(failingField(input(oidc, { ttlSeconds: 59 }))).toBe('ttl_s');
    expect(failingField(input(oidc, { ttlSeconds: 43_201 }))).toBe('ttl_s');
    expect(failingField(input(oidc, { ttlSeconds: 60.5 }))).toBe('ttl_s');
    expect(failingField(input(oidc, { ttlSeconds: 60 }))).toBeUndefined();
    expect(failingField(input(oidc, { ttlSeconds: 43_200 }))).toBeUndefined();
  });

  it('refuses plain http upstreams unless the policy allows them', () => {
    const http = input({
      method: 'oidc',
      settings: { ...oidc.settings, issuer: 'http://127.0.0.1:9000' },
    });
    expect(failingField(http)).toBe('oidc.issuer');
    expect(failingField(http, { allowHttp: true })).toBeUndefined();
    const jwks = input({
      method: 'gcp',
      settings: { ...gcp.settings, jwksUrl: 'http://127.0.0.1/keys' },
    });
    expect(failingField(jwks)).toBe('gcp.jwks_url');
  });

  it('refuses other schemes, credentials and fragments in upstream URLs, even with http allowed', () => {
    const open = { allowHttp: true };
    for (const apiServer of [
      'file:///etc/passwd',
      'https://user:pw@k8s',
      'https://k8s#x',
      'k8s:443',
    ]) {
      expect(
        failingField(
          input({ method: 'kubernetes', settings: { ...kubernetes.settings, apiServer } }),
          open,
        ),
      ).toBe('kubernetes.api_server');
    }
    expect(
      failingField(
        input({ method: 'aws', settings: { ...aws.settings, stsEndpoint: 'gopher://sts' } }),
        open,
      ),
    ).toBe('aws.sts_endpoint');
  });

  it('checks the shape of account ids, ARN patterns, emails and GUIDs', () => {
    expect(failingField(input({ method: 'aws', settings: { accounts: ['12345'] } }))).toBe(
      'aws.accounts',
    );
    expect(
      failingField(
        input({
          method: 'aws',
          settings: { accounts: ['123456789012'], principalArns: ['role/x'] },
        }),
      ),
    ).toBe('aws.principal_arns');
    expect(
      failingField(
        input({ method: 'gcp', settings: { audience: 'a', serviceAccounts: ['nobody'] } }),
      ),
    ).toBe('gcp.service_accounts');
    expect(
      failingField(
        input({ method: 'azure', settings: { ...azure.settings, principalIds: ['not-a-guid'] } }),
      ),
    ).toBe('azure.principal_ids');
  });

  it('takes a reviewer token only for kubernetes, and a CA only as PEM', () => {
    expect(failingField(input(kubernetes, { reviewerToken: 'eyJhbGciOi.x.y' }))).toBeUndefined();
    expect(failingField(input(oidc, { reviewerToken: 'eyJ' }))).toBe('oidc.reviewer_token');
    expect(failingField(input(kubernetes, { reviewerToken: 'has space' }))).toBe(
      'kubernetes.reviewer_token',
    );
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    expect(
      failingField(
        input({ method: 'kubernetes', settings: { ...kubernetes.settings, caCert: pem } }),
      ),
    ).toBeUndefined();
    expect(
      failingField(
        input({ method: 'kubernetes', settings: { ...kubernetes.settings, caCert: 'not pem' } }),
      ),
    ).toBe('kubernetes.ca_cert');
  });

  it('limits names, list lengths and claim names', () => {
    expect(failingField(input(oidc, { name: ' ' }))).toBe('name');
    expect(failingField(input(oidc, { name: 'x'.repeat(201) }))).toBe('name');
    const many = Array.from({ length: 101 }, (_, i) => `ns-${i}`);
    expect(
      failingField(
        input({ method: 'kubernetes', settings: { ...kubernetes.settings, namespaces: many } }),
      ),
    ).toBe('kubernetes.namespaces');
    expect(
      failingField(
        input({ method: 'oidc', settings: { ...oidc.settings, claims: { 'bad name': 'x' } } }),
      ),
    ).toBe('oidc.claims');
    expect(
      failingField(
        input({ method: 'oidc', settings: { ...oidc.settings, claims: { repository: '' } } }),
      ),
    ).toBe('oidc.claims.repository');
  });
});

describe('completeBinding', () => {
  it('fills defaults for a new binding, the STS endpoint among them', () => {
    expect(completeBinding(aws)).toEqual({
      method: 'aws',
      settings: {
        accounts: ['123456789012'],
        principalArns: [],
        stsEndpoint: 'https://sts.amazonaws.com',
        serverId: null,
      },
    });
  });

  it('merges a patch of the same method over the current settings, null clearing an optional one', () => {
    const current = completeBinding({
      method: 'oidc',
      settings: { ...oidc.settings, subject: 'repo:*' },
    });
    const patched = completeBinding(
      { method: 'oidc', settings: { audiences: ['other'], subject: null } },
      current,
    );
    expect(patched.settings).toMatchObject({
      issuer: oidc.settings.issuer,
      audiences: ['other'],
      subject: null,
    });
  });

  it('starts from the defaults when the method changes', () => {
    const current = completeBinding(oidc);
    expect(completeBinding({ method: 'gcp', settings: { audience: 'a' } }, current)).toEqual({
      method: 'gcp',
      settings: { audience: 'a', serviceAccounts: [], projects: [], jwksUrl: null },
    });
  });
});
