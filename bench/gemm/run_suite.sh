#!/bin/sh
# bench/gemm/run_suite.sh - issue 23's GEMM work on a GPU host, from the
# repository root, in one command: builds the libraries (make pylib),
# runs the GPU tests of the GEMM family (tests/python_gpu/
# test_gemm_kernels.py: every candidate configuration of several shapes
# against torch float32 products), then the shape suite
# (bench/gemm/suite.py, arguments passed on).  Exit status non-zero when
# a test or a suite check fails.  PYTHON defaults to python3 (torch with
# CUDA, pytest).
set -e
BUILD=${BUILD:-build}
root=$(pwd)
make -s -j"$(nproc 2>/dev/null || echo 4)" pylib
case "$BUILD" in /*) libdir=$BUILD ;; *) libdir=$root/$BUILD ;; esac
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
export PTXTILE_LIB_DIR="$libdir"
export PTXTILE_CACHE_DIR="${PTXTILE_CACHE_DIR:-$root/$BUILD/gemm-cache}"
rc=0
${PYTHON:-python3} -m pytest -q -p no:cacheprovider -rf \
	tests/python_gpu/test_gemm_kernels.py || rc=1
${PYTHON:-python3} bench/gemm/suite.py "$@" || rc=1
exit $rc
