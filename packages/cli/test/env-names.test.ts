import { describe, expect, it } from 'vitest';
import { envName, envValue, envVariables } from '../src/run/env-names.ts';

describe('environment variable names', () => {
  it('upper-cases the key and turns everything outside [A-Z0-9] into _', () => {
    expect(envName('db.pool')).toBe('DB_POOL');
    expect(envName('stripe.api-key')).toBe('STRIPE_API_KEY');
    expect(envName('Feature_X.v2')).toBe('FEATURE_X_V2');
    expect(envName('__proto__')).toBe('__PROTO__');
  });

  it('strings as they are, any other JSON as JSON text', () => {
    expect(envValue('dark')).toBe('dark');
    expect(envValue('')).toBe('');
    expect(envValue({ max: 10, hosts: ['a'] })).toBe('{"max":10,"hosts":["a"]}');
    expect(envValue(3)).toBe('3');
    expect(envValue(true)).toBe('true');
    expect(envValue(null)).toBe('null');
  });

  it('two keys on one name: an error naming both', () => {
    expect(() =>
      envVariables([
        { kind: 'config', key: 'db.pool', value: '1' },
        { kind: 'config', key: 'ui.theme', value: 'x' },
        { kind: 'file secret', key: 'db-pool', value: '/tmp/f' },
      ]),
    ).toThrow('config "db.pool" and file secret "db-pool" both map to the variable DB_POOL');
    const vars = envVariables([
      { kind: 'config', key: 'a.b', value: '1' },
      { kind: 'secret', key: 'a.c', value: '2' },
    ]);
    expect([...vars.keys()]).toEqual(['A_B', 'A_C']);
  });
});
