#!/bin/sh
# bench/attention/gpu.sh - the attention kernel's whole GPU part, from the
# repository root on the H200: builds the libraries, runs the GPU tests
# of ptxtile.kernels.attention (tests/python_gpu/test_attention.py and
# test_examples.py::test_attention_fwd, float32 torch references), then
# the benchmark (bench/attention/run.py: issue 24's suite against torch
# SDPA's backends, every output checked).  Prints pytest's summary, the
# benchmark's rows and table, and "attention GPU: PASS" or "FAIL"; exits
# 1 when a test or a benchmark check fails.
BUILD=${BUILD:-build}
root=$(pwd)
case "$BUILD" in /*) libdir=$BUILD ;; *) libdir=$root/$BUILD ;; esac
make -s -j${JOBS:-16} all pylib || { echo "attention GPU: FAIL (build)"; exit 1; }
export PTXTILE_LIB_DIR="$libdir" PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
rc=0
t0=$(date +%s)
${PYTHON:-python3} -m pytest -q -p no:cacheprovider \
	tests/python_gpu/test_attention.py \
	"tests/python_gpu/test_examples.py::test_attention_fwd" || rc=1
t1=$(date +%s)
echo "attention GPU tests: $((t1 - t0)) s"
${PYTHON:-python3} bench/attention/run.py "$@" || rc=1
echo "attention benchmark: $(($(date +%s) - t1)) s"
if [ $rc -eq 0 ]; then echo "attention GPU: PASS"; else echo "attention GPU: FAIL"; fi
exit $rc
