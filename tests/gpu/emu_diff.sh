#!/bin/sh
# tests/gpu/emu_diff.sh - the emulator against the GPU (issue 15): every
# sm_90 example and GPU test kernel runs twice on the same inputs, with
# `ptxtile run --gpu` and `ptxtile run --emulate` (then again with
# --late), and every tensor afterwards is compared:
#   exact       bit for bit (integer work, copies, TMA, ldmatrix, IEEE
#               operations with one rounding)
#   f32:TOL     float32 tensors within TOL relative (|a - b| <= TOL *
#               max(1, |a|, |b|); NaN equals NaN): .approx functions
#               (ex2/lg2/rsqrt/tanh are the host's libm here, the ISA
#               bounds them at about 2^-22 and 2^-11), mma accumulation
#               order, and ptxas contracting mul + add into fma.
# Prints PASS/FAIL emu_diff/NAME lines; exit 77 when there is no GPU.
# EMU_DIFF_SELF=1 runs the emulator in place of the GPU (a check of this
# script itself on a machine without one).
# Run by tests/gpu/run.sh (make test-gpu) or alone:
#   BUILD=build sh tests/gpu/emu_diff.sh
BUILD=${BUILD:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
P="$BUILD/ptxtile"
[ -x "$P" ] || { echo "emu_diff: $P is missing; run make first" >&2; exit 2; }
out="$BUILD/emu_diff"
rm -rf "$out"
mkdir -p "$out"
GPU=--gpu
[ "${EMU_DIFF_SELF:-0}" = 1 ] && GPU=--emulate
if ! "$P" run $GPU tests/gpu/kernels/smem_reduce.py --target sm_90a \
	--fill zeros >"$out/probe.log" 2>&1; then
	echo "emu_diff: skipped - no usable GPU ($(tail -1 "$out/probe.log"))"
	exit 77
fi

# compare NAME DIR_A DIR_B MODE: every NAME.bin of DIR_A against DIR_B
compare() {
	name=$1 a=$2 b=$3 mode=$4
	fail=""
	for f in "$a"/*.bin; do
		t=$(basename "$f")
		if [ ! -f "$b/$t" ]; then fail="$fail $t(missing)"; continue; fi
		if cmp -s "$f" "$b/$t"; then continue; fi
		case $mode in
		f32:*)
			tol=${mode#f32:}
			bad=$(paste -d' ' "$a/$t.f32" "$b/$t.f32" 2>/dev/null |
				awk -v tol="$tol" '
				function abs(x) { return x < 0 ? -x : x }
				{ for (i = 1; i <= NF / 2; i++) {
					x = $i; y = $(i + NF / 2)
					if (x == y || (x ~ /nan/ && y ~ /nan/)) continue
					m = abs(x); if (abs(y) > m) m = abs(y); if (m < 1) m = 1
					if (abs(x - y) > tol * m) { n++; if (n == 1) first = NR ": " x " vs " y }
				} }
				END { if (n) print n " values differ, first " first }')
			[ -n "$bad" ] && fail="$fail $t($bad)"
			;;
		*)
			fail="$fail $t(differs at byte $(cmp "$f" "$b/$t" | awk '{print $5}'))"
			;;
		esac
	done
	if [ -z "$fail" ]; then echo "PASS emu_diff/$name"; else
		echo "FAIL emu_diff/$name:$fail"; fi
}

# as_f32 DIR: a text image (one value per line, 1 per row) of float32
# files next to each .bin, for the tolerance comparison
as_f32() {
	for f in "$1"/*.bin; do od -An -v -tf4 -w4 "$f" | tr -d ' ' >"$f.f32"; done
}

# case NAME MODE FILE [ptxtile run options...]
run_case() {
	name=$1 mode=$2 file=$3
	shift 3
	for how in gpu emulate late; do
		d="$out/$name.$how"
		mkdir -p "$d"
		case $how in
		gpu) set -- $GPU "$@" ;;
		emulate) set -- --emulate "$@" ;;
		late) set -- --emulate --late "$@" ;;
		esac
		if ! "$P" run "$@" "$file" --target sm_90a --dump-all "$d" \
			>"$d.log" 2>&1; then
			echo "FAIL emu_diff/$name: $how run failed: $(tail -1 "$d.log")"
			return
		fi
		shift
		[ "$how" = late ] && shift
		as_f32 "$d"
	done
	compare "$name" "$out/$name.gpu" "$out/$name.emulate" "$mode"
	compare "$name.late" "$out/$name.gpu" "$out/$name.late" "$mode"
}

K=tests/gpu/kernels
run_case cluster_copy exact examples/cluster_copy.py --fill random:1
run_case cp_async_zero_fill exact examples/cp_async_zero_fill.py \
	--fill random:2 --arg valid_rows=19
run_case ewise_silu f32:1e-5 examples/ewise_silu.py --fill random:3 \
	--size n=5000 --arg alpha=0.75
run_case ld_st exact examples/ld_st.py --fill random:4
run_case register_ops f32:1e-5 examples/register_ops.py --fill random:5
run_case saxpy_relu f32:1e-6 examples/saxpy_relu.py --fill random:6 \
	--size n=40000 --arg a=1.5
run_case tma_load_3d_steps exact examples/tma_load_3d_steps.py \
	--fill random:7 --size p=8
run_case tma_load_swizzle exact examples/tma_load_swizzle.py \
	--fill random:8 --size m=128
run_case tma_multicast exact examples/tma_multicast.py --fill random:9 \
	--size m=64 --size n=128
run_case tma_reduce_add exact examples/tma_reduce_add.py --fill random:10 \
	--size m=64
run_case tma_store exact examples/tma_store.py --fill random:11 --size m=64
for k in bulk_copy_gapped bulk_copy_compact; do
	run_case "$k" exact $K/bulk_copy_gapped.py --kernel "$k" --fill random:12
done
run_case cp_async_fill exact $K/cp_async_fill.py --fill random:13 \
	--arg valid_rows=20 --arg skip=3
run_case scalar_flow exact $K/scalar_flow.py --fill random:14
run_case smem_reduce exact $K/smem_reduce.py --fill random:15
run_case tile_ewise f32:1e-5 $K/tile_ewise.py --fill random:16 \
	--arg s=1.25 --arg b=-0.5
run_case tile_ldmatrix exact $K/tile_ldmatrix.py --fill random:17
run_case tile_ldst exact $K/tile_ldst.py --fill random:18
run_case tile_mma f32:1e-5 $K/tile_mma.py --arg A=random-bf16:19 \
	--arg B=random-bf16:20 --fill random:21
run_case tile_mma_k8 f32:1e-5 $K/tile_mma_k8.py --arg A=random-f16:22 \
	--arg B=random-f16:23 --fill random:24
run_case tile_regs f32:1e-5 $K/tile_regs.py --fill random:25
run_case tile_stmatrix exact $K/tile_stmatrix.py --fill random:26
for k in swz1 swz2 swz3 estride; do
	run_case "tma_$k" exact $K/tma_modes.py --kernel "$k" --fill random:27 \
		--arg r0=8 --arg c0=16
done
for k in oob_zero oob_nan; do
	run_case "tma_$k" f32:0 $K/tma_modes.py --kernel "$k" --fill random:28 \
		--arg r0=-3 --arg c0=20 --size m=40 --size k=36
done
# wgmma: examples/gemm_wgmma.py at 256 x 256 x 512 (two tiles, eight
# k-tiles through the 4-stage ring; stmatrix + TMA store epilogue) and at
# the ragged 129 x 264 x 72 (zero fill past every edge, stores clipped),
# examples/gemm_wgmma_direct.py at 256 x 256 x 512 and 129 x 257 x 72
# (masked b16 stores for odd N); multiples of 1/8 in [-4, 4) make every
# sum exact in f32, so C (bf16) must match bit for bit
run_case gemm_wgmma_small exact examples/gemm_wgmma.py --fill random:29 \
	--size M=256 --size N=256 --size K=512 --arg sms=132
run_case gemm_wgmma_ragged exact examples/gemm_wgmma.py --fill random:30 \
	--size M=129 --size N=264 --size K=72 --arg sms=132
run_case gemm_wgmma_direct_small exact examples/gemm_wgmma_direct.py \
	--fill random:29 --size M=256 --size N=256 --size K=512 --arg sms=132
run_case gemm_wgmma_direct_ragged exact examples/gemm_wgmma_direct.py \
	--fill random:30 --size M=129 --size N=257 --size K=72 --arg sms=132
