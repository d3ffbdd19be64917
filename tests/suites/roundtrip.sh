#!/bin/sh
# Round trips through the CLI for every examples/*.py, tests/golden/*.py,
# tests/tirx/*.py, tests/ptxforms/*.py
# and tests/roundtrip/*.py:
#   print(print(x)) == print(x)          (printing is a fixed point)
#   print(json(x) read back) == print(x) (JSON keeps everything printed)
# IR-level equality of parse(print(x)) and x is the unit test
# roundtrip_all_inputs (ir_module_equal).
BUILD=${BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in examples/*.py tests/golden/*.py tests/roundtrip/*.py tests/tirx/*.py tests/ptxforms/*.py; do
	[ -f "$f" ] || continue
	name=$f
	if ! "$BUILD/ptxtile" print "$f" >"$tmp/p1.py" 2>"$tmp/err"; then
		echo "FAIL roundtrip/$name: print failed: $(head -n 1 "$tmp/err")"
		continue
	fi
	if ! "$BUILD/ptxtile" print "$tmp/p1.py" >"$tmp/p2.py" 2>"$tmp/err"; then
		echo "FAIL roundtrip/$name: printed text does not load: $(head -n 1 "$tmp/err")"
		continue
	fi
	if ! cmp -s "$tmp/p1.py" "$tmp/p2.py"; then
		echo "FAIL roundtrip/$name: print is not a fixed point"
		continue
	fi
	if ! "$BUILD/ptxtile" json "$f" >"$tmp/x.json" 2>"$tmp/err" ||
	   ! "$BUILD/ptxtile" print "$tmp/x.json" >"$tmp/pj.py" 2>>"$tmp/err"; then
		echo "FAIL roundtrip/$name: json path failed: $(head -n 1 "$tmp/err")"
		continue
	fi
	if ! cmp -s "$tmp/p1.py" "$tmp/pj.py"; then
		echo "FAIL roundtrip/$name: print of the JSON differs"
		continue
	fi
	echo "PASS roundtrip/$name"
done
