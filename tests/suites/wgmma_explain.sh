#!/bin/sh
# tests/suites/wgmma_explain.sh - `ptxtile explain` on wgmma tile calls
# shows each decoded descriptor and the issue count.  The expected fields
# are worked out by hand from ptx_facts §1.1/§1.3 for the layouts of
# tests/golden/tile_wgmma.py: bf16 K-major 128B rows of 128 bytes (SBO =
# 8 rows = 1024 B, LBO unused = 16 B, type 1, K slices +32 B); f16
# MN-major 64B with N = 32 (one MN atom: LBO unused 16 B, SBO = 8 K rows
# x 64 B = 512 B, type 2); tf32 interleaved core matrices 8 x 16 B placed
# K chunk after chunk (LBO 128 B) and row group after group (SBO 256 B).
BUILD=${BUILD:-build}
out=$("$BUILD/ptxtile" explain tests/golden/tile_wgmma.py --target sm_90a 2>&1)
check() { # name text
	if printf '%s\n' "$out" | grep -qF -- "$2"; then echo "PASS wgmma_explain/$1"
	else echo "FAIL wgmma_explain/$1: no line containing '$2'"; fi
}
check bf16_a "A descriptor (sm_90): K-major, swizzle 128B, LBO 16 B, SBO 1024 B, base offset 0, layout type 1; high bits 0x4000004000010000 | (address >> 4); repeat starts +0, 32, 64, 96 bytes"
check f16_b_mn "B descriptor (sm_90): MN-major, swizzle 64B, LBO 16 B, SBO 512 B, base offset 0, layout type 2"
check tf32_a "A descriptor (sm_90): K-major, swizzle none, LBO 128 B, SBO 256 B, base offset 0, layout type 0"
check bf16_count "D: 32 registers per thread per repeat; repeats (M, N, K) = (1, 1, 4)"
check issues "expands to 4 instructions per issuing thread"
check shared_no_group "operand 1: in A bfloat16 (shared memory), group () repeat (1, 4) atom (64, 16)"
# The groups line: a warpgroup-scope wgmma of 128 threads spans warp in
# group 0..3 (the lane axis is the collective's own); a warp-scope
# ldmatrix has no group axis left, "none" (issue 19, mutation survivor
# explain.c:81: the mutant wrote "none" before the groups and nothing
# for no group).  Whole lines, so that text before or after fails.
line() { # name text
	if printf '%s\n' "$out" | grep -qxF -- "$2"; then echo "PASS wgmma_explain/$1"
	else echo "FAIL wgmma_explain/$1: no line '$2'"; fi
}
line groups_warpgroup "  groups: warp_in_group[0..3]"
out=$("$BUILD/ptxtile" explain tests/golden/tile_ldmatrix_sm80.py --target sm_80 2>&1)
line groups_none "  groups: none"
