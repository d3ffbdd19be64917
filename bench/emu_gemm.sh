#!/bin/sh
# bench/emu_gemm.sh - emulator speed on one GEMM tile: examples/gemm_bf16.py
# cut to M = N = 128 (one CTA of 256 threads: cp.async pipeline, ldmatrix,
# mma.sync m16n8k16) for K = 256 and 512 (the script needs K >= 256, a
# multiple of 128).  Prints the emulated instruction count and the best of
# 5 CPU times (user + system, /usr/bin/time: the machine is shared, wall
# time is noise) of `ptxtile run --emulate` minus the best of 5 of
# `ptxtile compile` (the run compiles the script first).
BUILD=${BUILD:-build}
P="$BUILD/ptxtile"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
[ -x /usr/bin/time ] || { echo "bench/emu_gemm.sh needs /usr/bin/time" >&2; exit 2; }
best() { # command...: best CPU time of 5 runs, in seconds
	b=999
	for i in 1 2 3 4 5; do
		/usr/bin/time -f '%U %S' -o "$t/time" "$@" >/dev/null 2>&1 ||
			{ echo "fail: $*" >&2; return 1; }
		b=$(awk -v b="$b" '{d = $1 + $2; print (d < b ? d : b)}' "$t/time")
	done
	echo "$b"
}
printf '%-22s %14s %10s %10s %10s\n' tile instructions run_cpu_s compile_s emulate_s
for k in 256 512; do
	sed -e 's/^M = 4096$/M = 128/' -e 's/^N = 4096$/N = 128/' \
	    -e "s/^K = 4096\$/K = $k/" examples/gemm_bf16.py >"$t/g.py"
	n=$("$P" run --emulate "$t/g.py" --target sm_90a --fill random:1 2>&1 |
	    sed -n 's/.*: \([0-9]*\) instructions emulated/\1/p')
	r=$(best "$P" run --emulate "$t/g.py" --target sm_90a --fill random:1)
	c=$(best "$P" compile "$t/g.py" --target sm_90a -o "$t/g.ptx")
	printf '%-22s %14s %10.3f %10.3f %10.3f\n' "128x128x$k bf16" "$n" "$r" \
		"$c" "$(echo "$r $c" | awk '{print $1 - $2}')"
done
