// `npm run check`: what `npm run typecheck` and `npm run lint` check, with the TypeScript program built once.
// ESLint's typed rules need the same program `tsc -p tsconfig.node.json` builds (eslint.config.js names that
// tsconfig), and building it was most of each one's time: here the type check builds it, and ESLint is handed it
// (typescript-eslint's parserOptions.programs) instead of building its own. Then Prettier checks every file's format.
// The exit code is 1 if any of the three found something; each one's findings are printed as its own command prints them.
// `npm test` runs this beside the browser lanes, at nice 10 (scripts/test.sh; docs/testing.md, what runs side by side).
import { spawnSync } from 'node:child_process';
import ts from 'typescript';
import { ESLint } from 'eslint';

const TSCONFIG = 'tsconfig.node.json';

const host = { getCanonicalFileName: (name) => name, getCurrentDirectory: ts.sys.getCurrentDirectory, getNewLine: () => ts.sys.newLine };
const print = (diagnostics) => process.stdout.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));

/** The type check, as `tsc -p tsconfig.node.json --noEmit`: the program, and whether it had no error. */
function typecheck() {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    TSCONFIG,
    { noEmit: true },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        print([diagnostic]);
        process.exit(1);
      },
    },
  );
  if (parsed === undefined) process.exit(1);
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    projectReferences: parsed.projectReferences,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed),
  });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length > 0) print(diagnostics);
  console.log(`typecheck: ${diagnostics.length === 0 ? 'no errors' : `${diagnostics.length} error(s)`} in ${parsed.fileNames.length} files`);
  return { program, ok: diagnostics.length === 0 };
}

/** ESLint over the whole tree, as `eslint . --max-warnings 0`, its typed rules reading `program`. */
async function lint(program) {
  const eslint = new ESLint({
    overrideConfig: [{ files: ['**/*.{ts,tsx}'], languageOptions: { parserOptions: { programs: [program] } } }],
  });
  const results = await eslint.lintFiles(['.']);
  const errors = results.reduce((sum, result) => sum + result.errorCount, 0);
  const warnings = results.reduce((sum, result) => sum + result.warningCount, 0);
  const formatted = await (await eslint.loadFormatter('stylish')).format(results);
  if (formatted) process.stdout.write(formatted);
  console.log(`lint: ${errors} error(s), ${warnings} warning(s) in ${results.length} files`);
  return errors === 0 && warnings === 0;
}

/** Prettier, as `prettier --check . --log-level warn`. */
function format() {
  const { status } = spawnSync('node_modules/.bin/prettier', ['--check', '.', '--log-level', 'warn'], { stdio: 'inherit' });
  console.log(`format: ${status === 0 ? 'every file formatted' : 'files to format: `npx prettier --write .` mends them'}`);
  return status === 0;
}

const { program, ok: typed } = typecheck();
const linted = await lint(program);
const formatted = format();
process.exit(typed && linted && formatted ? 0 : 1);
