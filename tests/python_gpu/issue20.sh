#!/bin/sh
# tests/python_gpu/issue20.sh - the GPU part of issue 20 in one command,
# from the repository root of a GPU host with torch:
#   1. builds the libraries (make all),
#   2. runs the Python GPU tests (tests/python_gpu: every example through
#      the package, interop with streams and CUDA graphs - the launch fast
#      path is on every call there -, ptxtile.kernels.matmul against torch,
#      under torch.compile(fullgraph=True) and in CUDA graph capture, and
#      autotune on the device with its reload in a fresh process), one
#      PASS/FAIL line each,
#   3. runs bench/python_launch.py (writes bench/python_launch.md): launch
#      overhead against torch's add_ and Triton, and kernels.matmul
#      against the direct example call, with MET / NOT MET target lines.
# Exit status: 0 when every test passed and the benchmark ran (a NOT MET
# target is reported, not a failure); 1 otherwise; 2 when the build
# fails.
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
make -j"$(nproc 2>/dev/null || echo 4)" all >/tmp/issue20-build.log 2>&1 || {
	tail -20 /tmp/issue20-build.log
	echo "FAIL build (log: /tmp/issue20-build.log)"
	exit 2
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
BUILD=build sh tests/python_gpu/run.sh | tee "$out"
rc=0
grep -q '^FAIL ' "$out" && rc=1
grep -q '^PASS ' "$out" || rc=1
echo "python GPU tests: $(grep -c '^PASS ' "$out") passed, $(grep -c '^FAIL ' "$out") failed, $(grep -c '^SKIP ' "$out") skipped"
echo "== bench/python_launch.py"
PTXTILE_LIB_DIR="$root/build" PYTHONPATH="$root/python" \
	python3 bench/python_launch.py bench/python_launch.md || rc=1
[ $rc -eq 0 ] && echo "issue20: PASS" || echo "issue20: FAIL"
exit $rc
