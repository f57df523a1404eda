import { describe, expect, it } from 'vitest';
import type { FlagRow, SecretVersionRow } from '../src/database.ts';
import {
  fromHundredths,
  groupByScope,
  scopeColumn,
  toFlag,
  toHundredths,
  toSecretVersion,
} from '../src/rows.ts';

const secretRow = (sealed: string | null): SecretVersionRow => ({
  project_id: 'p',
  scope: '',
  key: 'db.password',
  version: 2,
  type: 'text',
  file_name: null,
  sealed,
  created_at: 1,
  deleted_at: sealed === null ? 2 : null,
});

describe('rows', () => {
  it('stores a rollout percentage as whole hundredths', () => {
    expect(toHundredths(12.34)).toBe(1234);
    // 0.29 * 100 is 28.999999999999996 in binary floating point.
    expect(toHundredths(0.29)).toBe(29);
    expect(fromHundredths(toHundredths(99.99))).toBe(99.99);
  });

  it('keeps project level as the empty scope', () => {
    expect(scopeColumn({ projectId: 'p', serviceId: null })).toBe('');
    expect(scopeColumn({ projectId: 'p', serviceId: 's' })).toBe('s');
  });

  it('reads a flag row back into the domain entry', () => {
    const row: FlagRow = {
      project_id: 'p',
      scope: '',
      key: 'beta',
      is_active: 1,
      rules_json: '[{"conditions":[],"result":true}]',
      rollout_hundredths: 2550,
      salt: null,
      updated_at: 7,
    };
    expect(toFlag(row)).toStrictEqual({
      key: 'beta',
      isActive: true,
      rules: [{ conditions: [], result: true }],
      rolloutPercentage: 25.5,
      salt: null,
      updatedAt: 7,
    });
  });

  it('refuses to read a deleted secret version as a value', () => {
    expect(toSecretVersion(secretRow('sealed')).sealed).toBe('sealed');
    expect(() => toSecretVersion(secretRow(null))).toThrow('db.password@2 has no sealed value');
  });

  it('groups rows by scope in their order', () => {
    const rows = [
      { scope: '', key: 'a' },
      { scope: 's', key: 'b' },
      { scope: '', key: 'c' },
    ];
    const grouped = groupByScope(rows, (r) => r.key);
    expect([...grouped]).toStrictEqual([
      ['', ['a', 'c']],
      ['s', ['b']],
    ]);
  });
});
