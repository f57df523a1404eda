export * from './fixture.ts';
export * from './schemathesis.ts';
export * from './targets.ts';
export * from './venv.ts';
