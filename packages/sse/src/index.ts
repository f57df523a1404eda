export * from './frames.ts';
export * from './view-history.ts';
export * from './stream-hub.ts';
export * from './stream-handler.ts';
