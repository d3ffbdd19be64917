#!/bin/sh
# bench/attention/batch.sh - the attention part of the coordinator's GPU
# batch (at most 180 s): gpu.sh (build, GPU tests, benchmark with
# --rounds 2; its exit status is this script's), then an ncu profile of
# the d128 8x16x4096 n128 ping-pong variant into $OUT/attn/ncu.txt (its
# failure does not fail the batch; its last lines are printed).
out=${OUT:-/tmp}/attn
mkdir -p "$out"
PYTHONUNBUFFERED=1 timeout 140 sh bench/attention/gpu.sh --rounds 2
rc=$?
echo "gpu.sh exit status: $rc"
PTXTILE_LIB_DIR=$(pwd)/build PYTHONPATH=$(pwd)/python timeout 30 "$(command -v ncu || echo /usr/local/cuda/bin/ncu)" \
	--clock-control none -k regex:attention_fwd --launch-skip 1 -c 1 \
	--section SpeedOfLight --section WarpStateStats \
	--section ComputeWorkloadAnalysis --section Occupancy \
	python3 bench/attention/ncu_one.py > "$out/ncu.txt" 2>&1
echo "ncu exit status: $?"
tail -n 120 "$out/ncu.txt"
exit $rc
