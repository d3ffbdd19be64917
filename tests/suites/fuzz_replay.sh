#!/bin/sh
# Replays every libFuzzer target tests/fuzz/fuzz_*.c over its corpus
# tests/fuzz/corpus/<target>/* and over the saved crash inputs
# tests/fuzz/crashes/*, built with the project's normal compiler through
# tests/fuzz/replay.c (no libFuzzer needed).  In build-asan the replay runs
# under ASan+UBSan, so any report fails the target.  Prints PASS/FAIL per
# target.  $BUILD is the build folder holding libptxtile.a.
BUILD=${BUILD:-build}
CC=${CC:-cc}
out="$BUILD/fuzz-replay"
mkdir -p "$out"
san=""
if nm "$BUILD/libptxtile.a" 2>/dev/null | grep -q __asan_report; then
	san="-fsanitize=address,undefined -fno-sanitize-recover=all"
fi
for src in tests/fuzz/fuzz_*.c; do
	[ -f "$src" ] || continue
	t=$(basename "$src" .c)
	bin="$out/$t"
	if ! $CC -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 $san \
		-Iinclude -Isrc \
		"$src" tests/fuzz/replay.c $(ls "$BUILD"/src/rt/*.o 2>/dev/null) \
		"$BUILD/libptxtile.a" -lm -ldl \
		-o "$bin" 2>"$out/$t.log"; then
		echo "FAIL fuzz/$t: does not build (see $out/$t.log)"
		continue
	fi
	set --
	for f in tests/fuzz/corpus/"$t"/* tests/fuzz/crashes/*; do
		[ -f "$f" ] && set -- "$@" "$f"
	done
	if [ $# -eq 0 ]; then
		echo "SKIP fuzz/$t: no corpus"
		continue
	fi
	if ASAN_OPTIONS=detect_leaks=1 "$bin" "$@" >"$out/$t.log" 2>&1; then
		echo "PASS fuzz/$t ($# inputs)"
	else
		echo "FAIL fuzz/$t: replay failed (see $out/$t.log)"
	fi
done
