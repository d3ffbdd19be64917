#!/bin/sh
# Every code in include/ptxtile/codes/*.def has a test: a negative test
# tests/errors/E<number>-<slug>.py (or .json), or a unit test naming PT_E_<NAME>.
rows=$(cat include/ptxtile/codes/*.def | grep '^DIAG(' | sed 's/^DIAG(\([0-9]*\), *\([A-Z0-9_]*\),.*/\1 \2/')
missing=0
echo "$rows" | while read -r num name; do
	[ -n "$num" ] || continue
	pad=$(printf 'E%04d' "$num")
	if ls tests/errors/"$pad"-*.py >/dev/null 2>&1 ||
	   ls tests/errors/"$pad"-*.json >/dev/null 2>&1 ||
	   grep -q "PT_E_$name\b" tests/unit/*.c 2>/dev/null; then
		echo "PASS codes/$pad"
	else
		echo "FAIL codes/$pad: PT_E_$name has no test"
	fi
done
dups=$(echo "$rows" | awk '{print $1}' | sort | uniq -d)
if [ -n "$dups" ]; then echo "FAIL codes/unique: duplicate numbers $dups"; else echo "PASS codes/unique"; fi
