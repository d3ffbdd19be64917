#!/bin/sh
# bench/compile_latency.sh - compile latency of ptxtile vs ptxas vs nvcc.
#
# For each kernel with a script (examples/NAME.py, bench/NAME.py or tests/gpu/kernels/
# NAME.py) and a hand-written CUDA C++ equivalent bench/NAME.cu:
#   t_ptxtile  script -> PTX in-process ($BUILD/compile_latency: pt_load +
#              pt_compile, mean of 200 runs; process start-up excluded)
#   t_cli      the same through `ptxtile compile` (start-up included)
#   t_ptxas    ptxas -arch=T on that PTX, mean of R runs
#   t_nvcc     nvcc -arch=T -ptx NAME.cu, mean of R runs
# and the ratios t_ptxtile/t_ptxas (target <= 5%) and t_nvcc/t_ptxtile
# (target >= 100x).  Usage: sh bench/compile_latency.sh [R] (default 5).
BUILD=${BUILD:-build}
R=${1:-5}
T=${TARGET:-sm_90a}
PTXTILE="$BUILD/ptxtile"
PTXAS=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s%N; }
# mean milliseconds of R runs of "$@"
mean_ms() {
	s=$(now)
	i=0
	while [ $i -lt "$R" ]; do
		"$@" >/dev/null 2>&1 || return 1
		i=$((i + 1))
	done
	e=$(now)
	echo "$s $e $R" | awk '{printf "%.3f", ($2 - $1) / 1e6 / $3}'
}

printf "%-14s %11s %9s %9s %9s %10s %9s\n" kernel ptxtile_ms cli_ms \
	ptxas_ms nvcc_ms tile/ptxas nvcc/tile
# bench/NAME.cu twins, and the GEMM's twin bench/gemm/gemm_twin.cu
for cu in bench/*.cu bench/gemm/gemm_twin.cu; do
	name=$(basename "$cu" .cu)
	[ "$name" = gemm_twin ] && name=gemm_bf16
	py=examples/$name.py
	[ -f "$py" ] || py=tests/gpu/kernels/$name.py
	[ -f "$py" ] || py=bench/$name.py
	[ -f "$py" ] || { echo "$name: no script"; continue; }
	if ! "$PTXTILE" compile "$py" --target "$T" -o "$tmp/$name.ptx" \
		2>"$tmp/err"; then
		echo "$name: ptxtile compile failed: $(head -n 1 "$tmp/err")"
		continue
	fi
	a=$("$BUILD/compile_latency" "$py" "$T" 200)
	cli=$(mean_ms "$PTXTILE" compile "$py" --target "$T" -o "$tmp/x.ptx")
	b=$(mean_ms "$PTXAS" -arch="$T" "$tmp/$name.ptx" -o "$tmp/x.cubin")
	c=$(mean_ms "$NVCC" -arch="$T" -ptx "$cu" -o "$tmp/y.ptx")
	echo "$name $a $cli $b $c" | awk '{printf "%-14s %11.3f %9.3f %9.3f %9.3f %9.2f%% %8.0fx\n",
		$1, $2, $3, $4, $5, 100 * $2 / $4, $5 / $2}'
done
