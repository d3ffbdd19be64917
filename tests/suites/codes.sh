#!/bin/sh
# Every code in include/ptxtile/codes/*.def has a test: a negative test
# tests/errors/E<number>-<slug>.py (or .json), or a unit test naming
# PT_E_<NAME>.  The contract checks of the tile layer (tile, layout, wgmma
# and tcgen05 .def files) need at least two: each test file (negative
# test or unit-test file) counts once.
rows=$(cat include/ptxtile/codes/*.def | grep '^DIAG(' | sed 's/^DIAG(\([0-9]*\), *\([A-Z0-9_]*\),.*/\1 \2/')
two=$(cat include/ptxtile/codes/tile.def include/ptxtile/codes/layout.def \
	include/ptxtile/codes/wgmma.def include/ptxtile/codes/tcgen05.def |
	grep '^DIAG(' | sed 's/^DIAG(\([0-9]*\),.*/\1/')
echo "$rows" | while read -r num name; do
	[ -n "$num" ] || continue
	pad=$(printf 'E%04d' "$num")
	n=$(ls tests/errors/"$pad"-*.py tests/errors/"$pad"-*.json 2>/dev/null | wc -l)
	n=$((n + $(grep -l "PT_E_$name\b" tests/unit/*.c 2>/dev/null | wc -l)))
	need=1
	echo "$two" | grep -qx "$num" && need=2
	if [ "$n" -ge "$need" ]; then
		echo "PASS codes/$pad"
	else
		echo "FAIL codes/$pad: PT_E_$name has $n test(s), needs $need"
	fi
done
dups=$(echo "$rows" | awk '{print $1}' | sort | uniq -d)
if [ -n "$dups" ]; then echo "FAIL codes/unique: duplicate numbers $dups"; else echo "PASS codes/unique"; fi
