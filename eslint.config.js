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
