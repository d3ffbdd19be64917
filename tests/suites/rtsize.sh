#!/bin/sh
# tests/suites/rtsize.sh - runtime sizes (issue 11): the examples
# examples/vcopy_dynamic.py and examples/gemm_wgmma.py and every
# tests/rtsize/ok_*.py compile (their guards are known to the prover)
# and its PTX assembles; a missing tail guard is rejected with the
# inequality in the script's names and a counterexample that really
# overruns (row = 3*128 + 3*32 + 31 = 511 >= n = 0); the metadata
# records the size multiple a symbolic row stride needs.
BUILD=${BUILD:-build}
P="$BUILD/ptxtile"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ptxas=$(command -v ptxas || { [ -x /usr/local/cuda/bin/ptxas ] && echo /usr/local/cuda/bin/ptxas; })
for py in examples/vcopy_dynamic.py examples/gemm_wgmma.py tests/rtsize/ok_*.py; do
	name=$(basename "$py" .py)
	if ! "$P" compile "$py" -o "$tmp/$name.ptx" --meta "$tmp/$name.json" 2>"$tmp/err"; then
		echo "FAIL rtsize/$name: $(head -n 1 "$tmp/err")"
	elif [ -n "$ptxas" ] && ! "$ptxas" -arch=sm_90a "$tmp/$name.ptx" -o /dev/null 2>"$tmp/err"; then
		echo "FAIL rtsize/$name: ptxas: $(head -n 1 "$tmp/err")"
	else
		echo "PASS rtsize/$name"
	fi
done
out=$("$P" check tests/errors/E6020-runtime-size-unguarded.py 2>&1)
case "$out" in
*"A.sub[row, :] may leave A: cannot prove row < n (axis 0 of A has extent n); counterexample: lane=31, warp=3, block=3, n=0 gives row = 511, n = 0"*)
	echo "PASS rtsize/message_names_and_counterexample" ;;
*) echo "FAIL rtsize/message_names_and_counterexample: $out" ;;
esac
if grep -q '"assume": \[{"var": "n", "multiple_of": 4}\]' "$tmp/ok_inner_dim.json" &&
   grep -q '"assume": \[{"var": "n", "multiple_of": 4}\]' "$tmp/ok_const_row.json" &&
   ! grep -q '"assume"' "$tmp/vcopy_dynamic.json"; then
	echo "PASS rtsize/meta_assume"
else
	echo "FAIL rtsize/meta_assume: $(cat "$tmp/ok_inner_dim.json")"
fi
out=$("$P" explain tests/rtsize/ok_inner_dim.py 2>&1)
case "$out" in
*"kernel copy2d assumes n % 4 == 0"*) echo "PASS rtsize/explain_assume" ;;
*) echo "FAIL rtsize/explain_assume: $out" ;;
esac
# the GEMM's grid is whole clusters from the scalar sms and the sizes,
# assuming nothing of M, N, K (ragged edges are masked, not assumed away)
if grep -q '"grid": \[{"op": "mul", "args": \[2, {"op": "min", "args": \[{"op": "max", "args": \[{"op": "floordiv", "args": \[{"var": "sms"}, 2\]}, 1\]}' "$tmp/gemm_wgmma.json" &&
   grep -q '"cluster": \[2, 1, 1\]' "$tmp/gemm_wgmma.json" &&
   ! grep -q '"assume"' "$tmp/gemm_wgmma.json"; then
	echo "PASS rtsize/gemm_wgmma_meta"
else
	echo "FAIL rtsize/gemm_wgmma_meta: $(cat "$tmp/gemm_wgmma.json")"
fi
