/** Once per test run: the real console and api as child processes, for every test file. */
import type { TestProject } from 'vitest/node';
import { startProcesses } from '@svc/testkit';

export const ADMIN_TOKEN = 'openfeature-interop-admin-token-0123456789';

declare module 'vitest' {
  export interface ProvidedContext {
    apiPort: number;
    consolePort: number;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const live = await startProcesses(ADMIN_TOKEN);
  project.provide('apiPort', live.apiPort);
  project.provide('consolePort', live.consolePort);
  return live.stop;
}
