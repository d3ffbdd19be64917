#!/bin/sh
# `ptxtile run --emulate` (docs/emulator.md): a script and a .ptx with its
# metadata run in the emulator, tensors dumped as text and as bytes; the
# expected values are worked out by hand below from what each script
# computes.  Exit status 0 on success, 1 when the kernel or its PTX fails
# in the emulator (E95xx on stderr), 2 for usage errors.
BUILD=${BUILD:-build}
P="$BUILD/ptxtile"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ok() { echo "PASS emu/$1"; }
bad() { echo "FAIL emu/$1: $2"; }
expect_rc() { # name want command...
	name=$1 want=$2
	shift 2
	"$@" >"$t/out" 2>"$t/err"
	rc=$?
	if [ "$rc" -eq "$want" ]; then ok "$name"; else
		bad "$name" "exit $rc, expected $want: $(head -2 "$t/err")"; fi
}

expect_rc help 0 "$P" run --help
grep -q "^usage: ptxtile run --emulate" "$t/out" || bad help_text "no usage line"
expect_rc no_emulate 2 "$P" run tests/golden/scalars.py
expect_rc ptx_without_meta 2 "$P" run --emulate "$t/x.ptx"
expect_rc missing_scalar 2 "$P" run --emulate tests/golden/scalars.py

# tests/golden/scalars.py with n = 7, u = 9:
#   I = 7 // 3, 7 % 3, 7 / 3 (C division), 9 // 3 + 9 % 7,
#       (7 << 2) ^ (7 >> 1) | (7 & 5) = 28 ^ 3 | 5 = 31, int8(7) + 100
#   A[0] = bf16(f16(7) * 1.5) + 2 = 12.5, A[4] = 7 (n > 3 and u != 0)
expect_rc scalars 0 "$P" run --emulate tests/golden/scalars.py --arg n=7 \
	--arg u=9 --dump I --dump A
if grep -q "^I: 2 1 2 5 31 107 0 0 0 0 0 0 0 0 0 0$" "$t/out" &&
   grep -q "^A: 12.5 2.33333325 [0-9.]* [0-9.]* 7 0 " "$t/out"; then
	ok scalars_values
else
	bad scalars_values "$(cat "$t/out")"
fi

# literals wider than their neighbour widen the sum (values worked out
# in the script's header): the old wrapping gave -1294967296 244 2 120
expect_rc literal_widening 0 "$P" run --emulate \
	tests/hostile/accept/literal_widening.py --arg n=200 --dump A
if grep -q "^A: 3000000000 500 1 1144$" "$t/out"; then
	ok literal_widening_values
else
	bad literal_widening_values "$(cat "$t/out")"
fi

# the same kernel as PTX + metadata, the tensor dumped as raw bytes
"$P" compile tests/golden/scalars.py -o "$t/s.ptx" --meta "$t/s.json" 2>/dev/null
expect_rc ptx_meta 0 "$P" run --emulate "$t/s.ptx" --meta "$t/s.json" \
	--arg n=-8 --arg u=1 --dump "I=$t/i.bin"
# -8 // 3 = -3, -8 % 3 = 1, -8 / 3 = -2 (C), 0 + 1 = 1
if [ "$(od -An -tx4 -N16 "$t/i.bin" | tr -s ' ')" = \
     " fffffffd 00000001 fffffffe 00000001" ]; then ok ptx_meta_bytes; else
	bad ptx_meta_bytes "$(od -An -tx4 -N16 "$t/i.bin")"; fi

# a cluster copy with every async completion delayed to its wait: B == A
expect_rc cluster_late 0 "$P" run --emulate examples/cluster_copy.py \
	--target sm_90a --arg A=iota --late --dump B
grep -q "^B: 0 1 2 3 4 5 6 7 8 " "$t/out" || bad cluster_late_values "$(head -c 200 "$t/out")"

# input files: exact size, or a usage error
head -c 256 /dev/zero >"$t/a.bin"
expect_rc file_arg 0 "$P" run --emulate examples/cluster_copy.py \
	--target sm_90a --arg A=file:"$t/a.bin"
head -c 100 /dev/zero >"$t/short.bin"
expect_rc file_arg_size 2 "$P" run --emulate examples/cluster_copy.py \
	--target sm_90a --arg A=file:"$t/short.bin"

# PTX the emulator cannot read, and a kernel that fails in it
printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tbogus.op;\n}\n' >"$t/b.ptx"
printf '{"format": "ptxtile-meta", "version": 1, "target": "sm_90", "kernels": [{"name": "k", "params": [], "launch": {"grid": [1, 1, 1], "block": [32, 1, 1], "dynamic_smem": 0}}]}\n' >"$t/b.json"
expect_rc bad_ptx 1 "$P" run --emulate "$t/b.ptx" --meta "$t/b.json"
grep -q "error\[E9502\]: PTX line 6" "$t/err" && ok bad_ptx_code || bad bad_ptx_code "$(cat "$t/err")"
printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t.reg .pred %%p<2>;\n\t.reg .b32 %%r<2>;\n\tmov.u32 %%r1, %%tid.x;\n\tsetp.eq.u32 %%p1, %%r1, 0;\n\t@%%p1 bra $L1;\n\tbar.sync 0;\n\tret;\n$L1:\n\tbar.sync 1;\n\tret;\n}\n' >"$t/d.ptx"
expect_rc deadlock 1 "$P" run --emulate "$t/d.ptx" --meta "$t/b.json"
grep -q "error\[E9506\]: CTA (0,0,0) thread (0,0,0), PTX line 14 (bar.sync)" "$t/err" &&
	ok deadlock_message || bad deadlock_message "$(cat "$t/err")"

# --check-races: every thread writes shared word 0, no barrier
printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %%r<2>;\n\t.shared .align 4 .b8 s[4];\n\tmov.u32 %%r1, %%tid.x;\n\tst.shared.u32 [s], %%r1;\n\tret;\n}\n' >"$t/r.ptx"
expect_rc race_unchecked 0 "$P" run --emulate "$t/r.ptx" --meta "$t/b.json"
expect_rc race 1 "$P" run --emulate "$t/r.ptx" --meta "$t/b.json" --check-races
grep -q "error\[E9509\]: CTA (0,0,0) thread (1,0,0), PTX line 9 (st.shared.u32): shared-memory race" "$t/err" &&
	ok race_message || bad race_message "$(cat "$t/err")"

# Race check through warp collectives (issue 22): a collective orders its
# own member lanes, never another warp or the lanes outside its mask.
# 64 threads; thread W writes shared word 0, then shuffles (one full-warp
# shfl, or one per half warp with the half's mask), then thread 0 reads it
race_ptx() { # writer-tid full|half
	if [ "$2" = half ]; then
		sh='\tand.b32 %%r3, %%r1, 31;\n\tsetp.lt.u32 %%p2, %%r3, 16;\n\t@%%p2 shfl.sync.bfly.b32 %%r2, %%r1, 1, 15, 0x0000ffff;\n\t@!%%p2 shfl.sync.bfly.b32 %%r2, %%r1, 1, 15, 0xffff0000;\n'
	else
		sh='\tshfl.sync.bfly.b32 %%r2, %%r1, 1, 31, 0xffffffff;\n'
	fi
	printf ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t.reg .pred %%p<3>;\n\t.reg .b32 %%r<4>;\n\t.shared .align 4 .b8 s[4];\n\tmov.u32 %%r1, %%tid.x;\n\tsetp.eq.u32 %%p1, %%r1, $1;\n\t@%%p1 st.shared.u32 [s], %%r1;\n$sh\tsetp.eq.u32 %%p1, %%r1, 0;\n\t@%%p1 ld.shared.u32 %%r3, [s];\n\tret;\n}\n" >"$t/wr.ptx"
}
printf '{"format": "ptxtile-meta", "version": 1, "target": "sm_90", "kernels": [{"name": "k", "params": [], "launch": {"grid": [1, 1, 1], "block": [64, 1, 1], "dynamic_smem": 0}}]}\n' >"$t/b64.json"
race_ptx 1 full
expect_rc race_shfl_same_warp 0 "$P" run --emulate "$t/wr.ptx" --meta "$t/b64.json" --check-races
race_ptx 33 full
expect_rc race_shfl_other_warp 1 "$P" run --emulate "$t/wr.ptx" --meta "$t/b64.json" --check-races
grep -q "error\[E9509\]: CTA (0,0,0) thread (0,0,0), PTX line 14 (ld.shared.u32): .* thread (33,0,0) of CTA rank 0 wrote it at PTX line 11 (st.shared.u32)" "$t/err" &&
	ok race_shfl_other_warp_message || bad race_shfl_other_warp_message "$(cat "$t/err")"
race_ptx 5 half
expect_rc race_shfl_same_half 0 "$P" run --emulate "$t/wr.ptx" --meta "$t/b64.json" --check-races
race_ptx 17 half
expect_rc race_shfl_other_half 1 "$P" run --emulate "$t/wr.ptx" --meta "$t/b64.json" --check-races
grep -q "error\[E9509\]: .* PTX line 17 (ld.shared.u32): .* thread (17,0,0) of CTA rank 0 wrote it at PTX line 11" "$t/err" &&
	ok race_shfl_other_half_message || bad race_shfl_other_half_message "$(cat "$t/err")"

# The racy softmax (tests/races/softmax_racy.py): lane 0 of each warp
# reuses its shared slot for the sum while the other warp may still read
# it for the max, with only shuffles between.  Reported with both script
# lines (the write, line 32; the other warp's read, line 25) in either
# order; the fixed version (a barrier after the reads) runs clean and
# gives softmax(0..63): Y[i] = e^(i-63) / sum_j e^(j-63), within 1e-5
# relative (T.exp is ex2.approx: 3.3e-6 measured)
expect_rc race_softmax 1 "$P" run --emulate tests/races/softmax_racy.py --check-races --lineinfo
if grep -q "error\[E9509\]: .* at tests/races/softmax_racy.py:\(32\|25\): shared-memory race .* at tests/races/softmax_racy.py:\(32\|25\) with no" "$t/err" &&
   grep -q "softmax_racy.py:32" "$t/err" && grep -q "softmax_racy.py:25" "$t/err"; then
	ok race_softmax_lines; else bad race_softmax_lines "$(cat "$t/err")"; fi
expect_rc race_softmax_unchecked 0 "$P" run --emulate tests/races/softmax_racy.py
expect_rc race_softmax_fixed 0 "$P" run --emulate tests/races/softmax_fixed.py --check-races \
	--arg X=iota --dump Y
if tr ' ' '\n' <"$t/out" | grep -v '^Y:$' | grep -v '^$' | awk '
	BEGIN { for (j = 0; j < 64; j++) s += exp(j - 63) }
	{ want = exp(NR - 1 - 63) / s; d = $1 - want; if (d < 0) d = -d
	  if (d > 1e-5 * want) bad = 1; n++ }
	END { exit !(n == 64 && !bad) }'; then ok race_softmax_fixed_values
else bad race_softmax_fixed_values "$(head -c 300 "$t/out")"; fi

# tests/golden/tile_wgmma.py: every wgmma form ptxtile emits (bf16/f16/
# tf32/e4m3xe5m2/s8xu8, A in registers and from descriptors, MN-major B,
# negation, .satfinite) and setmaxnreg, with ptxtile's own descriptors,
# run eager and late; its mbarrier wait (a spelling test on a barrier
# nobody initialises) is dropped first
"$P" compile tests/golden/tile_wgmma.py -o "$t/w.ptx" --meta "$t/w.json" 2>/dev/null
grep -v "mbarrier.try_wait" "$t/w.ptx" >"$t/w2.ptx"
expect_rc wgmma_golden 0 "$P" run --emulate "$t/w2.ptx" --meta "$t/w.json" --arg flag=1
expect_rc wgmma_golden_late 0 "$P" run --emulate "$t/w2.ptx" --meta "$t/w.json" \
	--arg flag=0 --late --check-races
# ... and with its wait kept, the uninitialised barrier is an E9508
expect_rc wgmma_golden_mbar 1 "$P" run --emulate "$t/w.ptx" --meta "$t/w.json" --arg flag=1
grep -q "error\[E9508\]" "$t/err" && ok wgmma_golden_mbar_code ||
	bad wgmma_golden_mbar_code "$(cat "$t/err")"

# --lineinfo: the script is compiled with .file/.loc, and an emulator
# report names the script line as well as the PTX line.  Stopped by the
# step limit inside saxpy_relu's grid-stride loop (script lines 19-25:
# while, the body, the increment), the instruction is one of those lines
"$P" run --emulate examples/saxpy_relu.py --size n=100000 --arg a=2 \
	--max-steps 1000 --lineinfo >"$t/out" 2>"$t/err"
if grep -q "error\[E9507\]: .*PTX line [0-9]* ([a-z0-9.]*) at examples/saxpy_relu.py:\(19\|2[0-5]\): " "$t/err"; then
	ok lineinfo_step_limit; else bad lineinfo_step_limit "$(cat "$t/err")"; fi
expect_rc lineinfo_needs_script 2 "$P" run --emulate "$t/w.ptx" --meta "$t/w.json" --lineinfo

# The hand-written tcgen05 kernels of tests/unit/test_emu_tcgen05.c (the
# block-scaled/f8f6f4/i8/MN-major/.ws/decompression forms the emulator
# runs) must be PTX the real assembler accepts for sm_100a.
tcptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
if [ -x "$tcptxas" ] && [ -x "$BUILD/unit_tests" ]; then
	mkdir -p "$t/tc"
	EMU_TC_DUMP="$t/tc" "$BUILD/unit_tests" emu_tcgen05_ >/dev/null 2>&1
	n=0 fails=0
	for f in "$t"/tc/*.ptx; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		"$tcptxas" -arch=sm_100a "$f" -o "$t/tc.cubin" >"$t/tc.log" 2>&1 &&
			[ ! -s "$t/tc.log" ] || { fails=$((fails + 1));
			echo "  $(basename "$f"): $(head -2 "$t/tc.log")"; }
	done
	if [ "$n" -gt 0 ] && [ "$fails" -eq 0 ]; then ok tcgen05_kernels_ptxas
	else bad tcgen05_kernels_ptxas "$fails of $n rejected"; fi
else
	echo "SKIP emu/tcgen05_kernels_ptxas: no ptxas or unit_tests"
fi

# Issue 22's raw forms, which the emulator runs: the kernels of
# tests/unit/test_emu_tirx.c must be PTX ptxas takes for sm_100a ...
if [ -x "$tcptxas" ] && [ -x "$BUILD/unit_tests" ]; then
	mkdir -p "$t/tirx"
	EMU_TIRX_DUMP="$t/tirx" "$BUILD/unit_tests" emu_tirx_ >/dev/null 2>&1
	n=0 fails=0
	for f in "$t"/tirx/*.ptx; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		"$tcptxas" -arch=sm_100a "$f" -o "$t/tirx.cubin" >"$t/tirx.log" 2>&1 &&
			[ ! -s "$t/tirx.log" ] || { fails=$((fails + 1));
			echo "  $(basename "$f"): $(head -2 "$t/tirx.log")"; }
	done
	if [ "$n" -gt 0 ] && [ "$fails" -eq 0 ]; then ok tirx_kernels_ptxas
	else bad tirx_kernels_ptxas "$fails of $n rejected"; fi
else
	echo "SKIP emu/tirx_kernels_ptxas: no ptxas or unit_tests"
fi
# ... and tests/ptxforms/fns_movmatrix.py runs through the CLI.  With A =
# iota lane l reads x = 2l and writes A[l, 0] = fns(x, 0, l % 4) (the
# (l%4)-th set bit of x from bit 0; offset 0: bit 0 itself) and A[l, 1]
# = movmatrix(x): rows 2(l%4) and 2(l%4)+1 of column l/4, where row r
# column c is half c%2 of lane 4r + c/2's x - its low half 2(4r + c/2)
# for even c, 0 for odd (x < 2^16).
expect_rc fns_movmatrix 0 "$P" run --emulate tests/ptxforms/fns_movmatrix.py \
	--target sm_100a --arg A=iota --dump A
l=0 want=""
while [ $l -lt 32 ]; do
	x=$((2 * l)) k=$((l % 4)) pos=4294967295
	if [ $k -eq 0 ]; then
		[ $((x & 1)) -eq 1 ] && pos=0
	else
		b=0
		while [ $b -lt 32 ]; do
			if [ $(((x >> b) & 1)) -eq 1 ]; then
				k=$((k - 1))
				[ $k -eq 0 ] && { pos=$b; break; }
			fi
			b=$((b + 1))
		done
	fi
	c=$((l / 4)) r=$((2 * (l % 4))) lo=0 hi=0
	if [ $((c % 2)) -eq 0 ]; then
		lo=$((2 * (4 * r + c / 2))) hi=$((2 * (4 * (r + 1) + c / 2)))
	fi
	want="$want  $pos $((lo + 65536 * hi))
"
	l=$((l + 1))
done
if [ "$(sed -n '2,33p' "$t/out")
" = "$want" ]; then ok fns_movmatrix_values
else bad fns_movmatrix_values "$(head -5 "$t/out")"; fi
# st.bulk's size must be a multiple of 8 (PTX ISA): n = 12 stops the
# run at the st.bulk line
expect_rc st_bulk_size 1 "$P" run --emulate tests/ptxforms/sm100_add_st_bulk.py \
	--target sm_100a --arg n=12
if grep -q "error\[E9505\]: .*PTX line [0-9]* (st.bulk): st.bulk size 12 is not a multiple of 8" "$t/err"; then
	ok st_bulk_size_message; else bad st_bulk_size_message "$(cat "$t/err")"; fi

# examples/gemm_nvf4_sm100.py (NVFP4, kind::mxf4nvf4 block16) through the
# CLI: zero inputs give zero D in late mode with the race check (the
# values are checked in tests/unit/test_emu.c emu_script_gemm_nvf4_sm100);
# random bytes make UE4M3 scales with the unused top bit set: E9502
expect_rc nvf4_zeros 0 "$P" run --emulate examples/gemm_nvf4_sm100.py \
	--target sm_100a --late --check-races --dump D
[ "$(sed -n '2,$p' "$t/out" | tr -s ' \n' '\n\n' | grep -v '^$' | sort -u)" = 0 ] &&
	ok nvf4_zero_d || bad nvf4_zero_d "D is not all zeros"
expect_rc nvf4_ue4m3_sign 1 "$P" run --emulate examples/gemm_nvf4_sm100.py \
	--target sm_100a --fill random:3
grep -q "error\[E9502\].*UE4M3 scale 0x[0-9a-f]* has its unused top bit set" "$t/err" &&
	ok nvf4_ue4m3_sign_code || bad nvf4_ue4m3_sign_code "$(cat "$t/err")"

# The runtime's own 16B-interleaved map (pixels in dim 0: tma_modes.py's
# interleave16) moved eight 16-byte slices on the H200 (gpu_tma.c), which
# the emulator's interleave model (dim 0 = one slice of channels) cannot
# reproduce: it must refuse the map, never return a guessed image.
expect_rc interleave_runtime_map 1 "$P" run --emulate tests/gpu/kernels/tma_modes.py \
	--kernel interleave16 --target sm_90a --arg A=iota --arg n0=1 --arg c0=2 --arg w0=5
grep -q "error\[E9502\].*interleaved tensor map: only a dim 0" "$t/err" &&
	ok interleave_runtime_map_code || bad interleave_runtime_map_code "$(cat "$t/err")"

# TMA's NaN fill: the H200 wrote 0x7ff7 in every 16-bit half of an
# out-of-bounds element (f16 0x7ff7, f32 0x7ff77ff7; measured with
# tests/gpu/kernels/tma_oob_nan_*.py), not the canonical NaN
for w in f16:2 f32:4; do
	k=${w%:*} n=${w#*:}
	"$P" run --emulate tests/gpu/kernels/tma_oob_nan_$k.py --target sm_90a \
		--arg A=zeros --dump O="$t/nan_$k.bin" >"$t/out" 2>"$t/err"
	vals=$(od -An -tx$n -v "$t/nan_$k.bin" 2>/dev/null | tr -s ' ' '\n' | grep -v '^$' | sort -u | tr '\n' ' ')
	want=7ff7; [ "$n" = 4 ] && want=7ff77ff7
	[ "$vals" = "$want " ] && ok tma_oob_nan_$k || bad tma_oob_nan_$k "fill values: $vals"
done

# Inputs are bounded before they are read (issue #19: these grew until
# the OOM killer): metadata past 16 MiB is E5021, a PTX or script input
# past the 16 MiB input budget E9009, a file: tensor longer than the
# tensor "another size"; under a 2 GB address-space cap and a timeout,
# so an unbounded read fails the test instead of the machine.
# (ASan reserves terabytes of shadow address space: no cap under it)
if grep -q __asan_init "$P" 2>/dev/null; then cap=unlimited; else cap=2000000; fi
bounded() { ( ulimit -v $cap 2>/dev/null; exec timeout 60 "$@" ); }
"$P" compile tests/golden/scalars.py -o "$t/sc.ptx" --meta "$t/sc.json" -q
expect_rc meta_dev_zero 2 bounded "$P" run --emulate "$t/sc.ptx" --meta /dev/zero
grep -q "error\[E5021\]: metadata /dev/zero is over the budget" "$t/err" &&
	ok meta_dev_zero_code || bad meta_dev_zero_code "$(head -2 "$t/err")"
expect_rc input_dev_zero 2 bounded "$P" run --emulate /dev/zero
grep -q "error\[E9009\]: input /dev/zero is over the budget" "$t/err" &&
	ok input_dev_zero_code || bad input_dev_zero_code "$(head -2 "$t/err")"
expect_rc fill_dev_zero 2 bounded "$P" run --emulate examples/cluster_copy.py \
	--fill file:/dev/zero
grep -q "/dev/zero is another size" "$t/err" &&
	ok fill_dev_zero_msg || bad fill_dev_zero_msg "$(head -2 "$t/err")"

# 65 scalar parameters (issue #19: exit 2 with no message; the CLI had
# room for 64): A[i] = s0 + s64, with s_i = i + 1, is 1 + 65 = 66.
{
	printf 'from tvm_tirx.script import tirx as T\n\n@T.function\n'
	printf 'def k(A: T.Tensor((32,), "int32")'
	i=0; while [ $i -lt 65 ]; do printf ', s%d: T.int32' $i; i=$((i+1)); done
	printf '):\n    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))\n'
	printf '    A[T.cuda.thread_idx("x")] = s0 + s64\n'
} > "$t/p65.py"
args=""; i=0; while [ $i -lt 65 ]; do args="$args --arg s$i=$((i+1))"; i=$((i+1)); done
# shellcheck disable=SC2086
expect_rc scalars_65 0 "$P" run --emulate "$t/p65.py" $args --dump A
[ "$(sed -n '1s/^A://p' "$t/out" | tr -s ' ' '\n' | grep -v '^$' | sort -u)" = 66 ] &&
	ok scalars_65_values || bad scalars_65_values "$(head -c 200 "$t/out")"

# tests/golden/ptx_values.py on A = 0..31: the butterfly sum is
# 0 + 1 + ... + 31 = 496 on every lane, the max 31; B[2], B[3] are
# T.float32("inf") and T.infinity(ty="float32") * -1; C[lane] is
# 1 << lane read back from the lane itself (shfl.sync.idx)
expect_rc ptx_values 0 "$P" run --emulate tests/golden/ptx_values.py \
	--arg A=iota --dump B --dump C
want_c=$(awk 'BEGIN { v = 1; for (i = 0; i < 32; i++) { printf "%s%.0f", i ? " " : "", v; v *= 2 } }')
grep -qx "B: 496 31 inf -inf" "$t/out" && grep -qx "C: $want_c" "$t/out" &&
	ok ptx_values_result || bad ptx_values_result "$(cat "$t/out")"

# tests/golden/printf_assert.py, A = 0..3, n = -42: each lane prints
# x = 3 A[tid], b = x / 2, n and 0xbeef; lane 0 also "100% done".  The
# expected text is the shell's printf of the same values (the emulator's
# line order is its thread order, so lines are compared sorted).
expect_rc printf 0 "$P" run --emulate tests/golden/printf_assert.py \
	--arg A=iota --arg n=-42
for i in 0 1 2 3; do
	printf 'lane %d: x=%04d b=%.2f n=%d h=%#x\n' $i $((3 * i)) \
		"$(awk "BEGIN { print $i * 1.5 }")" -42 48879
done >"$t/want"
printf '100%% done\n' >>"$t/want"
sort "$t/want" >"$t/want.s"
sort "$t/out" | cmp -s - "$t/want.s" && ok printf_text ||
	bad printf_text "$(diff "$t/out" "$t/want")"
# A[2] = 12 fails the assert of line 19: lane 2 prints the line and the
# condition, then traps (E9580, naming the script line with --lineinfo)
printf '\000\000\000\000\001\000\000\000\014\000\000\000\003\000\000\000' >"$t/a.bin"
expect_rc assert_fails 1 "$P" run --emulate tests/golden/printf_assert.py \
	--arg A=file:"$t/a.bin" --arg n=1 --lineinfo
grep -qx 'tests/golden/printf_assert.py:19: assertion failed: A\[tid\] < 10: A\[tid\] is a small index' "$t/out" &&
	grep -q 'error\[E9580\].*thread (2,0,0).*printf_assert.py:19' "$t/err" &&
	ok assert_text || bad assert_text "$(cat "$t/out" "$t/err")"

# tests/golden/size_dim_names.py: a scalar n_dim = 5 beside the size
# n = 32 (hidden parameter k_n$dim) launches and writes 1.0 everywhere
expect_rc size_dim_names 0 "$P" run --emulate tests/golden/size_dim_names.py \
	--size n=32 --arg n_dim=5 --dump A
want_a=$(awk 'BEGIN { for (i = 0; i < 32; i++) printf "%s1", i ? " " : "" }')
grep -qx "A: $want_a" "$t/out" && ok size_dim_names_result ||
	bad size_dim_names_result "$(cat "$t/out" "$t/err")"

# tests/golden/tirx_surface.py, thread t (base 16t): A[base + i] = i for
# even i < 8, base + i for odd i < 8, 100 + i - 8 for 8 <= i < 12, -i for
# 12 <= i < 16
expect_rc tirx_surface 0 "$P" run --emulate tests/golden/tirx_surface.py --dump A
want_s=$(awk 'BEGIN { for (t = 0; t < 4; t++) for (i = 0; i < 16; i++) {
	v = i < 8 ? (i % 2 ? 16 * t + i : i) : i < 12 ? 100 + i - 8 : -i
	printf "%s%d", (t || i) ? " " : "", v } }')
grep -qx "A: $want_s" "$t/out" && ok tirx_surface_result ||
	bad tirx_surface_result "$(cat "$t/out" "$t/err")"

# -D overrides a module constant of the script, as ptxtile compile -D
# does: A[i] = i * SCALE, SCALE 2 in the script and 5 from -D (values by
# hand: 0 5 10 ... 35); an unknown constant is E2050; with --meta
# (PTX input) -D is a usage error
cat >"$t/scale.py" <<'PY'
from ptxtile import tirx as T
SCALE = 2


@T.function
def scale(A: T.Tensor((8,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=8))
    i = T.cuda.thread_idx("x")
    A[i] = i * SCALE
PY
expect_rc define_default 0 "$P" run --emulate "$t/scale.py" --dump A
grep -q "^A: 0 2 4 6 8 10 12 14$" "$t/out" && ok define_default_values ||
	bad define_default_values "$(cat "$t/out")"
expect_rc define 0 "$P" run --emulate "$t/scale.py" -D SCALE=5 --dump A
grep -q "^A: 0 5 10 15 20 25 30 35$" "$t/out" && ok define_values ||
	bad define_values "$(cat "$t/out")"
expect_rc define_joined 0 "$P" run --emulate "$t/scale.py" -DSCALE=3 --dump A
grep -q "^A: 0 3 6 9 12 15 18 21$" "$t/out" && ok define_joined_values ||
	bad define_joined_values "$(cat "$t/out")"
expect_rc define_unknown 1 "$P" run --emulate "$t/scale.py" -D SCALEX=5
grep -q "E2050" "$t/err" && ok define_unknown_code ||
	bad define_unknown_code "$(head -3 "$t/err")"
expect_rc define_no_value 2 "$P" run --emulate "$t/scale.py" -D SCALE
expect_rc define_with_meta 2 "$P" run --emulate "$t/s.ptx" --meta "$t/s.json" -D N=1

# Issue 21: the executors read the selection, never the spelling - no
# string comparison or search outside the loader (load.c) and the
# vprintf format reader (printf.c)
probes=$(grep -n 'str[n]*cmp\|strstr\|strchr\|strcspn\|strspn\|memcmp' \
	src/emu/*.c | grep -v '^src/emu/load\.c:\|^src/emu/printf\.c:')
if [ -z "$probes" ]; then ok executors_read_no_text; else
	bad executors_read_no_text "$(printf '%s\n' "$probes" | head -3)"; fi
