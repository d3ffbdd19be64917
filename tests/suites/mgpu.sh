#!/bin/sh
# tests/suites/mgpu.sh - `ptxtile run --emulate --devices N`: the one-shot
# all-reduce example on 2 and 4 emulated devices from the CLI, its sums
# checked here with awk from the dumped inputs (multiples of 1/8, so the
# float32 sums are exact and any order gives them), every device holding
# the same result; a relaxed-acquire variant reported by --check-order
# (E9561), naming the script lines with --lineinfo; and the usage errors of the new options.
BUILD=${BUILD:-build}
PTXTILE="$BUILD/ptxtile"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# allreduce NAME SCRIPT DEVICES N: runs it, output in $tmp/NAME.out
allreduce() {
	"$PTXTILE" run --emulate "$2" --kernel allreduce_f32 --devices "$3" \
		--check-order --size n="$4" --arg inp=random:7 \
		--arg peers=peers:inp --arg pads=peers:2048 --arg rank=@rank \
		--arg world=@world --arg epoch=1 --dump out --dump inp \
		>"$tmp/$1.out" 2>"$tmp/$1.err"
}

for nd in 2 4; do
	name=allreduce_f32_devices$nd
	if ! allreduce "$name" examples/allreduce_oneshot.py "$nd" 300; then
		echo "FAIL mgpu/$name: $(head -n 3 "$tmp/$name.err")"
		continue
	fi
	# every out[d] line equals the element-wise sum of the inp[d] lines
	if awk -v nd="$nd" '
		/^inp\[/ { for (i = 2; i <= NF; i++) sum[i] += $i; nin++ }
		/^out\[/ { nout++; for (i = 2; i <= NF; i++) out[nout, i] = $i; nf = NF }
		END {
			if (nin != nd || nout != nd || nf != 301) exit 1
			for (d = 1; d <= nd; d++)
				for (i = 2; i <= nf; i++)
					if (out[d, i] + 0 != sum[i]) exit 1
		}' "$tmp/$name.out"; then
		echo "PASS mgpu/$name"
	else
		echo "FAIL mgpu/$name: the sums differ ($(head -c 300 "$tmp/$name.out"))"
	fi
done

sed 's/ld\.acquire\.sys/ld.relaxed.sys/' examples/allreduce_oneshot.py >"$tmp/relaxed.py"
if allreduce relaxed "$tmp/relaxed.py" 2 64; then
	echo "FAIL mgpu/relaxed_reported: the relaxed variant ran clean"
elif grep -q "error\[E9561\]: device [01]: CTA .*(ld.global.f32): cross-device race" "$tmp/relaxed.err"; then
	echo "PASS mgpu/relaxed_reported"
else
	echo "FAIL mgpu/relaxed_reported: $(head -n 3 "$tmp/relaxed.err")"
fi

# with --lineinfo both reads name their script lines (found here by grep)
dl=$(grep -n 'T.ptx\["ld.global.f32"\]' "$tmp/relaxed.py" | head -n 1 | cut -d: -f1)
fl=$(grep -n 'T.ptx\["ld.relaxed.sys' "$tmp/relaxed.py" | head -n 1 | cut -d: -f1)
"$PTXTILE" run --emulate "$tmp/relaxed.py" --lineinfo --kernel allreduce_f32 \
	--devices 2 --check-order --size n=64 --arg peers=peers:inp \
	--arg pads=peers:2048 --arg rank=@rank --arg world=@world --arg epoch=1 \
	>/dev/null 2>"$tmp/li.err"
if grep -q "(ld.global.f32) at $tmp/relaxed.py:$dl: cross-device race" "$tmp/li.err" &&
   grep -q "(ld.relaxed.sys.global.u32) at $tmp/relaxed.py:$fl was relaxed" "$tmp/li.err"; then
	echo "PASS mgpu/relaxed_script_lines"
else
	echo "FAIL mgpu/relaxed_script_lines: $(head -n 3 "$tmp/li.err")"
fi

# usage errors: exit 2
usage() {
	shift_name=$1
	shift
	"$PTXTILE" run "$@" >/dev/null 2>"$tmp/u.err"
	if [ $? -eq 2 ]; then
		echo "PASS mgpu/usage_$shift_name"
	else
		echo "FAIL mgpu/usage_$shift_name: not a usage error"
	fi
}
usage devices1 --emulate examples/allreduce_oneshot.py --devices 1
usage devices9 --emulate examples/allreduce_oneshot.py --devices 9
usage order_alone --emulate examples/allreduce_oneshot.py --check-order
usage gpu_devices --gpu examples/allreduce_oneshot.py --devices 2
usage peers_dtype --emulate examples/allreduce_oneshot.py --kernel allreduce_f32 \
	--devices 2 --size n=8 --arg inp=peers:out --arg rank=@rank \
	--arg world=@world --arg epoch=1
exit 0
