export * from './frames.ts';
export * from './view-history.ts';
export * from './stream-sink.ts';
export * from './stream-hub.ts';
export * from './ofrep-event-hub.ts';
