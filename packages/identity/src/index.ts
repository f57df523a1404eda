export { createIdentityVerifier, type IdentityVerifierOptions } from './identity-verifier.ts';
export { principalArn } from './aws-method.ts';
export { SERVER_ID_HEADER } from './aws-signed-request.ts';
export { GOOGLE_JWKS_URL, azureJwksUrl } from './token-methods.ts';
