#!/bin/sh
# JSON round trips through the CLI, for every examples/*.py,
# tests/roundtrip/*.py, tests/golden/*.py and tests/gpu/kernels/*.py X:
#   ptxtile json X.py   > a.json
#   ptxtile json a.json > b.json     b.json must equal a.json byte for byte
#   ptxtile print a.json             must equal ptxtile print X.py
# Prints PASS/FAIL per file.  $BUILD is the build folder.
BUILD=${BUILD:-build}
bin="$BUILD/ptxtile"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in examples/*.py tests/roundtrip/*.py tests/golden/*.py \
	tests/gpu/kernels/*.py; do
	[ -f "$f" ] || continue
	name="json/$(dirname "$f" | sed 's|^tests/||')/$(basename "$f" .py)"
	if ! "$bin" json "$f" >"$tmp/a.json" 2>"$tmp/err"; then
		echo "FAIL $name: ptxtile json $f: $(head -1 "$tmp/err")"
		continue
	fi
	if ! "$bin" json "$tmp/a.json" >"$tmp/b.json" 2>"$tmp/err"; then
		echo "FAIL $name: reading its JSON back: $(head -1 "$tmp/err")"
		continue
	fi
	if ! cmp -s "$tmp/a.json" "$tmp/b.json"; then
		echo "FAIL $name: JSON differs after a round trip"
		continue
	fi
	"$bin" print "$f" >"$tmp/p1" 2>"$tmp/err" &&
		"$bin" print "$tmp/a.json" >"$tmp/p2" 2>>"$tmp/err"
	if [ $? -ne 0 ]; then
		echo "FAIL $name: print: $(head -1 "$tmp/err")"
	elif ! cmp -s "$tmp/p1" "$tmp/p2"; then
		echo "FAIL $name: print of the JSON differs from print of the script"
	else
		echo "PASS $name"
	fi
done
