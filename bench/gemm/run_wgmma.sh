#!/bin/sh
# bench/gemm/run_wgmma.sh - builds and runs the multi-size Hopper GEMM
# benchmark on a GPU host (from the repository root): the ptxtile
# libraries (make) and the nvcc cubin of the CUDA C++ twin, then
# bench/gemm/sizes.py compiles examples/gemm_wgmma.py and
# examples/gemm_bf16.py per size (and examples/gemm_wgmma_direct.py, the
# direct-store epilogue, against the -DEPI_DIRECT twin) with the ptxtile package (python/, found
# through PYTHONPATH, libraries in $BUILD) and compares them with the twin
# and torch.matmul in one process.  PYTHON defaults to python3 (needs
# torch with CUDA); GEMM_SIZES="MxNxK,..." limits the sizes.
set -e
BUILD=${BUILD:-build}
root=$(pwd)
mkdir -p "$BUILD/bench"
make -s all
nvcc -cubin -gencode=arch=compute_90a,code=sm_90a -O3 \
	-o "$BUILD/bench/gemm_wgmma_twin.cubin" bench/gemm/gemm_wgmma_twin.cu
nvcc -cubin -gencode=arch=compute_90a,code=sm_90a -O3 -DEPI_DIRECT \
	-o "$BUILD/bench/gemm_wgmma_twin_direct.cubin" \
	bench/gemm/gemm_wgmma_twin.cu
case "$BUILD" in /*) libdir=$BUILD ;; *) libdir=$root/$BUILD ;; esac
PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" PTXTILE_LIB_DIR="$libdir" \
	${PYTHON:-python3} bench/gemm/sizes.py "$BUILD" \
	"$BUILD/bench/gemm_wgmma_twin.cubin" \
	"$BUILD/bench/gemm_wgmma_twin_direct.cubin" "$@"
