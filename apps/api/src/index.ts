export * from './api-app.ts';
