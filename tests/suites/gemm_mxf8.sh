#!/bin/sh
# tests/suites/gemm_mxf8.sh - examples/gemm_mxf8_sm100.py, the
# block-scaled FP8 GEMM on CTA pairs: it compiles for sm_100a, ptxas
# assembles it (a loud SKIP without ptxas), each tile call issues the
# hand-counted instructions, and the values it hands the hardware match
# the ISA tables worked out by hand:
#   instruction descriptors (PTX Table 44), M256 N256 e4m3 x e4m3, UE8M0
#   (bit 23), M>>7 = 2 at [27,29), N>>3 = 32 at [17,23), scale-factor
#   IDs k (A at [29,31), B at [4,6)) for the four K slices:
#   0x10C00000, 0x30C00010, 0x50C00020, 0x70C00030;
#   tcgen05.cp source descriptor of a 32-row x 16-byte image, no
#   swizzle: LBO 16 (unused, field 1), SBO 128 (8 rows x 16 bytes, field
#   8), bit 46: 0x0000400800010000;
#   expect_tx = 2 x 128 x 128 (A, B) + 32 x 16 (SFA) + 2 x 32 x 16 (SFB)
#   = 34304 bytes.
BUILD=${BUILD:-build}
X=examples/gemm_mxf8_sm100.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out="$tmp/g.ptx"
if ! "$BUILD/ptxtile" compile "$X" --target sm_100a -o "$out" 2>"$tmp/err"; then
	echo "FAIL gemm_mxf8/compile: $(head -n 1 "$tmp/err")"
	exit 0
fi
echo "PASS gemm_mxf8/compile"
PTXAS=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
if [ -x "$PTXAS" ]; then
	if "$PTXAS" -arch=sm_100a "$out" -o "$tmp/g.cubin" >"$tmp/log" 2>&1 &&
	   [ ! -s "$tmp/log" ]; then
		echo "PASS gemm_mxf8/ptxas"
	else
		echo "FAIL gemm_mxf8/ptxas: $(head -n 3 "$tmp/log")"
	fi
else
	echo "SKIP gemm_mxf8/ptxas: ptxas not found; the example is NOT assembled"
fi
# spelling count: 4 MMAs (K_rep 4), 3 copies (SFA 1, SFB 2 repeats), one
# commit, four TMA loads, one tcgen05.ld in the epilogue loop
rows="
tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.scale_vec::1X 4
tcgen05.cp.cta_group::2.32x128b.warpx4 3
tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 1
cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes 2
cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes 1
cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes 1
tcgen05.ld.sync.aligned.32x32b.x64.b32 1
"
echo "$rows" | while read -r spelling want; do
	[ -n "$spelling" ] || continue
	pat=$(printf '%s' "$spelling" | sed 's/[.:]/\\&/g')
	got=$(grep -cE "^[[:space:]]*$pat " "$out")
	if [ "$got" = "$want" ]; then
		echo "PASS gemm_mxf8/count/$spelling"
	else
		echo "FAIL gemm_mxf8/count/$spelling: $got, expected $want"
	fi
done
# the idesc register of each MMA is set by the mov just before it
got=$(awk '/mov.b32/ { v = $3 } /tcgen05\.mma/ { sub(";", "", v); printf "%d ", v }' "$out")
want="$(printf '%d %d %d %d ' 0x10C00000 0x30C00010 0x50C00020 0x70C00030)"
if [ "$got" = "$want" ]; then
	echo "PASS gemm_mxf8/idesc"
else
	echo "FAIL gemm_mxf8/idesc: got '$got', expected '$want'"
fi
# each tcgen05.cp's descriptor: the storage start's field plus LBO 16
# (field 1 << 16) plus the origin in 16-byte units (the third copy 512
# bytes on), OR the top half 0x4008 << 32 (SBO 128, version 1)
got=$(awk '/add\.u32 .*, [0-9]+;/ { k = $4 } /or\.b64/ { h = $4 }
	/tcgen05\.cp\./ { sub(";", "", k); sub(";", "", h); printf "%s:%s ", k, h }' "$out")
want="$(printf '%d:%d %d:%d %d:%d ' 0x10000 0x400800000000 0x10000 0x400800000000 0x10020 0x400800000000)"
if [ "$got" = "$want" ]; then
	echo "PASS gemm_mxf8/cp_descriptor"
else
	echo "FAIL gemm_mxf8/cp_descriptor: got '$got', expected '$want'"
fi
if grep -q "mbarrier\.arrive\.expect_tx\.shared\.b64 %rd[0-9]*, \[smem_tma_bar\], 34304;" "$out"; then
	echo "PASS gemm_mxf8/expect_tx"
else
	echo "FAIL gemm_mxf8/expect_tx: no expect_tx of 34304 bytes"
fi
