import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { constantTimeEquals } from '@svc/crypto';

export const ADMIN_TOKEN_FILE = 'admin.token';

/**
 * The management API's bearer token: `CONSOLE_ADMIN_TOKEN` when set, else one generated on
 * first start and kept in `DATA_DIR/admin.token` (mode 0600) so it survives restarts.
 */
export function resolveAdminToken(
  fromEnv: string | undefined,
  dataDir: string,
): { token: string; generated: boolean } {
  if (fromEnv) return { token: fromEnv, generated: false };
  const file = join(dataDir, ADMIN_TOKEN_FILE);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    try {
      writeFileSync(file, `sva_${randomBytes(24).toString('base64url')}\n`, {
        mode: 0o600,
        flag: 'wx',
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return { token: readFileSync(file, 'utf8').trim(), generated: true };
}

export function tokenChecker(expected: string): (presented: string) => boolean {
  return (presented) => constantTimeEquals(presented, expected);
}
