#!/bin/sh
# Differential test of the PTX form table against ptxas: $BUILD/ptxdiff
# samples PTXDIFF_N (default 2400) spellings with seed PTXDIFF_SEED
# (default 1), valid and mutated, for random targets; ptxas judges each
# one (two at a time); every disagreement is listed in a FAIL line.
# Justified exclusions (qualifier order/repeats, named ptxas quirks) are
# documented in tools/ptxdiff.c; PTXDIFF_VERBOSE=1 lists each excluded
# sample, PTXDIFF_KEEP=DIR keeps the kernels and ptxas logs.
BUILD=${BUILD:-build}
PTXAS=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
if [ ! -x "$PTXAS" ]; then
	echo "SKIP ptx_diff: ptxas not found (set PTXAS); the form table is NOT checked against ptxas"
	exit 0
fi
if [ ! -x "$BUILD/ptxdiff" ]; then
	echo "FAIL ptx_diff: $BUILD/ptxdiff not built"
	exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$BUILD/ptxdiff" gen "$dir" "${PTXDIFF_SEED:-1}" "${PTXDIFF_N:-2400}" || {
	echo "FAIL ptx_diff: sample generation failed"; exit 0; }
export PTXAS
ls "$dir"/*.ptx | xargs -P2 -n 50 sh -c '
	for f; do
		a=$(sed -n "1s,^// ,,p" "$f")
		if "$PTXAS" -arch="$a" "$f" -o /dev/null >"${f%.ptx}.log" 2>&1; then
			echo "$f 1"
		else
			echo "$f 0"
		fi
	done' sh > "$dir/results"
"$BUILD/ptxdiff" check "$dir"
if [ -n "$PTXDIFF_KEEP" ]; then rm -rf "$PTXDIFF_KEEP"; cp -r "$dir" "$PTXDIFF_KEEP"; fi
