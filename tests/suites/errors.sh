#!/bin/sh
# Negative script tests: each tests/errors/NAME.py must fail with exit 1
# and print exactly NAME.err under --diag=short; the first reported code
# must be the one in the file name (E<number>-slug).  A first line
# "# cmd: print" runs that command instead of check; "# args: ..." adds
# CLI arguments.  tests/errors/NAME.json are IR JSON documents checked
# the same way (no command lines; NAME.args, when present, holds their
# CLI arguments).
BUILD=${BUILD:-build}
for py in tests/errors/E*.py tests/errors/E*.json; do
	[ -f "$py" ] || continue
	name=$(basename "$py"); name=${name%.*}
	err=${py%.*}.err
	if [ ! -f "$err" ]; then
		echo "FAIL errors/$name: missing $err"
		continue
	fi
	cmd= args=
	case $py in *.py)
		cmd=$(sed -n '1s/^# cmd: *//p' "$py")
		args=$(sed -n '1,2s/^# args: *//p' "$py");;
	*.json)
		[ -f "${py%.*}.args" ] && args=$(cat "${py%.*}.args");;
	esac
	out=$("$BUILD/ptxtile" "${cmd:-check}" --diag=short $args "$py" 2>&1 >/dev/null)
	rc=$?
	code=$(echo "$name" | sed 's/-.*//')
	first=$(echo "$out" | head -n 1 | cut -d' ' -f1)
	if [ "$rc" -ne 1 ]; then
		echo "FAIL errors/$name: exit $rc, expected 1"
	elif [ "$out" != "$(cat "$err")" ]; then
		echo "FAIL errors/$name: got '$out', expected '$(cat "$err")'"
	elif [ "$first" != "$code" ]; then
		echo "FAIL errors/$name: first code $first, expected $code"
	else
		echo "PASS errors/$name"
	fi
done
