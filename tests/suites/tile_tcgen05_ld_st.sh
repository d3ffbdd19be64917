#!/bin/sh
# tests/suites/tile_tcgen05_ld_st.sh - TMEM loads and stores: exact PTX
# spelling and issue count per call, and the address/immediate each
# issue carries.  Counts are the product of each call's repeat extents
# (a call inside a T.serial loop is one issue in the text), worked out by
# hand from the scripts' shapes:
#   golden: st 32x32b.x2 over (4, 2, 32, 2) -> 2 repeats; every other
#   call has no repeat axis -> 1 issue each;
#   example: one 32x32b.x16 store, one 16x32bx2.x4 load.
BUILD=${BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

G=tests/golden/tile_tcgen05_ld_st.py
X=examples/tcgen05_ld_16x32bx2.py
# file spelling count
rows="
$G tcgen05.st.sync.aligned.32x32b.x2.b32 2
$G tcgen05.ld.sync.aligned.16x64b.x2.b32 1
$G tcgen05.ld.sync.aligned.16x128b.x1.pack::16b.b32 1
$G tcgen05.st.sync.aligned.16x256b.x1.unpack::16b.b32 1
$G tcgen05.st.sync.aligned.16x32bx2.x2.b32 1
$G tcgen05.ld.sync.aligned.32x32b.x1.b32 1
$X tcgen05.st.sync.aligned.32x32b.x16.b32 1
$X tcgen05.ld.sync.aligned.16x32bx2.x4.b32 1
"
echo "$rows" | while read -r file spelling want; do
	[ -n "$file" ] || continue
	out="$tmp/$(basename "$file" .py).ptx"
	if [ ! -f "$out" ] && ! "$BUILD/ptxtile" compile "$file" --target sm_100a \
		-o "$out" 2>"$tmp/err"; then
		echo "FAIL tile_tcgen05/$spelling: $file does not compile: $(head -n 1 "$tmp/err")"
		continue
	fi
	pat=$(printf '%s' "$spelling" | sed 's/[.:]/\\&/g')
	got=$(grep -cE "^[[:space:]]*$pat " "$out")
	if [ "$got" = "$want" ]; then
		echo "PASS tile_tcgen05/$(basename "$file" .py)/$spelling"
	else
		echo "FAIL tile_tcgen05/$(basename "$file" .py)/$spelling: $got issues, expected $want"
	fi
done

# The split load passes the first half's address and the immediate
# (16 << 16) + 8 = 1048584 as written; the split store (16 << 16).
out="$tmp/x.ptx"
"$BUILD/ptxtile" compile "$X" --target sm_100a -o "$out" 2>/dev/null
if grep -qE 'tcgen05\.ld\.sync\.aligned\.16x32bx2\.x4\.b32 \{%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+\}, \[%r[0-9]+\], 1048584;' "$out"; then
	echo "PASS tile_tcgen05/example_split_immediate"
else
	echo "FAIL tile_tcgen05/example_split_immediate: no 16x32bx2 load with immediate 1048584"
fi
# No wait or fence is inserted: the example's own wait::ld/wait::st
# calls are the only ones (one each).
for w in wait::ld wait::st; do
	got=$(grep -c "tcgen05\.$w" "$out")
	if [ "$got" = 1 ]; then
		echo "PASS tile_tcgen05/no_inserted_$w"
	else
		echo "FAIL tile_tcgen05/no_inserted_$w: $got, expected the caller's 1"
	fi
done
