#!/bin/sh
# The test runner itself (tests/run.sh) against stand-in test programs:
# a unit binary that crashes after one PASS, one that exits non-zero
# without a FAIL line, and a suite killed by a signal must each make the
# runner fail and name the culprit; an all-passing stand-in must not.
# SUITES points the runner at a folder of stand-in suites, so it does
# not run the real ones (nor this one) again.
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ok() { echo "PASS runner/$1"; }
bad() { echo "FAIL runner/$1: $2"; }
root=$(pwd)
mkdir -p "$t/b" "$t/s"
printf 'echo "PASS standin/suite"\n' >"$t/s/ok.sh"

# case NAME WANT_RC WANT_LINE: run the runner on the current stand-ins.
case_() {
	BUILD="$t/b" SUITES="$t/s" sh "$root/tests/run.sh" >"$t/out" 2>&1
	rc=$?
	if [ "$2" -eq 0 ] && [ "$rc" -ne 0 ]; then
		bad "$1" "runner exited $rc, expected 0: $(tail -n 1 "$t/out")"
	elif [ "$2" -ne 0 ] && [ "$rc" -eq 0 ]; then
		bad "$1" "runner exited 0 on a failing stand-in: $(tail -n 1 "$t/out")"
	elif ! grep -q "$3" "$t/out"; then
		bad "$1" "no line matching '$3': $(tail -n 1 "$t/out")"
	else
		ok "$1"
	fi
}
unit() { printf '#!/bin/sh\n%s\n' "$1" >"$t/b/unit_tests"; chmod +x "$t/b/unit_tests"; }

unit 'echo "PASS standin/one"'
case_ all_pass 0 '^2 passed, 0 failed, 0 skipped$'
# The stand-in dies by SIGSEGV right after its first PASS line.
unit 'echo "PASS standin/one"; kill -SEGV $$; echo "PASS standin/two"'
case_ unit_crash 1 '^FAIL unit: killed by signal 11$'
case_ unit_crash_count 1 '^2 passed, 1 failed, 0 skipped$'
unit 'echo "PASS standin/one"; exit 3'
case_ unit_exit 1 '^FAIL unit: exited 3$'
unit 'echo "PASS standin/one"'
printf 'echo "PASS standin/crash"\nkill -ABRT $$\n' >"$t/s/crash.sh"
case_ suite_signal 1 '^FAIL suite/crash: killed by signal 6$'
rm -f "$t/s/crash.sh" "$t/s/ok.sh"
unit 'true'
case_ nothing_passed 1 '^0 passed, 0 failed, 0 skipped$'
