#!/bin/sh
# bench/gemm/run.sh - builds and runs the GEMM benchmark on a GPU host
# (from the repository root):
#   ptxtile PTX of examples/gemm_bf16.py, nvcc cubin of the twin, then
#   bench.py compares tile, twin, torch.matmul and the mma.sync peak in
#   one process.  PYTHON defaults to python3 (needs torch with CUDA).
set -e
BUILD=${BUILD:-build}
mkdir -p "$BUILD/bench"
make -s all
"$BUILD/ptxtile" compile examples/gemm_bf16.py --target sm_90a \
	-o "$BUILD/bench/gemm_tile.ptx"
nvcc -cubin -arch=sm_90a -O3 -o "$BUILD/bench/gemm_twin.cubin" \
	bench/gemm/gemm_twin.cu
${PYTHON:-python3} bench/gemm/bench.py "$BUILD/bench/gemm_tile.ptx" \
	"$BUILD/bench/gemm_twin.cubin" "$@"
