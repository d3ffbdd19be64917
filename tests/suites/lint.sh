#!/bin/sh
# `make lint`: the files of tools/lint-files.txt conform to .clang-format,
# and the rule fails on a file that does not (a stand-in list naming a
# misformatted copy, next to a copy of .clang-format).
if ! command -v clang-format >/dev/null; then
	echo "SKIP lint: clang-format not found; style is NOT checked"
	exit 0
fi
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
if make -s --no-print-directory lint >"$t/out" 2>&1; then
	echo "PASS lint/listed_files"
else
	echo "FAIL lint/listed_files: $(grep -m 1 'error' "$t/out")"
fi
missing=$(sed -e 's/#.*//' tools/lint-files.txt | while read -r f; do
	[ -z "$f" ] || [ -f "$f" ] || echo "$f"; done)
if [ -z "$missing" ]; then
	echo "PASS lint/list_paths_exist"
else
	echo "FAIL lint/list_paths_exist: $missing"
fi
cp .clang-format "$t/"
printf 'int f(void) { return 1; }\n' >"$t/bad.c"
echo "$t/bad.c" >"$t/list"
if make -s --no-print-directory lint LINT_LIST="$t/list" >/dev/null 2>&1; then
	echo "FAIL lint/rejects_misformatted: make lint passed a one-line function"
else
	echo "PASS lint/rejects_misformatted"
fi
