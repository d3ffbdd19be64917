#!/bin/sh
# tests/run.sh - runs the unit tests and every suite in tests/suites/*.sh.
# Each prints "PASS name", "FAIL name" or "SKIP name: reason" lines; this
# script counts them and ends with "N passed, N failed, N skipped".
# A test program that exits non-zero or dies by a signal is a failure of
# its own ("FAIL unit: ..."), so a crash cannot hide the tests it cut off.
# Exit status: 0 only when nothing failed and something passed.
# BUILD names the build folder (build or build-asan); SUITES the suite
# folder (default tests/suites; tests/suites/runner.sh points it elsewhere).
BUILD=${BUILD:-build}
SUITES=${SUITES:-tests/suites}
export BUILD
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# run NAME COMMAND...: a FAIL line when COMMAND does not exit 0.
run() {
	name=$1
	shift
	"$@"
	rc=$?
	if [ "$rc" -gt 128 ]; then
		echo "FAIL $name: killed by signal $((rc - 128))"
	elif [ "$rc" -ne 0 ]; then
		echo "FAIL $name: exited $rc"
	fi
}

{
	echo "== unit"
	run unit "$BUILD/unit_tests"
	for s in "$SUITES"/*.sh; do
		[ -f "$s" ] || continue
		echo "== $(basename "$s" .sh)"
		run "suite/$(basename "$s" .sh)" sh "$s"
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
