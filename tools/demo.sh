#!/bin/sh
# tools/demo.sh - `make demo`: for every examples/*.py, check it and
# compile it to PTX for its target (sm_100a when its header says so,
# otherwise sm_90a), assembling a cubin when ptxas is present; one line
# per example.  Where a CUDA driver is present, then runs the GPU tests
# (tests/gpu/run.sh), which launch the kernels and compare with host
# references; without one, runs the examples in the PTX emulator against
# host-computed values (and says so).  An example with a `# Pending: WHAT` header line waits for
# a part of ptxtile not written yet: it must still print, and is reported
# as pending.  Outputs go to $BUILD/demo/.  Exit status 1 when an example
# fails to check or compile.
BUILD=${BUILD:-build}
bin="$BUILD/ptxtile"
out="$BUILD/demo"
if [ ! -x "$bin" ]; then
	echo "demo: $bin is missing; run make first" >&2
	exit 2
fi
mkdir -p "$out"
have_ptxas=no
if [ -n "$PTXAS" ] || command -v ptxas >/dev/null 2>&1 ||
   [ -x /usr/local/cuda/bin/ptxas ]; then
	have_ptxas=yes
fi
bad=0
for f in examples/*.py; do
	[ -f "$f" ] || continue
	name=$(basename "$f" .py)
	target=sm_90a
	if grep -q '^# Target: sm_100a' "$f"; then
		target=sm_100a
	fi
	pending=$(sed -n 's/^# Pending: //p' "$f" | head -1)
	if [ -n "$pending" ]; then
		# the example says which part of ptxtile it waits for; it must
		# still load and print
		if "$bin" print "$f" >"$out/$name.print.py" 2>"$out/$name.check.log"; then
			printf '%-24s %-8s print ok, compile pending: %s\n' \
				"$name" "$target" "$pending"
		else
			printf '%-24s %-8s print FAILED: %s\n' "$name" "$target" \
				"$(head -1 "$out/$name.check.log")"
			bad=1
		fi
		continue
	fi
	if ! "$bin" check "$f" --target "$target" >"$out/$name.check.log" 2>&1; then
		printf '%-24s %-8s check FAILED: %s\n' "$name" "$target" \
			"$(head -1 "$out/$name.check.log")"
		bad=1
		continue
	fi
	cubin=""
	[ "$have_ptxas" = yes ] && cubin="--cubin $out/$name.cubin"
	# shellcheck disable=SC2086
	if ! "$bin" compile "$f" --target "$target" -o "$out/$name.ptx" \
		--meta "$out/$name.meta.json" $cubin >"$out/$name.compile.log" 2>&1; then
		printf '%-24s %-8s check ok, compile FAILED: %s\n' "$name" \
			"$target" "$(head -1 "$out/$name.compile.log")"
		bad=1
		continue
	fi
	lines=$(wc -l <"$out/$name.ptx")
	printf '%-24s %-8s check ok, compile ok (%d PTX lines%s)\n' "$name" \
		"$target" "$lines" "$([ -n "$cubin" ] && echo ', cubin')"
done
if [ -f tests/gpu/run.sh ]; then
	echo "== GPU tests (tests/gpu/run.sh)"
	BUILD="$BUILD" sh tests/gpu/run.sh
	rc=$?
	if [ $rc -eq 77 ]; then
		no_gpu=yes
	elif [ $rc -ne 0 ]; then
		bad=1
	fi
else
	no_gpu=yes
fi
# Without a GPU the examples still run: in the PTX emulator, each
# compared with values computed on the host from what its script states
# (the emu_script_* unit tests of tests/unit/test_emu.c, sm_90a and
# sm_100a examples).
if [ "${no_gpu:-no}" = yes ]; then
	echo "== no CUDA driver or device here: running the examples in the PTX emulator instead"
	if [ ! -x "$BUILD/unit_tests" ]; then
		echo "demo: $BUILD/unit_tests is missing (make $BUILD/unit_tests)" >&2
		exit 2
	fi
	elog="$out/emulator.log"
	"$BUILD/unit_tests" emu_script_ >"$elog" 2>&1
	erc=$?
	sed -n 's/^\(PASS\|FAIL\) unit\/emu_script_\(.*\)/\1 emulator\/\2 (against host-computed values)/p' "$elog"
	np=$(grep -c '^PASS ' "$elog")
	nf=$(grep -c '^FAIL ' "$elog")
	echo "emulator: $np passed, $nf failed (kernels run in the PTX emulator, not on a GPU)"
	if [ $erc -ne 0 ] || [ "$nf" -ne 0 ] || [ "$np" -eq 0 ]; then
		grep -v '^PASS ' "$elog" | head -20
		bad=1
	fi
fi
exit $bad
