// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import pluginQuery from '@tanstack/eslint-plugin-query';
import globals from 'globals';

/** The console never imports the simulator or the tests. */
const outsideConsole = { regex: '^(\\.\\./)+(sim|server|test|bench)(/|$)', message: 'The console (src/) never imports sim/, server/, test/ or bench/.' };

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'test-results', 'playwright-report', 'bench/results'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: ['./tsconfig.node.json'], tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.browser, ...globals.node },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['src/**/*.{ts,tsx}', 'test/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  ...pluginQuery.configs['flat/recommended'],
  // One-direction imports (shared → screens → app), checked on the import specifiers themselves.
  {
    files: ['src/**/*.{ts,tsx}'],
    rules: {
      'no-console': 'error',
      'react-hooks/exhaustive-deps': 'error',
      'no-restricted-imports': ['error', { patterns: [outsideConsole] }],
    },
  },
  {
    files: ['src/components/**', 'src/lib/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [outsideConsole, { regex: '^\\.\\./(app|api|screens)/', message: 'components/ and lib/ are app-agnostic.' }] },
      ],
    },
  },
  {
    files: ['src/api/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [outsideConsole, { regex: '^\\.\\./(app|screens|components)/', message: 'The wire layer knows no UI.' }] },
      ],
    },
  },
  {
    files: ['src/screens/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        // `../x` from a screen's folder is a sibling screen; shared code is two levels up (`../../api`).
        { patterns: [outsideConsole, { regex: '^\\.\\./(?!\\.\\./)', message: 'Screens never import each other.' }] },
      ],
    },
  },
  {
    files: ['test/**/*.{ts,tsx}', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
