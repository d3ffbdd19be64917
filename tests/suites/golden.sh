#!/bin/sh
# tests/suites/golden.sh - golden tests: kernel script -> PTX.
#
# For each tests/golden/NAME.py (first lines may hold "# target: sm_90a";
# default sm_90a):
#   1. `ptxtile compile NAME.py --target T` must succeed and its output
#      must equal NAME.ptx byte for byte (diff shown on failure);
#   2. NAME.ptx must assemble with `ptxas -arch=T` with no output at all
#      (a warning is a failure).  Without ptxas this step is a loud SKIP.
# A golden whose .ptx does not exist yet is a SKIP naming the bless
# command: `sh tests/suites/golden.sh --bless NAME` writes NAME.ptx from
# the current compiler, to be reviewed by hand before committing.
BUILD=${BUILD:-build}
PTXTILE="$BUILD/ptxtile"
bless=
[ "$1" = "--bless" ] && { bless=$2; }

find_ptxas() {
	if [ -n "$PTXAS" ] && command -v "$PTXAS" >/dev/null 2>&1; then
		echo "$PTXAS"
	elif command -v ptxas >/dev/null 2>&1; then
		command -v ptxas
	elif [ -x /usr/local/cuda/bin/ptxas ]; then
		echo /usr/local/cuda/bin/ptxas
	fi
}
ptxas=$(find_ptxas)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ran=0
for py in tests/golden/*.py; do
	[ -f "$py" ] || continue
	name=$(basename "$py" .py)
	exp="tests/golden/$name.ptx"
	target=$(sed -n 's/^# target: *\([a-z0-9_]*\).*/\1/p' "$py" | head -n 1)
	[ -n "$target" ] || target=sm_90a
	ran=1
	if ! "$PTXTILE" compile "$py" --target "$target" -o "$tmp/$name.ptx" \
		2>"$tmp/$name.err"; then
		echo "FAIL golden/$name: compile failed: $(head -n 3 "$tmp/$name.err")"
		continue
	fi
	if [ "$bless" = "$name" ] || [ "$bless" = all ]; then
		cp "$tmp/$name.ptx" "$exp"
		echo "blessed $exp: review it by hand before committing" >&2
	fi
	if [ ! -f "$exp" ]; then
		echo "SKIP golden/$name: no $exp yet (sh tests/suites/golden.sh --bless $name, then review)"
		continue
	fi
	if ! diff -u "$exp" "$tmp/$name.ptx" >"$tmp/$name.diff"; then
		echo "FAIL golden/$name: output differs from $exp"
		head -n 40 "$tmp/$name.diff"
		continue
	fi
	echo "PASS golden/$name"
	if [ -z "$ptxas" ]; then
		echo "SKIP golden/$name.ptxas: ptxas not found (set PTXAS or install the CUDA toolkit) - goldens NOT assembled"
		continue
	fi
	if ! "$ptxas" -arch="$target" "$exp" -o "$tmp/$name.cubin" \
		>"$tmp/$name.log" 2>&1 || [ -s "$tmp/$name.log" ]; then
		echo "FAIL golden/$name.ptxas: $(head -n 3 "$tmp/$name.log")"
	else
		echo "PASS golden/$name.ptxas"
	fi
done
[ "$ran" = 1 ] || echo "SKIP golden: no tests/golden/*.py"
exit 0
