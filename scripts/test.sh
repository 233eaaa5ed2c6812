#!/usr/bin/env bash
# `npm test`: every suite, one step after another, except the first, where typecheck and lint (one thread
# each, most of their time spent building the TypeScript program) run beside the unit tests, which leave
# a core idle half the time: measured on 2 cores, 172 s side by side against 201 s one after the other.
# Their output is printed once the three have ended, each with its exit code in reports/<step>.status
# for scripts/test-totals.js; the later steps run only if all three passed.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p reports

npm run typecheck > reports/typecheck.log 2>&1 &
typecheck=$!
npm run lint > reports/lint.log 2>&1 &
lint=$!
SERVER_TESTS_ON_NODE22=1 npm run test:unit
echo $? > reports/test:unit.status
wait "$typecheck"
echo $? > reports/typecheck.status
wait "$lint"
echo $? > reports/lint.status
cat reports/typecheck.log reports/lint.log

for step in test:unit typecheck lint; do
  [ "$(cat "reports/$step.status")" = 0 ] || exit 1
done

set -e
npm run test:prod
# The database outage test (Node 22) spends most of its minute waiting out a 25 s stop of Postgres: it runs
# beside the browser lanes rather than after them, its report counted with the Node 22 step's.
scripts/node22.sh true # unpacks Node 22 once, before the two that use it start side by side
scripts/node22.sh vitest run --project node test/server/store/database-outage.test.ts --reporter=default --reporter=json --outputFile.json=reports/node22-outage.json > reports/node22-outage.log 2>&1 &
outage=$!
set +e
npm run test:browser
browser=$?
wait "$outage"
outage_status=$?
set -e
cat reports/node22-outage.log
[ "$browser" = 0 ] || exit 1
OUTAGE_TEST_APART=1 npm run test:node22
[ "$outage_status" = 0 ] || exit 1
