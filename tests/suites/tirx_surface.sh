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
#   surface_cuda_sync: CAS of A[1] == 1 swaps in 50 and returns 1, CAS of
#                     A[2] == 2 against 9 misses and returns 2, A[3] = 1 * 10
#                     + 2; W[1] == 1 swaps in 2^40, W[0] = 1 + 100; P[0] =
#                     P[1] = bits(2.0f) << 32 | bits(1.0f) (make_float2's low
#                     word is x), the handle round trip keeps the bits
#   surface_cuda_intrinsics: F[l] = l / 4 (div.approx by a power of two is
#                     exact), I[l] = ffs(l) computed below, R[l] = (0 + ...
#                     + 31) + min(l + 3) = 499, H[0] = bf16(-2) << 16 |
#                     bf16(1) = 0xc000 << 16 | 0x3f80, S[k] = 3 k
#   surface_wait_backoff: warp 1 adds 1 to S[2] = 2 while warp 0 waits for
#                     S[2] >= 3 into spin[0] (a tensor element): S[0] = 3 +
#                     10; the second wait sees 3 at once: S[1] = 3
#   surface_tirx_ops: B[l] = (((l << 4) | 3) ^ 1) & 0xff) >> 1, computed
#                     below; N[5] = 1 + 2 (NaN as float32 and float16),
#                     else 0; W[0] = 1 << 32 | 7
#   surface_make_float2_sm100: lhs = make_float2(1, 2), rhs = {2, 1}:
#                     A[0] = lhs * rhs + lhs * rhs = {4, 4}, A[1] = (lhs +
#                     rhs) - rhs = {1, 2}, as hi << 32 | lo float bits
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
if run surface_cuda_sync --dump A --dump W --dump P; then
	want surface_cuda_sync "A: 0 50 2 12"
	want surface_cuda_sync "W: 101 $((1 << 40))"
	p=$(((0x40000000 << 32) | 0x3f800000))
	want surface_cuda_sync "P: $p $p"
fi
# ffs(l): 1 + the number of trailing zero bits of l, 0 for 0
ffs() {
	[ "$1" -eq 0 ] && { echo 0; return; }
	n=1 v=$1
	while [ $((v & 1)) -eq 0 ]; do v=$((v >> 1)); n=$((n + 1)); done
	echo $n
}
if run surface_cuda_intrinsics --dump F --dump I --dump R --dump H --dump S; then
	want surface_cuda_intrinsics "F:$(awk 'BEGIN { for (l = 0; l < 32; l++) printf " %.9g", l / 4 }')"
	want surface_cuda_intrinsics "I:$(l=0; while [ $l -lt 32 ]; do printf ' %s' "$(ffs $l)"; l=$((l + 1)); done)"
	want surface_cuda_intrinsics "R:$(l=0; while [ $l -lt 32 ]; do printf ' %s' $((31 * 32 / 2 + 3)); l=$((l + 1)); done)"
	want surface_cuda_intrinsics "H: $(((0xc000 << 16) | 0x3f80))"
	want surface_cuda_intrinsics "S: 0 3 6 9"
fi
if run surface_make_float2_sm100 --target sm_100a --dump A; then
	want surface_make_float2_sm100 "A: $(((0x40800000 << 32) | 0x40800000)) $(((0x40000000 << 32) | 0x3f800000))"
fi
if run surface_wait_backoff --dump S; then
	want surface_wait_backoff "S: 13 3 3 3"
fi
if run surface_tirx_ops --dump B --dump N --dump W; then
	want surface_tirx_ops "B:$(l=0; while [ $l -lt 32 ]; do printf ' %s' $(( ((((l << 4) | 3) ^ 1) & 255) >> 1 )); l=$((l + 1)); done)"
	want surface_tirx_ops "N:$(l=0; while [ $l -lt 32 ]; do if [ $l -eq 5 ]; then printf ' 3'; else printf ' 0'; fi; l=$((l + 1)); done)"
	want surface_tirx_ops "W: $(((1 << 32) | 7))"
fi
