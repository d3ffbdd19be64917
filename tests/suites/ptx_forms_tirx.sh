#!/bin/sh
# tests/suites/ptx_forms_tirx.sh - the raw forms TIRx kernels use (issue
# 22): ld.volatile, fns.b32, movmatrix, st.bulk, add.f32.{bf16,f16}, and
# what the T.cuda intrinsics lower to (cuda_intrinsics.py).  An expected
# spelling is followed by its operands or, with none, by ';'.
# Each tests/ptxforms/NAME.py names its minimum target ("# gate: sm_X")
# and the spellings it must emit ("# expect: a, b").  For sm_80, sm_90a
# and sm_100a:
#   - at or above the gate: ptxtile compiles it, every expected spelling
#     is an instruction of the PTX, and ptxas accepts the PTX silently;
#   - below the gate: ptxtile refuses it with E4000 (the target check),
#     and ptxas refuses the gate target's PTX retargeted there (.target
#     line swapped) - so the gate is ptxas's, not ours.
# Without ptxas the ptxas halves are a loud SKIP.
BUILD=${BUILD:-build}
P="$BUILD/ptxtile"
PTXAS=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rank() { case $1 in sm_80) echo 0 ;; sm_90a) echo 1 ;; sm_100a) echo 2 ;; esac; }
for py in tests/ptxforms/*.py; do
	name=$(basename "$py" .py)
	gate=$(sed -n 's/^# gate: *//p' "$py")
	want=$(sed -n 's/^# expect: *//p' "$py" | tr -d ' ' | tr ',' ' ')
	if ! "$P" compile "$py" --target "$gate" -o "$tmp/$name.gate.ptx" 2>"$tmp/err"; then
		echo "FAIL ptx_forms/$name: does not compile for its gate $gate: $(head -n 1 "$tmp/err")"
		continue
	fi
	for t in sm_80 sm_90a sm_100a; do
		id="ptx_forms/$name.$t"
		if [ "$(rank "$t")" -lt "$(rank "$gate")" ]; then
			if "$P" check "$py" --target "$t" --diag=short >"$tmp/out" 2>&1; then
				echo "FAIL $id: compiles below its gate $gate"
			elif ! grep -q E4000 "$tmp/out"; then
				echo "FAIL $id: not E4000: $(head -n 1 "$tmp/out")"
			else
				echo "PASS $id (E4000)"
			fi
			[ -x "$PTXAS" ] || { echo "SKIP $id.ptxas: no ptxas"; continue; }
			sed "s/^\.target .*/.target $t/" "$tmp/$name.gate.ptx" >"$tmp/low.ptx"
			if "$PTXAS" -arch="$t" "$tmp/low.ptx" -o /dev/null >/dev/null 2>&1; then
				echo "FAIL $id.ptxas: ptxas accepts it on $t, the gate is too high"
			else
				echo "PASS $id.ptxas (ptxas refuses it too)"
			fi
			continue
		fi
		if ! "$P" compile "$py" --target "$t" -o "$tmp/$name.ptx" 2>"$tmp/err"; then
			echo "FAIL $id: $(head -n 1 "$tmp/err")"
			continue
		fi
		bad=
		for sp in $want; do
			grep -qE "^[[:space:]]*(@%p[0-9]+ )?$(echo "$sp" | sed 's/\./\\./g')[ ;]" "$tmp/$name.ptx" ||
				bad="$bad $sp"
		done
		if [ -n "$bad" ]; then
			echo "FAIL $id: missing$bad"
			continue
		fi
		echo "PASS $id"
		[ -x "$PTXAS" ] || { echo "SKIP $id.ptxas: no ptxas"; continue; }
		if "$PTXAS" -arch="$t" "$tmp/$name.ptx" -o /dev/null >"$tmp/log" 2>&1 && [ ! -s "$tmp/log" ]; then
			echo "PASS $id.ptxas"
		else
			echo "FAIL $id.ptxas: $(head -n 2 "$tmp/log" | tr '\n' ' ')"
		fi
	done
done
