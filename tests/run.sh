#!/bin/sh
# tests/run.sh - runs every suite in tests/suites/*.sh and the unit tests.
# Each suite prints "PASS name", "FAIL name" or "SKIP name: reason" lines;
# this script counts them and ends with "N passed, N failed[, N skipped]".
# BUILD names the build folder (build or build-asan).
BUILD=${BUILD:-build}
export BUILD
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
{
	echo "== unit"
	"$BUILD/unit_tests" || true
	for s in tests/suites/*.sh; do
		[ -f "$s" ] || continue
		echo "== $(basename "$s" .sh)"
		sh "$s" || echo "FAIL suite/$(basename "$s" .sh): exited $?"
	done
} 2>&1 | tee "$log"
passed=$(grep -c '^PASS ' "$log")
failed=$(grep -c '^FAIL ' "$log")
skipped=$(grep -c '^SKIP ' "$log")
if [ "$failed" -gt 0 ]; then
	echo "failed:"
	grep '^FAIL ' "$log" | sed 's/^/  /'
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
