#!/bin/sh
# Hostile-input regressions (issue 10) that are not one error code each:
# scripts that once aborted or wrapped around must now compile to PTX that
# ptxas accepts (tests/hostile/accept), or fail with exit 1, never a signal.
BUILD=${BUILD:-build}
P=$BUILD/ptxtile
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PTXAS=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
for py in tests/hostile/accept/*.py; do
	name=$(basename "$py" .py)
	if ! "$P" compile "$py" -o "$tmp/$name.ptx" 2>"$tmp/err"; then
		echo "FAIL hostile/$name: exit $?: $(head -c 300 "$tmp/err")"
	elif [ -x "$PTXAS" ] && ! "$PTXAS" -arch=sm_90a "$tmp/$name.ptx" \
			-o "$tmp/$name.cubin" 2>"$tmp/err"; then
		echo "FAIL hostile/$name: ptxas rejects: $(head -c 300 "$tmp/err")"
	else
		echo "PASS hostile/$name"
	fi
done
# block=2 with a tcgen05 warpgroup call: a diagnostic, not an abort.
"$P" check --target sm_100a --diag=short tests/hostile/tcgen05_block2.py \
	>/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && head -n 1 "$tmp/err" | grep -q '^E3111 '; then
	echo "PASS hostile/tcgen05_block2"
else
	echo "FAIL hostile/tcgen05_block2: exit $rc: $(head -c 300 "$tmp/err")"
fi
# T.uint32(2**31) is 2147483648 in the printed script and in the PTX.
u=tests/hostile/accept/uint32_2_pow_31.py
if "$P" print "$u" | grep -q 'T.uint32(2147483648)' &&
   "$P" compile "$u" | grep -q 'mov.b32 %r[0-9]*, 2147483648;'; then
	echo "PASS hostile/uint32_2_pow_31_text"
else
	echo "FAIL hostile/uint32_2_pow_31_text"
fi
