#!/bin/sh
# tests/suites/tirx_surface.sh - the TIRx script surface of issue 22 run
# in the emulator; every expected value is worked out by hand from the
# script (see each script's header):
#   surface_fstring:  B[i] = A[i] + 2 + 1 with A = iota
#   surface_unpack:   a, b = 1, 2 then a, b = b, a (a = 2, b = 1);
#                     A[i, j] = 10 i + j + a - b; B[0] = 2 + 4 + 1 = 7,
#                     B[1] = 1, B[3] = (2 + 4) - 4 = 2 (atomic_add returns
#                     the old value), B[2] = 2 + 9 = 11: one CTA of two
#                     adds 9, the other returned first
#   surface_builtins: ballot of lane < 5 = 0b11111 = 31 in every lane;
#                     float bits + (1 << 23) doubles a normal float
#                     (F[l] = 2 l, l >= 1); the waits read S[2] = 2 and
#                     S[1] = 1 (S = iota): S[3] = 42, S[0] = 41
#   surface_decl_tensor: B[i] = A[32 + i] (a row-major (2, 32) view)
BUILD=${BUILD:-build}
P="$BUILD/ptxtile"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
run() { # name, then dumps
	name=$1
	shift
	if "$P" run --emulate "tests/tirx/$name.py" --fill iota "$@" >"$t/$name" 2>"$t/err"; then
		return 0
	fi
	echo "FAIL tirx_surface/$name: $(head -n 1 "$t/err")"
	return 1
}
want() { # name, expected line
	if grep -qxF "$2" "$t/$1"; then echo "PASS tirx_surface/$1: $2"; else
		echo "FAIL tirx_surface/$1: no line '$2' in: $(tr '\n' '|' <"$t/$1" | head -c 300)"; fi
}
seq_line() { # prefix, first, last, step
	printf '%s' "$1"
	i=$2
	while [ "$i" -le "$3" ]; do printf ' %s' "$i"; i=$((i + $4)); done
	echo
}
if run surface_fstring --dump B; then
	want surface_fstring "$(seq_line B: 3 34 1)"
fi
if run surface_unpack --dump A --dump B; then
	want surface_unpack "B: 7 1 11 2"
	for i in 0 1 2 3; do
		want surface_unpack "$(seq_line ' ' $((10 * i + 1)) $((10 * i + 8)) 1)"
	done
fi
if run surface_builtins --dump S --dump U --dump F; then
	want surface_builtins "S: 41 1 2 42"
	want surface_builtins "U:$(i=0; while [ $i -lt 32 ]; do printf ' 31'; i=$((i + 1)); done)"
	want surface_builtins "$(seq_line 'F: 1.17549435e-38' 2 62 2)"
fi
# surface_decl_tensor: a (2, 32) row-major view of A = iota: B[i] = A[32 + i]
if run surface_decl_tensor --dump B; then
	want surface_decl_tensor "$(seq_line B: 32 63 1)"
fi
