/**
 * Bindings as an admin gives them: a method and some of its settings. Missing settings take
 * their defaults (empty where the value is required, so validation names the field); on a
 * patch of the same method, the given settings replace the current ones one by one.
 */
import type { IdentityBinding, IdentityMethod, MethodSettings } from './identity.ts';

export const DEFAULT_STS_ENDPOINT = 'https://sts.amazonaws.com';

/** A method and any of its settings. */
export type BindingInput = {
  [M in IdentityMethod]: { method: M; settings: Partial<MethodSettings[M]> };
}[IdentityMethod];

const defaults: { [M in IdentityMethod]: () => MethodSettings[M] } = {
  oidc: () => ({ issuer: '', jwksUrl: null, audiences: [], subject: null, claims: {} }),
  kubernetes: () => ({
    apiServer: '',
    caCert: null,
    audiences: [],
    namespaces: [],
    serviceAccounts: [],
  }),
  aws: () => ({
    accounts: [],
    principalArns: [],
    stsEndpoint: DEFAULT_STS_ENDPOINT,
    serverId: null,
  }),
  gcp: () => ({ audience: '', serviceAccounts: [], projects: [], jwksUrl: null }),
  azure: () => ({ tenantId: '', audience: '', principalIds: [], jwksUrl: null }),
};

/**
 * The complete binding: `input`'s settings over the current binding's when the method stays,
 * else over the method's defaults. Settings given as `undefined` are left as they were.
 */
export function completeBinding(input: BindingInput, current?: IdentityBinding): IdentityBinding {
  const base: object =
    current && current.method === input.method ? current.settings : defaults[input.method]();
  const given: object = Object.fromEntries(
    Object.entries(input.settings).filter(([, value]) => value !== undefined),
  );
  // Same method on both sides: the spread keeps every setting of `base`'s type.
  return { method: input.method, settings: { ...base, ...given } } as unknown as IdentityBinding;
}
