/** The live service of this run (started once by global-setup.ts), as seen from a test file. */
import { inject } from 'vitest';
import { liveServiceAt, type LiveService } from '@svc/testkit';

export function liveService(): Omit<LiveService, 'stop'> {
  return liveServiceAt({
    apiPort: inject('apiPort'),
    consolePort: inject('consolePort'),
    adminToken: inject('adminToken'),
  });
}
