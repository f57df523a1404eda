export * from './identity.ts';
export * from './identity-errors.ts';
export * from './identity-ports.ts';
export * from './glob.ts';
export * from './binding-input.ts';
export * from './validate-identity.ts';
export * from './exchange.ts';
