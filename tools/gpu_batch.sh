#!/bin/sh
# tools/gpu_batch.sh - everything that needs the GPU, in one run (the GPU
# host is lent for short sessions): build, the GPU tests, then the GPU
# benchmarks (tile copy, TMA copy, GEMM).  Logs go to ${OUT:-build/gpu-batch}.
# Usage from the repository root on a GPU host: sh tools/gpu_batch.sh
OUT=${OUT:-build/gpu-batch}
BUILD=${BUILD:-build}
export BUILD
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader \
	>"$OUT/device.txt" 2>&1
make -s -j"$(nproc)" all >"$OUT/build.log" 2>&1 || {
	echo "build failed"; tail -20 "$OUT/build.log"; exit 1; }
echo "== make test-gpu"
sh tests/gpu/run.sh >"$OUT/test-gpu.log" 2>&1
echo "test-gpu exit $?"
grep -E '^(PASS|FAIL|SKIP) ' "$OUT/test-gpu.log"
tail -1 "$OUT/test-gpu.log"
echo "== bench: tile copy"
"$BUILD/ptxtile" compile bench/tile_copy.py --target sm_90a \
	-o "$BUILD/tile_copy.ptx" &&
	nvcc -O3 -arch=sm_90a -o "$BUILD/tile_copy" bench/tile_copy.cu -lcuda &&
	"$BUILD/tile_copy" "$BUILD/tile_copy.ptx" 20 >"$OUT/tile_copy.log" 2>&1
cat "$OUT/tile_copy.log"
echo "== bench: TMA copy"
sh bench/tma_copy/run.sh 2 20 >"$OUT/tma_copy.log" 2>&1
cat "$OUT/tma_copy.log"
echo "== bench: GEMM"
sh bench/gemm/run.sh >"$OUT/gemm.log" 2>&1
cat "$OUT/gemm.log"
