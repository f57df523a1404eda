import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * Structured JSON logs. Anything that could carry a key or a secret is redacted by path, and
 * no code logs request bodies or secret values in the first place.
 */
export function createLogger(
  options: { name: string; level: string },
  destination?: DestinationStream,
): Logger {
  return pino(
    {
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
    },
    destination ?? pino.destination(1),
  );
}

export type { Logger };
