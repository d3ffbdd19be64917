#!/bin/sh
# tests/suites/tile_counts.sh - exact PTX spelling and exact issue count
# per tile family: each row compiles a script and counts the instruction
# lines spelled exactly so (optionally predicated).  The expected counts
# are the product of each call's repeat extents, summed over the calls
# that use the spelling, computed by hand from the scripts' shapes.
BUILD=${BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# file target spelling count
rows='
tests/golden/tile_tcgen05_mma.py sm_100a tcgen05.mma.cta_group::1.kind::f16 5
tests/golden/tile_tcgen05_mma_forms.py sm_100a tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::fill 4
tests/golden/tile_tcgen05_mma_forms.py sm_100a tcgen05.mma.ws.cta_group::1.kind::f8f6f4 1
tests/golden/tile_tcgen05_mma_forms.py sm_100a tcgen05.mma.ws.cta_group::1.kind::f16 4
tests/golden/tile_tcgen05_mma_forms.py sm_100a tcgen05.mma.cta_group::2.kind::f16 8
tests/golden/tile_tcgen05_mma_forms.py sm_100a tcgen05.mma.cta_group::1.kind::f16 4
tests/golden/tile_tcgen05_mma_forms.py sm_100a tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X 4
tests/golden/tile_tcgen05_mma_forms.py sm_100a tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16 4
tests/golden/tile_tcgen05_mma_forms.py sm_100a tcgen05.mma.cta_group::2.kind::mxf4.block_scale.block32 1
tests/golden/tile_wgmma.py sm_90a wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 4
tests/golden/tile_wgmma.py sm_90a wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 2
tests/golden/tile_wgmma.py sm_90a wgmma.mma_async.sync.aligned.m64n32k16.f16.f16.f16 1
examples/gemm_wgmma.py sm_90a wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 4
tests/golden/tile_tcgen05_cp.py sm_100a tcgen05.cp.cta_group::1.128x256b 2
tests/golden/tile_tcgen05_cp.py sm_100a tcgen05.cp.cta_group::1.32x128b.warpx4 1
tests/golden/tile_ld_st.py sm_90a ld.global.v4.b32 3
tests/golden/tile_ld_st.py sm_90a st.shared.v4.b32 3
tests/golden/tile_ld_st.py sm_90a ld.shared::cta.v4.b32 3
tests/golden/tile_ld_st.py sm_90a ld.global.L1::evict_last.L2::cache_hint.v4.b32 3
tests/golden/tile_ld_st.py sm_90a st.global.cg.v4.b32 3
tests/golden/tile_ld_st.py sm_90a ld.global.cg.v2.b64 2
tests/golden/tile_ld_st.py sm_90a st.local.v2.b64 2
tests/golden/tile_ld_st.py sm_90a ld.local.v2.b64 2
tests/golden/tile_ld_st.py sm_90a st.global.v2.b64 2
tests/golden/tile_registers.py sm_90a add.rn.f32 4
tests/golden/tile_registers.py sm_90a sub.f32 4
tests/golden/tile_registers.py sm_90a mul.rn.f32 4
tests/golden/tile_registers.py sm_90a div.rn.f32 4
tests/golden/tile_registers.py sm_90a rcp.approx.ftz.f32 4
tests/golden/tile_registers.py sm_90a abs.f32 4
tests/golden/tile_registers.py sm_90a sqrt.rn.f32 4
tests/golden/tile_registers.py sm_90a neg.f32 4
tests/golden/tile_registers.py sm_90a min.f32 4
tests/golden/tile_registers.py sm_90a max.NaN.f32 4
tests/golden/tile_registers.py sm_90a fma.rn.f32 4
tests/golden/tile_registers.py sm_90a ex2.approx.ftz.f32 4
tests/golden/tile_registers.py sm_90a lg2.approx.ftz.f32 4
tests/golden/tile_registers.py sm_90a cvt.rn.f16x2.f32 4
tests/golden/tile_registers.py sm_90a add.rn.f16x2 4
tests/golden/tile_registers.py sm_90a mul.rn.bf16x2 4
tests/golden/tile_registers.py sm_90a cvt.rn.f16.f32 4
tests/golden/tile_registers.py sm_90a cvt.f32.f16 8
tests/golden/tile_registers.py sm_90a mul.lo.u32 4
tests/golden/tile_registers.py sm_90a mul.hi.s32 4
tests/golden/tile_registers.py sm_90a mov.b64 10
tests/golden/tile_sm100.py sm_100a ld.global.v8.b32 2
tests/golden/tile_sm100.py sm_100a ld.global.L1::no_allocate.v4.b64 2
tests/golden/tile_sm100.py sm_100a add.rn.f32x2 8
tests/golden/tile_sm100.py sm_100a fma.rn.f32x2 1
tests/golden/tile_sm100.py sm_100a max.f32 4
tests/golden/tile_sm100.py sm_100a st.global.v8.b32 2
tests/golden/tile_sm100.py sm_100a st.global.v4.b64 2
tests/golden/tile_ewise.py sm_90a ld.global.v2.f32 1
tests/golden/tile_ewise.py sm_90a st.global.v2.f32 1
'
echo "$rows" | while read -r file target spelling want; do
	[ -n "$file" ] || continue
	out="$tmp/$(basename "$file" .py).$target.ptx"
	if [ ! -f "$out" ] && ! "$BUILD/ptxtile" compile "$file" --target "$target" \
		-o "$out" 2>"$tmp/err"; then
		echo "FAIL tile_counts/$spelling: $file does not compile: $(head -n 1 "$tmp/err")"
		continue
	fi
	pat=$(printf '%s' "$spelling" | sed 's/[.:]/\\&/g')
	got=$(grep -cE "^[[:space:]]*(@!?%p[0-9]+ )?$pat " "$out")
	if [ "$got" = "$want" ]; then
		echo "PASS tile_counts/$(basename "$file" .py)/$spelling"
	else
		echo "FAIL tile_counts/$(basename "$file" .py)/$spelling: $got issues, expected $want"
	fi
done
