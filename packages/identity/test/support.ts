/** What the verifier tests share: the verifier under test and a way to ask it. */
import {
  type IdentityBinding,
  type MethodSettings,
  type VerifiedWorkload,
  type WorkloadCredential,
  completeBinding,
  type BindingInput,
} from '@svc/domain';
import { createIdentityVerifier } from '../src/index.ts';

/** As the api runs it in tests: plain http allowed, short deadlines, no refetch cooldown. */
export const verifier = createIdentityVerifier({
  policy: { allowHttp: true },
  timeoutMs: 1500,
  jwksCooldownMs: 0,
});

export function binding<M extends BindingInput['method']>(
  method: M,
  settings: Partial<MethodSettings[M]>,
): IdentityBinding {
  return completeBinding({ method, settings } as BindingInput);
}

export function verifyToken(
  b: IdentityBinding,
  token: string,
  reviewerToken: string | null = null,
): Promise<VerifiedWorkload> {
  return verifier.verify({
    binding: b,
    reviewerToken,
    credential: { type: 'token', token },
  });
}

export function verifyCredential(
  b: IdentityBinding,
  credential: WorkloadCredential,
): Promise<VerifiedWorkload> {
  return verifier.verify({ binding: b, reviewerToken: null, credential });
}

/** A URL where nothing listens (a port just freed). */
export async function deadUrl(): Promise<string> {
  const { freePort } = await import('@svc/testkit');
  return `http://127.0.0.1:${await freePort()}`;
}
