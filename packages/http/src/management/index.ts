export * from './router.ts';
export * from './route.ts';
export * from './routes.ts';
