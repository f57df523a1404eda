import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Builds dist/svc.mjs once and starts one console and api for every test file.
    globalSetup: ['./test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
