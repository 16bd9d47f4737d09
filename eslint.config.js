import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

// One lint setup for the whole repo: type-aware rules are left to `tsc -b`; lint catches the rest.
export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.data/**', '.artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
);
