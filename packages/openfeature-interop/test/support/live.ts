/** The live service of this run (started once by global-setup.ts), as seen from a test file. */
import { inject } from 'vitest';
import { adminCalls, type HttpResponse } from '@svc/testkit';
import { ADMIN_TOKEN } from './global-setup.ts';

/** What the tests use of a live console and api. */
export interface Live {
  /** `http://127.0.0.1:{port}` of the api. */
  apiUrl: string;
  apiPort: number;
  /** A management API call (`path` below `/api`); throws unless it answers 2xx. */
  admin(method: string, path: string, body?: unknown): Promise<HttpResponse>;
}

export function liveService(): Live {
  const apiPort = inject('apiPort');
  const consolePort = inject('consolePort');
  return {
    apiUrl: `http://127.0.0.1:${apiPort}`,
    apiPort,
    ...adminCalls(() => consolePort, ADMIN_TOKEN),
  };
}
