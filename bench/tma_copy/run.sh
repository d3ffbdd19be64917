#!/bin/sh
# bench/tma_copy/run.sh - compiles tma_copy.py with ptxtile, builds the
# driver against libptxtile_rt.a and runs it: TMA copy (load to shared,
# store back) against cuMemcpyDtoD over >= 2 GiB in the same process.
# Usage (repo root, after make): sh bench/tma_copy/run.sh [GiB] [iters]
# Exit 77 without a GPU.
BUILD=${BUILD:-build}
CC=${CC:-cc}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
out="$BUILD/bench"
mkdir -p "$out"
"$BUILD/ptxtile" compile bench/tma_copy/tma_copy.py --target sm_90a \
	-o "$out/tma_copy.ptx" --meta "$out/tma_copy.json" || exit 1
$CC -std=c11 -O2 -Wall -Wextra -Iinclude bench/tma_copy/tma_copy.c \
	"$BUILD/libptxtile_rt.a" -ldl -lm -o "$out/tma_copy" || exit 1
exec "$out/tma_copy" "$out/tma_copy.ptx" "$out/tma_copy.json" "${1:-2}" \
	"${2:-20}"
