#!/bin/sh
# tests/suites/tile_tma.sh - TMA tile calls: exact spelling and issue
# count per form, the hidden tensor-map parameters, and that a tile call
# adds no completion protocol (no fence, commit, wait, elect, expect_tx
# or prefetch: the scripts contain none, so the output must have none).
# Expected counts are the product of each call's repeat extents, by hand
# from tests/golden/tile_tma*.py.
BUILD=${BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# file target spelling count
rows='
tests/golden/tile_tma.py sm_90a cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes 2
tests/golden/tile_tma.py sm_90a cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint 1
tests/golden/tile_tma.py sm_90a cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group 1
tests/golden/tile_tma.py sm_90a cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group 1
tests/golden/tile_tma.py sm_90a cp.async.bulk.tensor.3d.shared::cta.global.tile.mbarrier::complete_tx::bytes 4
tests/golden/tile_tma.py sm_90a cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster 1
tests/golden/tile_tma.py sm_90a cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes 2
tests/golden/tile_tma.py sm_90a cp.async.bulk.tensor.2d.global.shared::cta.bulk_group 1
tests/golden/tile_tma_sm100.py sm_100a cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes 1
tests/golden/tile_tma_sm100.py sm_100a cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group 1
tests/golden/tile_tma_sm100.py sm_100a cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 1
'
echo "$rows" | while read -r file target spelling count; do
	[ -n "$file" ] || continue
	out="$tmp/$(basename "$file" .py).$target.ptx"
	if [ ! -f "$out" ] &&
	   ! "$BUILD/ptxtile" compile "$file" --target "$target" -o "$out" \
		2>"$tmp/err"; then
		echo "FAIL tile_tma/$spelling: $file does not compile: $(head -n 1 "$tmp/err")"
		continue
	fi
	n=$(awk -v s="$spelling" '{ w = $1; if (w ~ /^@/) w = $2; if (w == s) n++ } END { print n + 0 }' "$out")
	if [ "$n" = "$count" ]; then
		echo "PASS tile_tma/$spelling"
	else
		echo "FAIL tile_tma/$spelling: $n issues in $file, expected $count"
	fi
done

# hidden tensor-map parameters: 2 + 2 + 1 + 1 (+ the T.TensorMap) + 1
"$BUILD/ptxtile" compile tests/golden/tile_tma.py --target sm_90a \
	-o "$tmp/t.ptx" --meta "$tmp/t.json" 2>/dev/null
n=$(grep -c '\.param \.align 64 \.b8 .*_tmap[0-9]*\[128\]' "$tmp/t.ptx")
if [ "$n" = 7 ]; then
	echo "PASS tile_tma/tensor_map_params"
else
	echo "FAIL tile_tma/tensor_map_params: $n hidden maps, expected 7"
fi
n=$(grep -o '"kind": "tma"' "$tmp/t.json" | wc -l)
if [ "$n" -eq 7 ]; then
	echo "PASS tile_tma/metadata_slots"
else
	echo "FAIL tile_tma/metadata_slots: $n tma entries, expected 7"
fi
if grep -Eq '^[[:space:]]*(@%p[0-9]+ )?(fence|cp\.async\.bulk\.(commit|wait)_group|elect|mbarrier|prefetch)' "$tmp/t.ptx"; then
	echo "FAIL tile_tma/no_protocol: the tile calls emitted protocol instructions"
else
	echo "PASS tile_tma/no_protocol"
fi
