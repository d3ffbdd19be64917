#!/bin/sh
# tests/suites/tirx_compat.sh - TIRx spellings ptxtile accepts (issue 11):
# every tests/tirx/*.py compiles, and each instruction its "# expect:"
# header names (op=count, counted by hand from the kernel: one issue per thread
# per call; an op is followed by its operands or, with none, by ';') appears that many times in the PTX.  The E2022 hint names a
# spelling TIRx accepts (T.cuda.Axis.x, not T.Axis.x).
BUILD=${BUILD:-build}
P="$BUILD/ptxtile"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for py in tests/tirx/*.py; do
	name=$(basename "$py" .py)
	target=sm_90a
	grep -q '^# Target: sm_100a' "$py" && target=sm_100a
	if ! "$P" compile "$py" --target "$target" -o "$tmp/$name.ptx" 2>"$tmp/err"; then
		echo "FAIL tirx_compat/$name: $(head -n 1 "$tmp/err")"
		continue
	fi
	bad=
	for item in $(sed -n 's/^# expect: //p' "$py" | tr -d ' ' | tr ',' ' '); do
		op=${item%=*}
		want=${item#*=}
		got=$(grep -cE "^[[:space:]]*(@%p[0-9]+ )?$(echo "$op" | sed 's/\./\\./g')[ ;]" "$tmp/$name.ptx")
		[ "$got" = "$want" ] || bad="$bad $op: $got, expected $want;"
	done
	if [ -n "$bad" ]; then
		echo "FAIL tirx_compat/$name:$bad"
	else
		echo "PASS tirx_compat/$name"
	fi
done
# E2022: the hints name spellings TIRx accepts, and a near miss gets a
# "did you mean" with the valid axes.
axis_script() {
	printf 'from tvm_tirx.script import tirx as T\n\n@T.function\ndef k(A: T.Tensor((64,), "float32")):\n    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))\n    s = T.alloc_local((32,), "float32", layout=T.TileLayout(T.S[32:%s]))\n' "$1" >"$tmp/axis.py"
	"$P" check "$tmp/axis.py" 2>&1 | head -n 1
}
check_msg() { # name, message, wanted text
	case "$2" in
	*"T.Axis."*) echo "FAIL tirx_compat/$1: recommends T.Axis: $2" ;;
	*"$3"*) echo "PASS tirx_compat/$1" ;;
	*) echo "FAIL tirx_compat/$1: '$2' lacks '$3'" ;;
	esac
}
check_msg e2022_unimported "$(axis_script 1@laneid)" "import it from tvm_tirx.backend.cuda.axis or write T.cuda.Axis.laneid"
check_msg e2022_not_axis "$(axis_script 1@T.cuda)" "expected a layout axis such as T.cuda.Axis.laneid"
check_msg e2022_did_you_mean "$(axis_script 1@T.cuda.Axis.lane)" "unknown axis 'lane'; did you mean 'laneid'? (axes: m laneid warpid"
