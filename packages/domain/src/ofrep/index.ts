/** OpenFeature Remote Evaluation Protocol: what keys resolve to, and event-stream view tokens. */
export * from './ofrep-evaluation.ts';
export * from './view-tokens.ts';
