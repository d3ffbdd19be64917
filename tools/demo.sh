#!/bin/sh
# tools/demo.sh - `make demo`: for every examples/*.py, check it and
# compile it to PTX for its target (sm_100a when its header says so,
# otherwise sm_90a), assembling a cubin when ptxas is present; one line
# per example.  Where a CUDA driver is present, then runs the GPU tests
# (tests/gpu/run.sh), which launch the kernels and compare with host
# references.  An example with a `# Pending: WHAT` header line waits for
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
		echo "(no CUDA driver or device here: kernels were not run)"
	elif [ $rc -ne 0 ]; then
		bad=1
	fi
fi
exit $bad
