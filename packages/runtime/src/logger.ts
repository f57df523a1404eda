import { pino, type Logger } from 'pino';

/**
 * Structured JSON logs. Anything that could carry a key or a secret is redacted by path, and
 * no code logs request bodies or secret values in the first place.
 */
export function createLogger(options: { name: string; level: string }): Logger {
  return pino({
    name: options.name,
    level: options.level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-service-api-key"]',
        'req.headers.cookie',
        'headers.authorization',
        'headers["x-service-api-key"]',
        '*.value',
        '*.apiKey',
        '*.token',
      ],
      censor: '[redacted]',
    },
  });
}

export type { Logger };
