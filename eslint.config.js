// One ESLint setting for the whole repo; each package runs `eslint src test`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/** Modules that do I/O: the domain must not import them (it stays pure and testable). */
const ioModules = [
  'node:*',
  'fs',
  'fs/*',
  'net',
  'http',
  'https',
  'child_process',
  'crypto',
  'express',
  'kysely',
  'pg',
  'better-sqlite3',
  '@svc/*',
];

export default tseslint.config(
  {
    // The console page's ES modules are served as they are, so they are linted as they are.
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/target/**',
      '**/*.js',
      '**/*.mjs',
      '!apps/console/src/page/**/*.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Tests read arbitrary JSON responses.
    files: ['**/test/**/*.ts', '**/*.test.ts', 'packages/testkit/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['packages/domain/src/**/*.ts'],
    ignores: ['packages/domain/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ioModules, message: 'packages/domain is pure: no I/O imports (use a port).' }] },
      ],
    },
  },
  {
    // The console page: plain ES modules run by browsers (no build step), type-checked by
    // apps/console/tsconfig.page.json.
    files: ['apps/console/src/page/**/*.js'],
    languageOptions: { globals: globals.browser, sourceType: 'module' },
  },
);
