#!/bin/sh
# `make lint`: every C source and header of the tree passes (trailing
# whitespace in all, .clang-format in all but tools/lint-pending.txt),
# and the rule fails on a file that does not (a stand-in file list naming
# a misformatted copy, next to a copy of .clang-format).  The pending
# list only names files that exist and do not conform yet: one that
# conforms must leave it, so the list shrinks.
if ! command -v clang-format >/dev/null; then
	echo "SKIP lint: clang-format not found; style is NOT checked"
	exit 0
fi
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
if make -s --no-print-directory lint >"$t/out" 2>&1; then
	echo "PASS lint/every_c_file"
else
	echo "FAIL lint/every_c_file: $(grep -m 1 'error' "$t/out")"
fi
pending=$(sed -e 's/#.*//' tools/lint-pending.txt)
missing= formatted=
for f in $pending; do
	if [ ! -f "$f" ]; then
		missing="$missing $f"
	elif clang-format --style=file --dry-run --Werror "$f" >/dev/null 2>&1; then
		formatted="$formatted $f"
	fi
done
if [ -z "$missing" ]; then
	echo "PASS lint/pending_paths_exist"
else
	echo "FAIL lint/pending_paths_exist:$missing"
fi
if [ -z "$formatted" ]; then
	echo "PASS lint/pending_only_unformatted"
else
	echo "FAIL lint/pending_only_unformatted: conform now, drop them from tools/lint-pending.txt:$formatted"
fi
# a file under src/ that no list names is checked
if make -s --no-print-directory -n lint | grep -q 'src/abi.c'; then
	echo "PASS lint/covers_unlisted_files"
else
	echo "FAIL lint/covers_unlisted_files: src/abi.c is not checked"
fi
cp .clang-format "$t/"
printf 'int f(void) { return 1; }\n' >"$t/bad.c"
if make -s --no-print-directory lint LINT_FILES="$t/bad.c" \
	LINT_PENDING=/dev/null >/dev/null 2>&1; then
	echo "FAIL lint/rejects_misformatted: make lint passed a one-line function"
else
	echo "PASS lint/rejects_misformatted"
fi
printf 'int\nf(void)\n{\n\treturn 1; \n}\n' >"$t/space.c"
echo "$t/space.c" >"$t/pending"
if make -s --no-print-directory lint LINT_FILES="$t/space.c" \
	LINT_PENDING="$t/pending" >/dev/null 2>&1; then
	echo "FAIL lint/rejects_trailing_space: a pending file with a trailing blank passed"
else
	echo "PASS lint/rejects_trailing_space"
fi
