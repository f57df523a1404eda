/** Once per test run: the real console and api as child processes, for every test file. */
import type { TestProject } from 'vitest/node';
import { startLiveService } from '@svc/testkit';

declare module 'vitest' {
  export interface ProvidedContext {
    apiPort: number;
    consolePort: number;
    adminToken: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const live = await startLiveService();
  project.provide('apiPort', live.apiPort);
  project.provide('consolePort', live.consolePort);
  project.provide('adminToken', live.adminToken);
  return live.stop;
}
