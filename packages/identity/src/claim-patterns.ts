/** Subject and claim patterns of OIDC identities, on verified claims. */
import { IdentityRejectedError, matchesPattern, type OidcSettings } from '@svc/domain';
import type { JWTPayload } from 'jose';

/** A claim's value as patterns see it: strings, numbers and booleans by their text. */
function claimTexts(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  // A list claim (`groups`) matches when one of its entries does.
  if (Array.isArray(value)) return value.flatMap((v) => (Array.isArray(v) ? [] : claimTexts(v)));
  return [];
}

/** Shortened for error texts: the caller sent the token, but a detail stays short. */
export function shown(text: string): string {
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

export function checkSubjectAndClaims(settings: OidcSettings, payload: JWTPayload): string {
  const subject = typeof payload.sub === 'string' ? payload.sub : '';
  if (subject === '') throw new IdentityRejectedError('subject', 'the token has no sub claim');
  if (settings.subject !== null && !matchesPattern(settings.subject, subject)) {
    throw new IdentityRejectedError('subject', `subject '${shown(subject)}' is not allowed`);
  }
  for (const [name, pattern] of Object.entries(settings.claims)) {
    const texts = claimTexts(payload[name]);
    if (!texts.some((text) => matchesPattern(pattern, text))) {
      throw new IdentityRejectedError(
        'not_allowed',
        `claim '${name}' does not match the identity's pattern`,
      );
    }
  }
  return subject;
}
