// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import pluginQuery from '@tanstack/eslint-plugin-query';
import { importX } from 'eslint-plugin-import-x';
import globals from 'globals';

const screens = ['keys', 'projects', 'operations', 'operation-detail', 'api-keys'];

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
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    rules: {
      'no-console': 'error',
      'react-hooks/exhaustive-deps': 'error',
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            { target: './src', from: './sim', message: 'The console never imports the simulator.' },
            { target: './src', from: './test', message: 'The console never imports tests.' },
            {
              target: ['./src/components', './src/lib'],
              from: ['./src/app', './src/api', './src/screens'],
              message: 'components/ and lib/ are app-agnostic.',
            },
            { target: './src/api', from: ['./src/app', './src/screens', './src/components'], message: 'The wire layer knows no UI.' },
            ...screens.map((s) => ({
              target: `./src/screens/${s}`,
              from: './src/screens',
              except: [`./${s}`],
              message: 'Screens never import each other.',
            })),
          ],
        },
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
