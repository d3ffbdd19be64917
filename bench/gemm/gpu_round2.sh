#!/bin/sh
# bench/gemm/gpu_round2.sh - the GEMM GPU job in one command (repository
# root): run_suite.sh --quick (build, GPU tests, the quick suite rows),
# then, best effort, ncu on one 64 x 4096 x 4096 launch of ours and of
# torch (its failure does not fail the job).
rc=0
timeout 120 sh bench/gemm/run_suite.sh --quick || rc=1
export PYTHONPATH="$(pwd)/python" PTXTILE_LIB_DIR="$(pwd)/build"
export PTXTILE_CACHE_DIR="$(pwd)/build/gemm-cache"
if command -v ncu >/dev/null 2>&1; then
	# tune first (the choice lands in the cache's gemm_tune.json), so
	# the profiled process launches only the chosen configuration
	timeout 20 python3 bench/gemm/profile_decode.py 64 4096 4096 || true
	timeout 30 ncu --clock-control none -k 'regex:gemm|nvjet|sm90|cutlass' \
		-c 6 --section SpeedOfLight --section LaunchStats \
		--section Occupancy python3 bench/gemm/profile_decode.py \
		64 4096 4096 2>&1 | grep -v '^==PROF==' | head -150 || true
fi
exit $rc
