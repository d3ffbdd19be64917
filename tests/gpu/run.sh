#!/bin/sh
# tests/gpu/run.sh - builds every GPU test program tests/gpu/*.c against
# $BUILD/libptxtile_rt.a, runs each, and counts their "PASS gpu/..." and
# "FAIL gpu/..." lines, ending with "N passed, N failed".
#
# Exit: 0 all passed; 1 a failure; 77 (skip) when there is no CUDA driver
# (libcuda.so.1 cannot be opened) or no device - with a message saying so.
# Then the Python package's GPU tests (tests/python_gpu/run.sh).
# Run from anywhere: `make test-gpu` or `BUILD=build sh tests/gpu/run.sh`.
BUILD=${BUILD:-build}
CC=${CC:-cc}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
lib="$BUILD/libptxtile_rt.a"
if [ ! -f "$lib" ]; then
	echo "tests/gpu: $lib is missing; run make first" >&2
	exit 2
fi
out="$BUILD/gpu"
mkdir -p "$out"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
skipped=0
ran=0
for src in tests/gpu/*.c; do
	[ -f "$src" ] || continue
	name=$(basename "$src" .c)
	bin="$out/$name"
	if ! $CC -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g -Wall -Wextra \
		-Wno-unused-parameter -Iinclude -Itests/gpu "$src" "$lib" \
		-ldl -lm -o "$bin" 2>"$out/$name.build.log"; then
		echo "FAIL gpu/$name: does not build:" | tee -a "$log"
		sed 's/^/    /' "$out/$name.build.log"
		continue
	fi
	# a kernel that never completes (say, a barrier that is never
	# satisfied) must fail, not hang the run
	timeout "${GPU_TIMEOUT:-120}" "$bin" >"$out/$name.out" 2>"$out/$name.err"
	rc=$?
	if [ $rc -eq 124 ]; then
		echo "FAIL gpu/$name: timed out after ${GPU_TIMEOUT:-120} s" >>"$out/$name.out"
	fi
	cat "$out/$name.out"
	sed 's/^/    # /' "$out/$name.err"
	cat "$out/$name.out" >>"$log"
	if [ $rc -eq 77 ]; then
		skipped=$((skipped + 1))
		continue
	fi
	ran=$((ran + 1))
	if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$out/$name.out"; then
		# crashed or exited early without saying why
		echo "FAIL gpu/$name: exited with status $rc" | tee -a "$log"
	fi
done
# the Python package with torch (tests/python_gpu): its lines count here
if [ -f tests/python_gpu/run.sh ]; then
	BUILD="$BUILD" sh tests/python_gpu/run.sh >"$out/python_gpu.out" 2>&1
	rc=$?
	cat "$out/python_gpu.out"
	cat "$out/python_gpu.out" >>"$log"
	if [ $rc -eq 77 ]; then
		skipped=$((skipped + 1))
	else
		ran=$((ran + 1))
	fi
fi
# the emulator against the GPU on the same inputs (tests/gpu/emu_diff.sh)
BUILD="$BUILD" sh tests/gpu/emu_diff.sh >"$out/emu_diff.out" 2>&1
rc=$?
cat "$out/emu_diff.out"
if [ $rc -eq 77 ]; then
	skipped=$((skipped + 1))
else
	ran=$((ran + 1))
	grep '^PASS \|^FAIL ' "$out/emu_diff.out" >>"$log"
	[ $rc -ne 0 ] && ! grep -q '^FAIL ' "$out/emu_diff.out" &&
		echo "FAIL gpu/emu_diff: exited with status $rc" | tee -a "$log"
fi
# the randomised differential per instruction family (tools/emu_fuzz.py):
# EMU_FUZZ_SEEDS kernels per family, GPU against emulator
if command -v python3 >/dev/null 2>&1; then
	python3 tools/emu_fuzz.py --build "$BUILD" --seeds "${EMU_FUZZ_SEEDS:-25}" \
		--jobs "${EMU_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 8)}" >"$out/emu_fuzz.out" 2>&1
	rc=$?
	cat "$out/emu_fuzz.out"
	if [ $rc -eq 77 ]; then
		skipped=$((skipped + 1))
	else
		ran=$((ran + 1))
		grep '^PASS \|^FAIL ' "$out/emu_fuzz.out" >>"$log"
		[ $rc -ne 0 ] && ! grep -q '^FAIL ' "$out/emu_fuzz.out" &&
			echo "FAIL gpu/emu_fuzz: exited with status $rc" | tee -a "$log"
	fi
fi
# the C host example (examples/host/vcopy_host.c) on a ragged size
host="$BUILD/vcopy_host"
if [ -x "$host" ]; then
	if "$BUILD/ptxtile" compile -q examples/vcopy_dynamic.py \
		-o "$out/vcopy_dynamic.ptx" --meta "$out/vcopy_dynamic.json"; then
		for n in 1000 1; do
			"$host" "$out/vcopy_dynamic.ptx" "$out/vcopy_dynamic.json" \
				$n >"$out/host.out" 2>&1
			rc=$?
			if [ $rc -eq 77 ]; then
				skipped=$((skipped + 1))
				echo "SKIP gpu/host_example_n$n: $(head -n 1 "$out/host.out")"
				continue
			fi
			ran=$((ran + 1))
			if [ $rc -eq 0 ]; then
				echo "PASS gpu/host_example_n$n" | tee -a "$log"
			else
				echo "FAIL gpu/host_example_n$n: $(head -n 2 "$out/host.out")" | tee -a "$log"
			fi
		done
	else
		echo "FAIL gpu/host_example: vcopy_dynamic.py does not compile" | tee -a "$log"
	fi
else
	echo "FAIL gpu/host_example: $host is missing (make builds it)" | tee -a "$log"
fi
passed=$(grep -c '^PASS ' "$log")
failed=$(grep -c '^FAIL ' "$log")
if [ $ran -eq 0 ] && [ $failed -eq 0 ] && [ $skipped -gt 0 ]; then
	echo "tests/gpu: skipped - no CUDA driver or no GPU on this machine" \
	     "(libcuda.so.1 could not be used); run make test-gpu on a GPU host"
	echo "$passed passed, $failed failed, $skipped skipped"
	exit 77
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
