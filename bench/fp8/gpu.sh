#!/bin/sh
# bench/fp8/gpu.sh - everything of the FP8 GEMM that needs the GPU, in one
# command from the repository root on the H200: build the libraries, the
# GPU tests of tests/python_gpu/test_fp8.py (pytest, torch references),
# then bench/fp8/run.py (the issue-25 shape suite against
# torch._scaled_mm).  Exit status 1 when the build, a test or a result
# fails.  Options pass through to run.py (--quick, --rounds N,
# --budget S).
BUILD=${BUILD:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
make -s -j"$(nproc)" >/dev/null || { echo "FAIL build"; exit 1; }
export PTXTILE_LIB_DIR="$root/$BUILD" PYTHONPATH="$root/python"
echo "== tests/python_gpu/test_fp8.py"
log=$(mktemp)
# bounded: a kernel that hangs must not take the benchmark's time
timeout "${FP8_TEST_TIMEOUT:-90}" python3 -m pytest -q -rs -p no:cacheprovider tests/python_gpu/test_fp8.py >"$log" 2>&1
t=$?
tail -60 "$log"
rm -f "$log"
[ "$t" -eq 0 ] && echo "PASS test_fp8.py" || echo "FAIL test_fp8.py (pytest exit $t)"
echo "== bench/fp8/run.py"
python3 bench/fp8/run.py "$@"
b=$?
[ "$b" -eq 0 ] || echo "FAIL bench/fp8/run.py exit $b"
[ "$t" -eq 0 ] && [ "$b" -eq 0 ]
