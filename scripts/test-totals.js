// Sums what `npm test` ran into one line, `N passed, N failed`, for .ci/run.
// `npm test` (scripts/test.sh) runs its steps one after another, so the steps that ran are the `> pkg@version <script>` banners
// npm printed, in order; every step before the last one passed, and the last passed iff the exit code is 0. The
// steps run side by side (the unit tests beside the install check; the Node 22 server tests beside the checks)
// each leave their exit code in <reports-dir>/<step>.status, which says whether it passed wherever its banner comes.
// Vitest and Playwright contribute their test counts from their JSON reports; other steps (the checks, or a suite
// whose report is missing) count as one check each. A suite that failed without a failing test (crash, config error,
// web server that never came up) counts as one failure, and so does a run that stopped before any step.
//
// Usage: node scripts/test-totals.js <npm-test-log> <exit-code> <reports-dir>
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const [logFile, exitCodeArg, reportsDir = 'reports'] = process.argv.slice(2);
const exitCode = Number(exitCodeArg);
if (!logFile || !Number.isInteger(exitCode)) {
  console.error('usage: node scripts/test-totals.js <npm-test-log> <exit-code> [reports-dir]');
  process.exit(2);
}

const vitest = (r) => ({ passed: r.numPassedTests, failed: r.numFailedTests });
const playwright = (r) => ({ passed: r.stats.expected + r.stats.flaky, failed: r.stats.unexpected });
// A step's reports, summed. The browser step runs the server-facing specs a second time against the server
// on Node 22 (a lane of its own); the Node 22 step runs the server's Vitest tests again.
const REPORTS = {
  'test:unit': [{ file: 'unit.json', read: vitest }],
  'test:e2e': [{ file: 'e2e.json', read: playwright }],
  'test:browser': [{ file: 'e2e.json', read: playwright }],
  'test:node22': [
    { file: 'node22-unit.json', read: vitest },
    { file: 'node22-waiting.json', read: vitest },
  ],
};

const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
const steps = [...log.matchAll(/^> \S+@\S+ (\S+)$/gm)].map((m) => m[1]).filter((name) => name !== 'test');

function readOne({ file, read }) {
  try {
    const counts = read(JSON.parse(readFileSync(path.join(reportsDir, file), 'utf8')));
    return Number.isInteger(counts.passed) && Number.isInteger(counts.failed) ? counts : undefined;
  } catch {
    return undefined;
  }
}

function readReport(step) {
  const specs = REPORTS[step];
  if (!specs) return undefined;
  const found = specs.map(readOne).filter((counts) => counts !== undefined);
  if (found.length === 0) return undefined;
  return found.reduce((sum, counts) => ({ passed: sum.passed + counts.passed, failed: sum.failed + counts.failed }), { passed: 0, failed: 0 });
}

/** A step's own exit code, for the steps that ran side by side; undefined for the others. */
function statusOf(step) {
  try {
    const code = Number(readFileSync(path.join(reportsDir, `${step}.status`), 'utf8').trim());
    return Number.isInteger(code) ? code : undefined;
  } catch {
    return undefined;
  }
}

let passed = 0;
let failed = 0;
steps.forEach((step, index) => {
  const status = statusOf(step);
  const stepFailed = status === undefined ? index === steps.length - 1 && exitCode !== 0 : status !== 0;
  const counts = readReport(step) ?? { passed: stepFailed ? 0 : 1, failed: stepFailed ? 1 : 0 };
  if (stepFailed && counts.failed === 0) counts.failed = 1;
  console.log(`${step}: ${counts.passed} passed, ${counts.failed} failed`);
  passed += counts.passed;
  failed += counts.failed;
});
if (exitCode !== 0 && failed === 0) {
  console.log(`set-up failed before or outside the test steps (exit code ${exitCode})`);
  failed = 1;
}
console.log(`${passed} passed, ${failed} failed`);
