#!/bin/sh
# One PTX vocabulary (issue 21): every instruction line codegen writes,
# its own scalar helpers (setp, selp, mov, mad, shr, cvt, ld.param, ret,
# ...) included, is a row of the PTX form table, selected by the same
# parse and selection the emulator's loader runs ($BUILD/ptxvocab,
# emu_vocab), so the ptxas differential (ptx_diff.sh) covers it too.
#
# The scripts: examples/*.py, tests/golden/*.py, tests/hostile/accept/*.py,
# each compiled for every target it compiles for (sm_80, sm_90a,
# sm_100a: a script using sm_90 or sm_100 features is refused by the
# older targets with a diagnostic, which is no failure here; a script
# that compiles for none is).  A line no row takes is a FAIL naming the
# file, the PTX line and the instruction.  A self-test first: a line
# without a row must fail, so the check can fail.
BUILD=${BUILD:-build}
P=$BUILD/ptxtile
V=$BUILD/ptxvocab
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -x "$V" ]; then
	echo "FAIL vocab: $V not built"
	exit 0
fi

# self-test: setp.lt.b32 (an ordered comparison of a .b type, which
# ptxas refuses and no row takes) on line 7
cat >"$tmp/selftest.ptx" <<'EOF'
.version 8.0
.target sm_90a
.address_size 64
.visible .entry k()
{
	.reg .pred %p<2>; .reg .b32 %r<3>;
	setp.lt.b32 %p1, %r1, %r2;
	ret;
}
EOF
"$V" "$tmp/selftest.ptx" >"$tmp/self.out" 2>&1
rc=$?
if [ "$rc" -eq 1 ] &&
   grep -q "^FAIL vocab/$tmp/selftest.ptx:7: setp.lt.b32: " "$tmp/self.out"; then
	echo "PASS vocab/selftest_miss"
else
	echo "FAIL vocab/selftest_miss: exit $rc: $(head -c 300 "$tmp/self.out")"
fi

mkdir "$tmp/ptx"
for py in examples/*.py tests/golden/*.py tests/hostile/accept/*.py; do
	[ -f "$py" ] || continue
	name=$(echo "$py" | sed 's|/|__|g; s|\.py$||')
	any=
	for t in sm_80 sm_90a sm_100a; do
		if "$P" compile "$py" --target "$t" -o "$tmp/ptx/$name.$t.ptx" \
			>/dev/null 2>"$tmp/err"; then
			any=1
		else
			rm -f "$tmp/ptx/$name.$t.ptx"
		fi
	done
	[ -n "$any" ] || echo "FAIL vocab/$py: compiles for no target: $(head -c 300 "$tmp/err")"
done
# names relative to the kept folder, so FAIL lines read as script.target
vabs=$(cd "$(dirname "$V")" && pwd)/$(basename "$V")
(cd "$tmp/ptx" && "$vabs" *.ptx)
