export * from './loopback-server.ts';
export * from './oidc-issuer.ts';
export * from './kubernetes-api.ts';
export * from './aws-sts.ts';
export * from './gcp-metadata.ts';
export * from './azure-imds.ts';
export * from './aws-signing.ts';
