#!/usr/bin/env bash
# `npm test`: every suite. The build first; then the unit tests beside the production install check and the server
# tests that mostly wait; the browser lanes beside the type check, lint and format check (`npm run check`: one
# thread, the TypeScript program built once for the type check and ESLint), at a lower CPU priority, so that it takes
# the quarter of the two cores the lanes leave idle and never their turn; last the rest of the server tests on Node 22
# (docs/testing.md, what runs side by side).
# A step run beside another prints its output once both have ended, and leaves its exit code in reports/<step>.status
# for scripts/test-totals.js; a later step runs only if the earlier ones passed.
set -uo pipefail
cd "$(dirname "$0")/.."
# Every Node process of the run (Vitest and its workers, the type check and lint, Playwright, the lanes' servers) with
# a young generation of 64 MB, not V8's 16: the tests allocate fast and briefly, and scavenging that less often took
# 13 % less CPU from the DOM tests and 16 % from the check (docs/testing.md, what the run costs).
export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--max-semi-space-size=64"
mkdir -p reports
rm -f reports/*.status
# The browser lanes' servers listen on E2E_PORT to E2E_PORT + 2: free ones unless set, so that a second `npm test`
# (another checkout, another CI run) can run beside this one.
E2E_PORT="${E2E_PORT:-$(node scripts/free-ports.js 3)}" || exit 1
export E2E_PORT

# Whether every step named passed, by the exit code each left in reports/<step>.status (none: it did not run).
passed() {
  for step in "$@"; do
    [ "$(cat "reports/$step.status" 2> /dev/null)" = 0 ] || return 1
  done
}

# The check beside the lanes: waited for, and its output printed, before the run ends either way.
check=
check_ended() {
  if [ -n "$check" ]; then
    wait "$check"
    cat reports/check.log
  fi
}

set -e
npm run -s build
# Beside the unit tests, each leaving its exit code in reports/<step>.status, their output printed once the browser
# lanes have ended: the production install check (an `npm ci --omit=dev` and one start of the built server), and on
# Node 22, one at a time, the server tests that mostly wait (Postgres stopped and killed, takeovers timed out:
# vite.config.ts, WAITING_SERVER_TESTS), whose report is counted with the Node 22 step's. They outlast the unit tests
# into the lanes.
(npm run test:install > reports/test:install.log 2>&1; echo $? > reports/test:install.status) &
install=$!
scripts/node22.sh true # unpacks Node 22 once, before the two that use it start side by side
SERVER_TESTS=waiting scripts/node22.sh vitest run --project node --maxWorkers=1 --reporter=default --reporter=json --outputFile.json=reports/node22-waiting.json > reports/node22-waiting.log 2>&1 &
waiting=$!
set +e
SERVER_TESTS_ON_NODE22=1 npm run test:unit
echo $? > reports/test:unit.status
if passed test:unit; then
  (nice -n 10 npm run check > reports/check.log 2>&1; echo $? > reports/check.status) &
  check=$!
  npm run test:browser
  echo $? > reports/test:browser.status
fi
wait "$install"
wait "$waiting"
waiting_status=$?
cat reports/test:install.log reports/node22-waiting.log
passed test:unit test:browser test:install || { check_ended; exit 1; }

SERVER_TESTS=rest npm run test:node22
node22=$?
[ "$waiting_status" = 0 ] || node22=1
echo "$node22" > reports/test:node22.status
check_ended
passed test:node22 check
