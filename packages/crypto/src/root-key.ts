import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT_KEY_BYTES } from './aes-gcm-sealer.ts';

export const ROOT_KEY_FILE = 'root.key';

/** Decodes `SERVICE_ROOT_KEY` (base64 of 32 bytes); throws a message naming the variable. */
export function decodeRootKey(base64: string, name = 'SERVICE_ROOT_KEY'): Buffer {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== ROOT_KEY_BYTES || key.toString('base64') !== base64.trim()) {
    throw new Error(`${name} must be the base64 encoding of exactly ${ROOT_KEY_BYTES} bytes`);
  }
  return key;
}

/**
 * The root key from `SERVICE_ROOT_KEY` when set, else from `DATA_DIR/root.key`, which is created
 * (32 random bytes, mode 0600) on first start.
 */
export function loadRootKey(options: { fromEnv?: string; dataDir: string }): {
  key: Buffer;
  source: string;
} {
  if (options.fromEnv) return { key: decodeRootKey(options.fromEnv), source: 'SERVICE_ROOT_KEY' };
  const file = join(options.dataDir, ROOT_KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    // `wx` never overwrites a key another process created in the meantime.
    try {
      writeFileSync(file, randomBytes(ROOT_KEY_BYTES).toString('base64') + '\n', {
        mode: 0o600,
        flag: 'wx',
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  chmodSync(file, 0o600);
  return { key: decodeRootKey(readFileSync(file, 'utf8'), file), source: file };
}
