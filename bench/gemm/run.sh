#!/bin/sh
# bench/gemm/run.sh - builds and runs the GEMM benchmark on a GPU host
# (from the repository root): the ptxtile libraries (make) and the nvcc
# cubin of the twin, then bench.py compiles examples/gemm_bf16.py with
# the ptxtile package (python/, found through PYTHONPATH, libraries in
# $BUILD) and compares tile, twin, torch.matmul and the mma.sync peak in
# one process.  PYTHON defaults to python3 (needs torch with CUDA).
set -e
BUILD=${BUILD:-build}
root=$(pwd)
mkdir -p "$BUILD/bench"
make -s all
nvcc -cubin -arch=sm_90a -O3 -o "$BUILD/bench/gemm_twin.cubin" \
	bench/gemm/gemm_twin.cu
case "$BUILD" in /*) libdir=$BUILD ;; *) libdir=$root/$BUILD ;; esac
PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" PTXTILE_LIB_DIR="$libdir" \
	${PYTHON:-python3} bench/gemm/bench.py examples/gemm_bf16.py \
	"$BUILD/bench/gemm_twin.cubin" "$@"
