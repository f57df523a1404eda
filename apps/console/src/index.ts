export * from './console-app.ts';
export * from './demo-seed.ts';
export * from './admin-token.ts';
