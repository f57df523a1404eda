import { describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from '../src/settings.ts';

describe('settings', () => {
  it('applies the contract defaults', () => {
    const s = loadSettings({});
    expect(s).toMatchObject({
      PORT: 8080,
      CONSOLE_PORT: 8081,
      BASE_DOMAIN: 'localhost',
      LOG_LEVEL: 'info',
      WRITE_RATE_LIMIT_MAX: 30,
      WRITE_RATE_LIMIT_WINDOW_S: 10,
      SYNC_QUARANTINE_MAX: 120,
      SYNC_QUARANTINE_WINDOW_S: 60,
      SYNC_QUARANTINE_S: 300,
      STREAM_MAX_AGE_S: 1800,
    });
    expect(s.dataDir).toMatch(/\/data$/);
  });

  it('names every bad variable', () => {
    expect(() => loadSettings({ PORT: 'eighty', LOG_LEVEL: 'loud' })).toThrow(SettingsError);
    const bad = () =>
      loadSettings({ PORT: 'eighty', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x' });
    expect(bad).toThrow(/PORT/);
    expect(bad).toThrow(/LOG_LEVEL/);
    expect(bad).toThrow(/DATABASE_URL/);
  });

  it('treats empty variables as unset and coerces numbers', () => {
    expect(loadSettings({ PORT: '', SYNC_QUARANTINE_MAX: '5' })).toMatchObject({
      PORT: 8080,
      SYNC_QUARANTINE_MAX: 5,
    });
  });

  it('takes API_WORKERS as a count or auto', () => {
    expect(loadSettings({}).API_WORKERS).toBe(1);
    expect(loadSettings({ API_WORKERS: '2' }).API_WORKERS).toBe(2);
    expect(loadSettings({ API_WORKERS: 'auto' }).API_WORKERS).toBe('auto');
    expect(() => loadSettings({ API_WORKERS: '0' })).toThrow(/API_WORKERS/);
    expect(() => loadSettings({ API_WORKERS: 'many' })).toThrow(/API_WORKERS/);
  });
});
