#!/bin/sh
# tests/python_gpu/run.sh - the GPU tests of the Python package (pytest +
# torch), "PASS gpu/python/..." lines; run by tests/gpu/run.sh.  Exit 77
# (skip) without torch or a CUDA device.  With PTXTILE_TEST_INSTALLED=1
# the installed package (pip install .) is tested instead of python/.
BUILD=${BUILD:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
if ! python3 -c 'import pytest, torch; assert torch.cuda.is_available()' \
	>/dev/null 2>&1; then
	echo "SKIP gpu/python: needs pytest, torch and a CUDA device"
	exit 77
fi
PY_TESTS=tests/python_gpu PY_PREFIX=gpu/python sh tests/suites/python.sh
