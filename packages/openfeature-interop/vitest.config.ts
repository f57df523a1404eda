import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One console and api (as processes) for every test file; each file has a workspace of its own.
    globalSetup: ['./test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
