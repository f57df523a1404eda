export * from './api-keys.ts';
export * from './aes-gcm-sealer.ts';
export * from './root-key.ts';
export * from './hmac-token-signer.ts';
