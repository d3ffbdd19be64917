#!/bin/sh
# tests/suites/python.sh - the CPU tests of the Python package
# (python/tests, pytest) against the libraries in $BUILD: one
# "PASS python/FILE::TEST", "FAIL ..." or "SKIP ...: reason" line per test,
# for tests/run.sh to count.  pytest is required: without it the suite
# is one FAIL line saying how to install it (.ci/run installs it), so a
# machine without pytest cannot pass `make test` having run no Python.  Under the sanitizer build (build-asan) the
# ASan/UBSan runtimes are preloaded into python3, so the ctypes calls run
# the instrumented libraries; leak detection is off there (the
# interpreter's own allocations at exit are not ours).
# PY_TESTS / PY_PREFIX name another test folder and line prefix
# (tests/python_gpu/run.sh); PTXTILE_TEST_INSTALLED=1 tests the installed
# package instead of python/ with $BUILD's libraries.
BUILD=${BUILD:-build}
PY_TESTS=${PY_TESTS:-python/tests}
PY_PREFIX=${PY_PREFIX:-python}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
if ! python3 -c 'import pytest' >/dev/null 2>&1; then
	echo "FAIL $PY_PREFIX: pytest is not installed, so the Python tests cannot run: python3 -m pip install pytest numpy (or apt-get install python3-pytest python3-numpy)"
	exit 0
fi
case "$BUILD" in
/*) libdir=$BUILD ;;
*) libdir=$root/$BUILD ;;
esac
export PYTHONDONTWRITEBYTECODE=1
if [ "${PTXTILE_TEST_INSTALLED:-0}" = 1 ]; then
	unset PTXTILE_LIB_DIR
	libdir=$(python3 -c 'import ptxtile._lib as l; import os; print(os.path.dirname(l.lib_path("libptxtile.so")))') || {
		echo "FAIL $PY_PREFIX: the installed package has no libraries"; exit 0; }
elif [ ! -f "$libdir/libptxtile.so" ] || [ ! -f "$libdir/libptxtile_rt.so" ]; then
	echo "FAIL $PY_PREFIX: $libdir/libptxtile.so or libptxtile_rt.so is missing (make pylib)"
	exit 0
else
	export PTXTILE_LIB_DIR="$libdir" PYTHONPATH="$root/python"
fi
if nm -D "$libdir/libptxtile.so" 2>/dev/null | grep -q __asan_init; then
	cc=${CC:-gcc}
	LD_PRELOAD="$($cc -print-file-name=libasan.so) $($cc -print-file-name=libubsan.so)"
	ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
	export LD_PRELOAD ASAN_OPTIONS
fi
out=$(mktemp)
xml=$(mktemp)
trap 'rm -f "$out" "$xml"' EXIT
python3 -m pytest -v -p no:cacheprovider --junitxml="$xml" "$PY_TESTS" \
	>"$out" 2>&1
rc=$?
# one line per test case of the JUnit report (the standard library reads it)
env -u LD_PRELOAD python3 - "$xml" "$PY_PREFIX" <<'PY' || echo "FAIL $PY_PREFIX: no pytest report"
import sys
import xml.etree.ElementTree as ET
path, prefix = sys.argv[1], sys.argv[2]
for case in ET.parse(path).getroot().iter("testcase"):
    name = "%s/%s::%s" % (prefix, case.get("classname", "").split(".")[-1],
                          case.get("name"))
    bad = case.find("failure") if case.find("failure") is not None \
        else case.find("error")
    skip = case.find("skipped")
    if bad is not None:
        print("FAIL %s: %s" % (name, (bad.get("message") or "")
                               .splitlines()[0][:200] if bad.get("message")
                               else "failed"))
    elif skip is not None:
        print("SKIP %s: %s" % (name, (skip.get("message") or "skipped")
                               .replace("\n", " ")[:200]))
    else:
        print("PASS " + name)
PY
if [ $rc -ne 0 ]; then
	grep -q " \(FAILED\|ERROR\)" "$out" ||
		echo "FAIL $PY_PREFIX: pytest exited with status $rc"
	sed -n '/^=* \(FAILURES\|ERRORS\) =*$/,$p' "$out" | head -150 | sed 's/^/    /'
	grep -q '^=* \(FAILURES\|ERRORS\)' "$out" || tail -30 "$out" | sed 's/^/    /'
fi
exit 0
