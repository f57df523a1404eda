/** The OpenFeature Remote Evaluation Protocol (OFREP) endpoints. */
export * from './ofrep-key.ts';
export * from './ofrep-request.ts';
export * from './ofrep-answers.ts';
export * from './ofrep-deps.ts';
export * from './ofrep-evaluate-handler.ts';
export * from './ofrep-bulk-handler.ts';
export * from './ofrep-events-handler.ts';
