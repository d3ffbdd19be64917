#!/bin/sh
# tests/suites/python.sh - the CPU tests of the Python package
# (python/tests, pytest) against the libraries in $BUILD: one
# "PASS python/FILE::TEST", "FAIL ..." or "SKIP ...: reason" line per test,
# for tests/run.sh to count.  Prints one SKIP line when pytest is missing
# (.ci/run installs it).  Under the sanitizer build (build-asan) the
# ASan/UBSan runtimes are preloaded into python3, so the ctypes calls run
# the instrumented libraries; leak detection is off there (the
# interpreter's own allocations at exit are not ours).
BUILD=${BUILD:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
if ! python3 -c 'import pytest' >/dev/null 2>&1; then
	echo "SKIP python: pytest is not installed (pip install pytest, or apt-get install python3-pytest)"
	exit 0
fi
case "$BUILD" in
/*) libdir=$BUILD ;;
*) libdir=$root/$BUILD ;;
esac
if [ ! -f "$libdir/libptxtile.so" ] || [ ! -f "$libdir/libptxtile_rt.so" ]; then
	echo "FAIL python: $libdir/libptxtile.so or libptxtile_rt.so is missing (make pylib)"
	exit 0
fi
export PTXTILE_LIB_DIR="$libdir" PYTHONPATH="$root/python" PYTHONDONTWRITEBYTECODE=1
if nm -D "$libdir/libptxtile.so" 2>/dev/null | grep -q __asan_init; then
	cc=${CC:-gcc}
	LD_PRELOAD="$($cc -print-file-name=libasan.so) $($cc -print-file-name=libubsan.so)"
	ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
	export LD_PRELOAD ASAN_OPTIONS
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
python3 -m pytest -v -p no:cacheprovider python/tests >"$out" 2>&1
rc=$?
awk '
/^python\/tests\/[^ ]*::[^ ]* (PASSED|FAILED|ERROR|SKIPPED)/ {
	name = $1; sub(/^python\/tests\//, "python/", name); sub(/\.py::/, "::", name)
	if ($2 == "PASSED") print "PASS " name
	else if ($2 == "SKIPPED") {
		reason = $0; sub(/^[^(]*\(?/, "", reason); sub(/\)? *(\[ *[0-9]+%\])? *$/, "", reason)
		print "SKIP " name ": " reason
	} else print "FAIL " name
}' "$out"
if [ $rc -ne 0 ]; then
	grep -q '^python/tests/.* \(FAILED\|ERROR\)' "$out" ||
		echo "FAIL python: pytest exited with status $rc"
	sed -n '/^=* \(FAILURES\|ERRORS\) =*$/,$p' "$out" | head -150 | sed 's/^/    /'
	[ -s "$out" ] && ! grep -q '^=* \(FAILURES\|ERRORS\)' "$out" && tail -30 "$out" | sed 's/^/    /'
fi
exit 0
