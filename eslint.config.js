// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import pluginQuery from '@tanstack/eslint-plugin-query';
import globals from 'globals';

/**
 * An import of one of src/'s top-level folders, from any depth below src/ (`../api`, `../../api/x`).
 * @param {string[]} names
 * @param {string} message
 */
const layers = (names, message) => ({ regex: `^(\\.\\./)+(${names.join('|')})(/|$)`, message });

/** The console never imports the simulator, its server or the tests. */
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
  // One-way imports, app → screens → features → api / components / lib / config (DESIGN §2), checked
  // on the import specifiers themselves. Each folder's block repeats `outsideConsole`: a later
  // `no-restricted-imports` replaces an earlier one for the files it matches.
  {
    files: ['src/**/*.{ts,tsx}'],
    rules: {
      'no-console': 'error',
      'react-hooks/exhaustive-deps': 'error',
      'no-restricted-imports': ['error', { patterns: [outsideConsole] }],
    },
  },
  {
    files: ['src/screens/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            outsideConsole,
            layers(['app'], 'Screens never import app/: it imports them.'),
            // `../x` from a screen's folder is a sibling screen; shared code is two levels up (`../../api`).
            { regex: '^\\.\\./(?!\\.\\./)', message: 'Screens never import each other.' },
            layers(['screens'], 'Screens never import each other.'),
          ],
        },
      ],
    },
  },
  {
    files: ['src/features/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [outsideConsole, layers(['app', 'screens'], 'Features never import app/ or screens/; app/ wires features together.')] },
      ],
    },
  },
  {
    files: ['src/api/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [outsideConsole, layers(['app', 'screens', 'features', 'components'], 'The wire layer knows no UI.')] },
      ],
    },
  },
  {
    files: ['src/components/**', 'src/lib/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [outsideConsole, layers(['app', 'screens', 'features', 'api'], 'components/ and lib/ are app-agnostic.')] },
      ],
    },
  },
  {
    files: ['src/config/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [outsideConsole, layers(['app', 'screens', 'features', 'api', 'components'], 'config/ depends on nothing but lib/.')] },
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
