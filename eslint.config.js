// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import pluginQuery from '@tanstack/eslint-plugin-query';
import globals from 'globals';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * An import of one of src/'s top-level folders, from any depth below src/ (`../api`, `../../api/x`).
 * @param {string[]} names
 * @param {string} message
 */
const layers = (names, message) => ({ regex: `^(\\.\\./)+(${names.join('|')})(/|$)`, message });

/** The console never imports the simulator, its server or the tests. */
const outsideConsole = {
  regex: '^((\\.\\./)+(sim|server|test|bench)(/|$)|node:)',
  message: "The console (src/) runs in the browser: it never imports sim/, server/, test/, bench/ or Node's own modules.",
};

const featuresDir = path.join(import.meta.dirname, 'src', 'features');

/** The feature folder (`src/features/<name>/`) a path lies in, if any. */
const featureOf = (/** @type {string} */ file) => {
  const relative = path.relative(featuresDir, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? undefined : relative.split(path.sep)[0];
};

/**
 * Features never import each other (docs/architecture.md): an import from `src/features/<a>/` that resolves into
 * `src/features/<b>/`. Resolved against the file itself, so any depth of `../` is caught.
 * @type {import('eslint').Rule.RuleModule}
 */
const noCrossFeatureImport = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      cross: 'Features never import each other: {{from}} imports {{to}}. Move what both need to api/, components/ or lib/, or wire them in a screen.',
    },
  },
  create(context) {
    const from = featureOf(context.filename);
    /** @param {{ source?: { value?: unknown } | null } & import('estree').Node} node */
    const check = (node) => {
      const specifier = node.source?.value;
      if (from === undefined || typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const to = featureOf(path.resolve(path.dirname(context.filename), specifier));
      if (to !== undefined && to !== from) context.report({ node, messageId: 'cross', data: { from, to } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

const serverDir = path.join(import.meta.dirname, 'server');
const srcDir = path.join(import.meta.dirname, 'src');

/**
 * What each room of server/ may import of the others (docs/architecture.md): one way, never back. The loose
 * files (main, dev, config) wire rooms together; every room may read config.ts.
 * @type {Record<string, string[]>}
 */
const SERVER_ROOMS = {
  // Generic machinery that knows nothing of the console (the clock loops are handed, the one deadline): every room may use it.
  lib: [],
  // The logger, the request's context and the one way a repeated failure is told: every room logs.
  log: ['lib'],
  // The one seal for what the server keeps secret, and the one key fingerprint: sessions, kept keys, webhook secrets.
  seal: ['lib'],
  http: ['lib', 'log'],
  store: ['lib', 'log'],
  proxy: ['http', 'lib', 'log'],
  session: ['http', 'lib', 'log', 'proxy', 'seal', 'store'],
  pages: ['http', 'lib', 'log', 'proxy', 'session'],
  collector: ['lib', 'log', 'proxy', 'seal', 'store'],
  // Where the background loops run (the collector's and the notifications'): one decision, on the store's lock connection.
  lead: ['collector', 'lib', 'log', 'store'],
  archive: ['http', 'lib', 'log', 'proxy', 'seal', 'session', 'store'],
  notify: ['http', 'lib', 'log', 'proxy', 'seal', 'session', 'store'],
  insights: ['http', 'lib', 'log', 'proxy', 'seal', 'session', 'store'],
  // Team sign-in (docs/team.md): OIDC, a trusted proxy's person, roles, the audit trail. The door the lower rooms
  // call (server/session/team-door.ts) is the session room's; auth builds it.
  auth: ['http', 'lib', 'log', 'proxy', 'seal', 'session', 'store'],
  // What is watched, the change feed and its stream (docs/live.md): like the archive's routes, over the store.
  live: ['http', 'lib', 'log', 'proxy', 'seal', 'session', 'store'],
  // Readiness and metrics: they read the store and the API reader's answers; the rest hands them callbacks.
  ops: ['http', 'lib', 'log', 'proxy', 'store'],
  // The route table and the hooks every route shares: it reads the rooms' declarations, never a room itself.
  routes: ['http', 'lib', 'log', 'session', 'store'],
  process: [
    'http',
    'lib',
    'log',
    'store',
    'proxy',
    'seal',
    'session',
    'pages',
    'collector',
    'lead',
    'archive',
    'notify',
    'insights',
    'live',
    'ops',
    'routes',
    'auth',
  ],
};
/** The console's modules the server may use: the wire (api), config, lib, the model (the rules it reads too), and the render entry; never a feature or a screen. */
const SHARED_SRC = /^(?:(?:api|config|lib|model)\/[^/]+(?:\/[^/]+)*\.ts|entry-server\.tsx)$/;
/** What of src/ a room may use where it differs from SHARED_SRC: the store, the lowest room, reads only the model and the wire's schemas. */
const ROOM_SRC = /** @type {Record<string, RegExp>} */ ({ store: /^(?:model\/[^/]+\.ts|api\/(?:[a-z-]+-)?schemas\.ts)$/ });
const EXTENSIONS = ['', '.ts', '.tsx', '/index.ts'];

/** The file a relative specifier names, with its extension. */
const resolveFile = (/** @type {string} */ from, /** @type {string} */ specifier) => {
  const base = path.resolve(path.dirname(from), specifier);
  return EXTENSIONS.map((ext) => base + ext).find((file) => existsSync(file) && statSync(file).isFile());
};

/**
 * Server rooms import one way (SERVER_ROOMS), and reach src/ only through modules meant to be shared.
 * @type {import('eslint').Rule.RuleModule}
 */
const serverRooms = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      room: 'server/{{from}}/ may not import server/{{to}}/ (rooms import one way: docs/architecture.md). Move what both need to the lower room.',
      src: 'The server reaches src/ only through api/, config/, lib/, model/ (.ts) and entry-server, never a feature or a screen: not {{to}}.',
      storeSrc: "server/store/ reads only src/model/ and the wire's schemas (src/api/*schemas.ts): not {{to}}.",
    },
  },
  create(context) {
    const relative = path.relative(serverDir, context.filename);
    if (relative.startsWith('..')) return {};
    const parts = relative.split(path.sep);
    const from = parts.length > 1 ? parts[0] : undefined;
    /** @param {{ source?: { value?: unknown } | null } & import('estree').Node} node */
    const check = (node) => {
      const specifier = node.source?.value;
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const target = resolveFile(context.filename, specifier);
      if (!target) return;
      const inSrc = path.relative(srcDir, target);
      if (!inSrc.startsWith('..')) {
        const allowed = (from !== undefined ? ROOM_SRC[from] : undefined) ?? SHARED_SRC;
        if (!allowed.test(inSrc.split(path.sep).join('/')))
          context.report({ node, messageId: from === 'store' ? 'storeSrc' : 'src', data: { to: `src/${inSrc}` } });
        return;
      }
      const inServer = path.relative(serverDir, target).split(path.sep);
      if (from === undefined || inServer[0] === '..' || inServer.length === 1 || inServer[0] === from) return;
      const to = inServer[0] ?? '';
      if (!(SERVER_ROOMS[from] ?? []).includes(to)) context.report({ node, messageId: 'room', data: { from, to } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

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
  // One-way imports, app → screens → features → api / components / lib / config (docs/architecture.md), checked
  // on the import specifiers themselves. Each folder's block repeats `outsideConsole`: a later
  // `no-restricted-imports` replaces an earlier one for the files it matches.
  {
    files: ['src/**/*.{ts,tsx}'],
    rules: {
      'no-console': 'error',
      // What runs in the browser has no Node globals (checked here rather than by a second, DOM-only tsc program).
      'no-restricted-globals': ['error', 'process', 'Buffer', 'global', 'require', '__dirname', '__filename', 'setImmediate'],
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
    plugins: { layers: { rules: { 'no-cross-feature-import': noCrossFeatureImport } } },
    rules: {
      'layers/no-cross-feature-import': 'error',
      'no-restricted-imports': [
        'error',
        { patterns: [outsideConsole, layers(['app', 'screens'], 'Features never import app/ or screens/; app/ wires features together.')] },
      ],
    },
  },
  {
    files: ['src/api/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [outsideConsole, layers(['app', 'screens', 'features', 'components'], 'The wire layer knows no UI.')] }],
    },
  },
  {
    files: ['src/components/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            outsideConsole,
            layers(['app', 'screens', 'features', 'api'], 'components/ are app-agnostic: they may read the model, never the wire or a feature.'),
          ],
        },
      ],
    },
  },
  {
    files: ['src/lib/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            outsideConsole,
            layers(['app', 'screens', 'features', 'api', 'components', 'model'], 'lib/ is generic machinery: it knows nothing of this console.'),
          ],
        },
      ],
    },
  },
  {
    files: ['src/config/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [outsideConsole, layers(['app', 'screens', 'features', 'api', 'components', 'model'], 'config/ depends on nothing but lib/.')] },
      ],
    },
  },
  // The rules the server reads too (docs/architecture.md): pure, so the store can run them as SQL and a page as code.
  {
    files: ['src/model/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            outsideConsole,
            layers(['app', 'screens', 'features', 'components'], 'model/ is below every feature and screen: it imports none.'),
            { regex: '^(\\.\\./)+api/(?![a-z-]*schemas$)', message: "model/ reads only the wire's schemas (api/*schemas), never its fetchers or hooks." },
            { regex: '^(react|react-dom|@tanstack)(/|$)', message: 'model/ is pure: no React.' },
          ],
        },
      ],
    },
  },
  {
    files: ['server/**/*.ts'],
    plugins: { server: { rules: { rooms: serverRooms } } },
    rules: {
      'server/rooms': 'error',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(\\.\\./)+(test|bench|scripts)(/|$)', message: 'The server never imports the tests, the bench or the scripts.' },
            { regex: '\\.tsx$', message: 'The server imports no .tsx module by its file name.' },
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
