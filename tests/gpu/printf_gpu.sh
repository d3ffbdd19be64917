#!/bin/sh
# tests/gpu/printf_gpu.sh - device printf and assert on a GPU (issue 22):
# tests/golden/printf_assert.py through `ptxtile run --gpu`, its stdout
# compared with the shell's printf of the values the script computes (the
# same check tests/suites/emu.sh makes of the emulator), then a failing
# assert: its "file:line: assertion failed: ..." line and a non-zero exit.
# One PASS/FAIL line per check; exit 1 when any fails, 77 without a GPU.
# Run from the repository root after `make`:  sh tests/gpu/printf_gpu.sh
BUILD=${BUILD:-build}
P="$BUILD/ptxtile"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
ok() { echo "PASS gpu/$1"; }
bad() { echo "FAIL gpu/$1: $2"; fail=1; }
[ -x "$P" ] || { echo "FAIL gpu/printf: no $P (run make first)"; exit 1; }
for target in sm_90a sm_100a; do
	"$P" run --gpu tests/golden/printf_assert.py --target $target \
		--arg A=iota --arg n=-42 >"$t/out" 2>"$t/err" && break
done
if grep -q "no CUDA\|no GPU\|cuInit" "$t/err" && ! [ -s "$t/out" ]; then
	echo "SKIP gpu/printf: $(head -1 "$t/err")"
	exit 77
fi
for i in 0 1 2 3; do
	printf 'lane %d: x=%04d b=%.2f n=%d h=%#x\n' $i $((3 * i)) \
		"$(awk "BEGIN { print $i * 1.5 }")" -42 48879
done >"$t/want"
printf '100%% done\n' >>"$t/want"
sort "$t/want" >"$t/want.s"
grep -v '^ptxtile run' "$t/out" | sort >"$t/got.s"
if cmp -s "$t/got.s" "$t/want.s"; then ok printf_text; else
	bad printf_text "got: $(cat "$t/out" "$t/err") / want: $(cat "$t/want")"; fi
# lane 2 reads A[2] = 12 and fails the assert of line 19
printf '\000\000\000\000\001\000\000\000\014\000\000\000\003\000\000\000' >"$t/a.bin"
"$P" run --gpu tests/golden/printf_assert.py --target $target --lineinfo \
	--arg A=file:"$t/a.bin" --arg n=1 >"$t/out2" 2>"$t/err2"
rc=$?
[ $rc -ne 0 ] && ok assert_exit || bad assert_exit "exit 0 after a failed assert"
if grep -qx 'tests/golden/printf_assert.py:19: assertion failed: A\[tid\] < 10: A\[tid\] is a small index' "$t/out2"; then
	ok assert_text
else
	bad assert_text "stdout: $(cat "$t/out2") stderr: $(head -3 "$t/err2")"
fi
echo "gpu/printf: target $target; stderr of the assert run: $(head -2 "$t/err2")"
exit $fail
