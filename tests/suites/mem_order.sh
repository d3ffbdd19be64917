#!/bin/sh
# tests/suites/mem_order.sh - the memory-ordering forms of multi-device
# code (issue 26) and the multi-device examples, judged by ptxas:
#   1. tests/golden/memory_order.py (golden.sh checks it for sm_80)
#      compiles for sm_90a and sm_100a, every form in the list below
#      appears spelled exactly so (the PTX ISA's spellings, written here
#      by hand), and ptxas accepts the result with no output;
#   2. fence.proxy.async.global (TMA reading memory the generic proxy
#      wrote) assembles for sm_90a and sm_100a (sm_80 refuses it:
#      tests/errors/E4000-fence-proxy-async-sm80.py);
#   3. the emulator runs it (32 threads): F[8], F[11], F[13], F[14] count
#      32 adds, F[10] is the exchanged 2, F[12] the 3 the first cas
#      stored, F[15] the last thread's cas result (3), the rest 0;
#   4. examples/allreduce_oneshot.py assembles for sm_80, sm_90a and
#      sm_100a, examples/allgather_gemm.py (wgmma) for sm_90a, and no
#      emitted PTX uses multimem (NVLink multicast stays out).
# Without ptxas the assembly steps are a loud SKIP.
BUILD=${BUILD:-build}
PTXTILE="$BUILD/ptxtile"
ptxas=${PTXAS:-}
[ -n "$ptxas" ] || ptxas=$(command -v ptxas 2>/dev/null)
[ -n "$ptxas" ] || { [ -x /usr/local/cuda/bin/ptxas ] && ptxas=/usr/local/cuda/bin/ptxas; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# assemble NAME PTX TARGET
assemble() {
	if [ -z "$ptxas" ]; then
		echo "SKIP mem_order/$1.ptxas: ptxas not found - NOT assembled"
	elif "$ptxas" -arch="$3" "$2" -o "$tmp/x.cubin" >"$tmp/log" 2>&1 &&
	     [ ! -s "$tmp/log" ]; then
		echo "PASS mem_order/$1.ptxas"
	else
		echo "FAIL mem_order/$1.ptxas: $(head -n 3 "$tmp/log")"
	fi
}

# compile NAME SCRIPT TARGET: PTX in $tmp/NAME.ptx
compile() {
	if "$PTXTILE" compile "$2" --target "$3" -o "$tmp/$1.ptx" \
		>/dev/null 2>"$tmp/err"; then
		echo "PASS mem_order/$1"
		assemble "$1" "$tmp/$1.ptx" "$3"
	else
		echo "FAIL mem_order/$1: $(head -n 3 "$tmp/err")"
	fi
}

forms='ld.relaxed.gpu.global.u32
ld.relaxed.sys.global.u32
ld.acquire.gpu.global.u32
ld.acquire.sys.global.u32
ld.acquire.sys.global.u64
st.relaxed.gpu.global.u32
st.relaxed.sys.global.u32
st.release.gpu.global.u32
st.release.sys.global.u32
st.release.sys.global.u64
atom.relaxed.sys.global.add.u32
atom.acquire.sys.global.or.b32
atom.release.sys.global.exch.b32
atom.acq_rel.sys.global.add.u32
atom.acq_rel.sys.global.cas.b32
red.relaxed.sys.global.add.u32
red.release.sys.global.add.u32
red.release.gpu.global.add.u64
fence.acq_rel.sys;
fence.sc.sys;'

for t in sm_90a sm_100a; do
	name=memory_order_$t
	compile "$name" tests/golden/memory_order.py "$t"
	[ -f "$tmp/$name.ptx" ] || continue
	missing=
	for f in $forms; do
		grep -q "^	$f" "$tmp/$name.ptx" || missing="$missing $f"
	done
	if [ -n "$missing" ]; then
		echo "FAIL mem_order/$name.forms: missing$missing"
	else
		echo "PASS mem_order/$name.forms"
	fi
done

out=$("$PTXTILE" run --emulate tests/golden/memory_order.py --target sm_90a --dump F 2>&1 | tail -n 1)
if [ "$out" = "F: 0 0 0 0 0 0 0 0 32 0 2 32 3 32 32 3" ]; then
	echo "PASS mem_order/emulated"
else
	echo "FAIL mem_order/emulated: $out"
fi

cat >"$tmp/proxy.py" <<'PY'
from tvm_tirx.script import tirx as T

@T.function
def proxy(F: T.Tensor((4,), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    T.ptx.fence.proxy.async_.global_()
    F[0] = T.uint32(1)
PY
for t in sm_90a sm_100a; do
	compile "proxy_$t" "$tmp/proxy.py" "$t"
	if [ -f "$tmp/proxy_$t.ptx" ] && grep -q '^	fence.proxy.async.global;' "$tmp/proxy_$t.ptx"; then
		echo "PASS mem_order/proxy_$t.form"
	else
		echo "FAIL mem_order/proxy_$t.form: no fence.proxy.async.global"
	fi
done

for t in sm_80 sm_90a sm_100a; do
	compile "allreduce_oneshot_$t" examples/allreduce_oneshot.py "$t"
done
compile allgather_gemm_sm90a examples/allgather_gemm.py sm_90a
if cat "$tmp"/allreduce_oneshot_*.ptx "$tmp"/allgather_gemm_sm90a.ptx 2>/dev/null | grep -q multimem; then
	echo "FAIL mem_order/no_multimem: an example emits multimem"
else
	echo "PASS mem_order/no_multimem"
fi
exit 0
