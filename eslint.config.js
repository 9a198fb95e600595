// One lint config for the monorepo. Rules catch bugs (promises nobody awaits, unsafe `any` in
// sources), not taste: layout is Prettier's business (.prettierrc.json).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/coverage/**', '**/node_modules/**', 'bench/.cache/**', 'docs/api/**', '**/*.d.ts'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Layout is Prettier's: the rules that would argue with it are off.
  prettier,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    rules: {
      // `_name` says "unused on purpose" (a signature Express needs, a field left out of a copy).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Refusing control characters in keys and names is what those patterns are for.
      'no-control-regex': 'off',
      // A variable a closure reads before it is set (a server's handler, set once the server listens).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  // The layers of CONTRIBUTING.md ("What belongs where"), in the sources of the published packages.
  ...layerRules(),
  {
    files: ['**/test/**', 'tests/**'],
    // Tests read JSON bodies and logs whose shape they then assert.
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { ...globals.node, crypto: 'readonly' } },
  },
);

/** One `no-restricted-imports` block per layer: what its sources may not import (tests/e2e/test/layers.test.ts). */
export function layerRules() {
  const FRAMEWORKS = ['express', 'express/*', 'fastify', 'fastify/*', 'fastify-plugin', 'hono', 'hono/*', 'koa'];
  const REDIS = ['ioredis', 'ioredis/*', 'redis', 'redis/*', '@redis/*', 'rate-limiter-flexible'];
  const MODES = ['api-key', 'jwt', 'oauth2'];
  const ADAPTERS = [
    '@authlayer/express',
    '@authlayer/express/*',
    '@authlayer/fastify',
    '@authlayer/fastify/*',
    '@authlayer/hono',
    '@authlayer/hono/*',
  ];
  const rule = (files, patterns, message) => ({
    files,
    ignores: ['**/test/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }] },
  });
  return [
    rule(['packages/core/src/**'], [...FRAMEWORKS, ...REDIS, '@authlayer/*'], 'core is the lowest layer'),
    rule(
      ['packages/engine/src/**'],
      [...FRAMEWORKS, ...ADAPTERS],
      'the engine imports no web framework and no adapter',
    ),
    rule(
      ['packages/express/src/**', 'packages/fastify/src/**', 'packages/hono/src/**'],
      REDIS,
      'an adapter imports no Redis client: the engine holds the connections',
    ),
    ...MODES.map((mode) =>
      rule(
        [`packages/${mode}/src/**`],
        [
          ...FRAMEWORKS,
          ...REDIS.filter((name) => !name.startsWith('ioredis')),
          ...ADAPTERS,
          '@authlayer/engine',
          '@authlayer/engine/*',
          ...MODES.filter((other) => other !== mode).flatMap((other) => [
            `@authlayer/${other}`,
            `@authlayer/${other}/*`,
          ]),
        ],
        'a mode builds on core and sender-constraint only, never on another mode, the engine or an adapter',
      ),
    ),
  ];
}
