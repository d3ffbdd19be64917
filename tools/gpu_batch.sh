#!/bin/sh
# tools/gpu_batch.sh [tests|bench|mgpu|micro|all] - everything that needs the GPU, in
# at most two commands of under ten minutes each (the GPU host is lent for
# short sessions).  From the repository root on a GPU host:
#   tests  build; tests/gpu/run.sh (C GPU tests, the Python package's GPU
#          tests - every example, ptxtile.kernels matmul / attention /
#          fp8_matmul against torch float32 references, torch.compile,
#          CUDA graphs, autotune -, the emulator against the GPU, the
#          randomised differential with EMU_FUZZ_SEEDS kernels per family,
#          the host example) and the device printf / assert test
#   bench  the benchmarks, each checking its outputs: the GEMM shape
#          suite (bench/gemm/suite.py), attention (bench/attention/run.py),
#          FP8 (bench/fp8/run.py), Python launch overhead
#          (bench/python_launch.py)
#   mgpu   the multi-GPU kernels against NCCL (bench/mgpu/run.py: one
#          process per GPU; says so and measures nothing with one GPU)
#   micro  the earlier micro-benchmarks: tile copy, TMA copy, and the
#          GEMM examples against their CUDA C++ twins (bench/gemm/run.sh)
# Logs go to ${LOGS:-build/gpu-batch}; each part prints its summary lines.
# Exit status: non-zero when a test or a benchmark's check failed.
part=${1:-all}
LOGS=${LOGS:-build/gpu-batch}
BUILD=${BUILD:-build}
export BUILD
root=$(pwd)
mkdir -p "$LOGS"
export PYTHONUNBUFFERED=1 PYTHONPATH="$root/python" \
	PTXTILE_LIB_DIR="$root/$BUILD" \
	PTXTILE_CACHE_DIR="${PTXTILE_CACHE_DIR:-$root/$BUILD/gpu-cache}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader \
	>"$LOGS/device.txt" 2>&1
cat "$LOGS/device.txt"
make -s -j"$(nproc)" all >"$LOGS/build.log" 2>&1 || {
	echo "build failed"; tail -20 "$LOGS/build.log"; exit 1; }
rc=0
# step NAME SECONDS COMMAND...: COMMAND's output in $LOGS/NAME.log, its
# last lines printed; a failure (or running past SECONDS) sets rc
step() {
	name=$1 secs=$2
	shift 2
	echo "== $name ($(date -u +%H:%M:%S))"
	timeout "$secs" "$@" >"$LOGS/$name.log" 2>&1
	s=$?
	[ $s -eq 0 ] || { rc=1; echo "FAIL $name: exit $s"; }
}
if [ "$part" = tests ] || [ "$part" = all ]; then
	export EMU_FUZZ_SEEDS="${EMU_FUZZ_SEEDS:-10}"
	step test-gpu 420 sh tests/gpu/run.sh
	grep -E '^FAIL ' "$LOGS/test-gpu.log"
	tail -1 "$LOGS/test-gpu.log"
	step printf 60 sh tests/gpu/printf_gpu.sh
	tail -3 "$LOGS/printf.log"
fi
if [ "$part" = bench ] || [ "$part" = all ]; then
	step gemm 170 python3 bench/gemm/suite.py
	grep -E '^\||^#|PASS|FAIL' "$LOGS/gemm.log" | tail -30
	# the autotuner's timings of each variant go to the log (stderr):
	# what kernels.attention picked, and why
	step attention 120 env PTXTILE_AUTOTUNE_PRINT=1 \
		python3 bench/attention/run.py --rounds 3
	sed -n '/^| config/,$p' "$LOGS/attention.log"
	step fp8 150 python3 bench/fp8/run.py --rounds 3 --budget 80
	grep -E '^\|' "$LOGS/fp8.log" | head -70
	tail -3 "$LOGS/fp8.log"
	step launch 60 python3 bench/python_launch.py
	grep -E '^\||target' "$LOGS/launch.log"
fi
if [ "$part" = mgpu ] || [ "$part" = all ]; then
	# NVLink multicast stays off (run.py sets these too)
	NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
		NVSHMEM_DISABLE_NVLS=1 step mgpu 480 python3 bench/mgpu/run.py
	grep -E '^\||^#|PASS|FAIL|SKIP' "$LOGS/mgpu.log"
fi
if [ "$part" = micro ] || [ "$part" = all ]; then
	echo "== tile copy"
	"$BUILD/ptxtile" compile bench/tile_copy.py --target sm_90a \
		-o "$BUILD/tile_copy.ptx" &&
		nvcc -O3 -arch=sm_90a -o "$BUILD/tile_copy" bench/tile_copy.cu -lcuda &&
		"$BUILD/tile_copy" "$BUILD/tile_copy.ptx" 20 >"$LOGS/tile_copy.log" 2>&1
	cat "$LOGS/tile_copy.log"
	echo "== TMA copy"
	sh bench/tma_copy/run.sh 2 20 >"$LOGS/tma_copy.log" 2>&1
	cat "$LOGS/tma_copy.log"
	echo "== GEMM examples and twins"
	sh bench/gemm/run.sh >"$LOGS/gemm_examples.log" 2>&1
	cat "$LOGS/gemm_examples.log"
fi
exit $rc
