#!/bin/sh
# tests/suites/emu_fuzz.sh - the randomised differential generator
# (tools/emu_fuzz.py) on a CPU: a fixed seed set per family, the emulator
# against itself (eager against eager and late), every generated
# kernel's PTX through ptxas -arch=sm_90a, so the generator cannot rot
# between GPU runs.  Then the comparison itself: with --mutate (one bit
# of the emulator's output flipped) every family must FAIL.
# The H200 run of the same tool is in tests/gpu/run.sh.
BUILD=${BUILD:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP emu_fuzz: python3 is not installed"
	exit 0
fi
ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
pa=""
if [ -x "$ptxas" ]; then pa="--ptxas $ptxas"; else
	echo "SKIP emu_fuzz/ptxas: no ptxas (the kernels are not assembled)"; fi
python3 tools/emu_fuzz.py --build "$BUILD" --self --seeds 5 $pa 2>&1
rc=$?
[ $rc -ne 0 ] && echo "FAIL emu_fuzz: exit status $rc"
out=$(python3 tools/emu_fuzz.py --build "$BUILD" --self --seeds 2 --first 1 \
	--mutate 2>&1)
fams=$(python3 -c 'import sys; sys.path.insert(0, "tools"); import emu_fuzz; print(len(emu_fuzz.FAMILIES))')
nfail=$(printf '%s\n' "$out" | grep '^FAIL ' | sed 's/ seed=.*//' | sort -u | wc -l)
if [ "$nfail" -eq "$fams" ]; then
	echo "PASS emu_fuzz/mutate_detected"
else
	echo "FAIL emu_fuzz/mutate_detected: $nfail of $fams families reported the flipped bit"
	printf '%s\n' "$out" | grep -v '^FAIL ' | head -5
fi
