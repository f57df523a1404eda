import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));
export const svcBin = `${repoRoot}/packages/cli/dist/svc.mjs`;
export const ADMIN_TOKEN = 'cli-test-admin-token-0123456789';
