#!/bin/sh
# Mutation testing of the contract code in src/tile, src/layout and src/ptx:
# how many single-operator mutants of a condition does the CPU test suite
# kill?
#
#   tools/mutation_test.sh [N] [SEED]
#
# Candidates are the comparison and logic operators (< <= > >= == != && ||)
# on `if (...)` lines of src/tile/**/*.c, src/layout/*.c and src/ptx/*.c
# (not the shifts << and >>, the arrow ->, nor characters inside string or
# character literals such as '>'); each mutant flips one operator (< to
# <=, == to !=, && to ||, ...).  N mutants (default
# 30) are sampled with SEED (default 1).  Each is built in a private copy of
# the tree (/tmp, build folder mut/) and run against the unit tests and the
# errors, golden, hostile, rtsize, tile_*, property, dx, gemm_mxf8,
# wgmma_explain, tirx_compat and roundtrip suites (ptx_diff, cli, emu*,
# json_roundtrip, codes and the fuzz replay are left out for time: 5 to
# 30 s each per surviving mutant); a mutant is killed when any test
# fails, the build breaks, or a test program or suite exits non-zero
# (a signal included).  Only mut/ptxtile and mut/unit_tests are built
# (every suite above runs those two; the shared libraries and the host
# example would only cost links).  Prints each mutant
# and "killed K of N (P%)"; survivors are listed for a closer look
# (an equivalent mutant cannot be killed).  MUTANTS=FILE re-tests the
# sites FILE lists instead (file:line:col:op lines, as printed in the
# sites list), e.g. earlier survivors after new tests.  SITES=1 only
# prints the candidate sites and their count (no build).
MUTANTS=${MUTANTS:+$(cd "$(dirname "$MUTANTS")" && pwd)/$(basename "$MUTANTS")}
N=${1:-30}
SEED=${2:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/ptxtile-mut.XXXXXX)
trap 'rm -rf "$work"' EXIT
(cd "$root" && tar cf - --exclude='./build*' --exclude=./.git .) |
	(cd "$work" && tar xf -)
cd "$work" || exit 2
# candidate sites: file:line:column-of-operator:operator.  The line is
# first masked: the characters of string and character literals become
# "_" (same length, so the columns stay those of the source line).
grep -n '^[[:space:]]*\(} else \)\?if (' src/tile/*.c src/tile/patterns/*.c \
	src/layout/*.c src/ptx/*.c | while IFS=: read -r f l text; do
	echo "$text" | awk -v f="$f" -v l="$l" '{
		m = ""; q = ""; n = length($0);
		for (i = 1; i <= n; i++) {
			ch = substr($0, i, 1);
			if (q != "") {
				if (ch == "\\" && i < n) { m = m "__"; i++; continue; }
				if (ch == q) q = "";
				m = m "_"; continue;
			}
			if (ch == "\"" || ch == "\047") { q = ch; m = m "_"; continue; }
			m = m ch;
		}
		s = m; pos = 0;
		while (match(s, /<=|>=|==|!=|&&|\|\||<|>/)) {
			op = substr(s, RSTART, RLENGTH);
			prev = RSTART > 1 ? substr(s, RSTART - 1, 1) : \
			       (pos > 0 ? substr(m, pos, 1) : "");
			if (!(op == "<" && substr(s, RSTART + 1, 1) == "<") &&
			    !(op == ">" && substr(s, RSTART + 1, 1) == ">") &&
			    !(op == "<" && prev == "<") &&
			    !(op == ">" && (prev == ">" || prev == "-")))
				print f ":" l ":" (pos + RSTART) ":" op;
			pos += RSTART + RLENGTH - 1;
			s = substr(s, RSTART + RLENGTH);
		}
	}'
done >sites
total=$(wc -l <sites)
[ -n "$SITES" ] && { cat sites; echo "candidate sites: $total"; exit 0; }
make -s -j2 O=mut mut/ptxtile mut/unit_tests >/dev/null 2>&1 || {
	echo "mutation_test: the unmutated tree does not build"; exit 2; }
suites="errors golden hostile rtsize tile_counts tile_tcgen05_ld_st tile_tma
	property dx gemm_mxf8 wgmma_explain tirx_compat roundtrip"
# A FAIL line or a non-zero exit (a unit test that dies on a signal cuts
# off the FAIL line it would print) kills the mutant; so does a program
# that runs past TIMEOUT seconds (default 300; a mutated loop bound can
# loop forever), reported as "killed (timeout)".
TIMEOUT=${TIMEOUT:-300}
timed_out=
check_rc() {
	[ "$1" -eq 0 ] && return 0
	[ "$1" -eq 124 ] && timed_out=1
	return 1
}
run_tests() {
	timed_out=
	out=$(timeout "$TIMEOUT" mut/unit_tests 2>&1)
	check_rc $? || return 1
	echo "$out" | grep -q '^FAIL ' && return 1
	echo "$out" | grep -q '^PASS ' || return 1
	for s in $suites; do
		[ -f "tests/suites/$s.sh" ] || continue
		out=$(BUILD=mut timeout "$TIMEOUT" sh "tests/suites/$s.sh" 2>&1)
		check_rc $? || return 1
		echo "$out" | grep -q '^FAIL ' && return 1
	done
	return 0
}
run_tests || { echo "mutation_test: the unmutated tree fails its tests"; exit 2; }
if [ -n "$MUTANTS" ]; then # re-test listed sites (file:line:col:op each)
	cp "$MUTANTS" sample
else
	awk -v seed="$SEED" 'BEGIN { srand(seed) } { print rand() "\t" $0 }' sites |
		sort -n | cut -f2 | head -n "$N" >sample
fi
killed=0 n=0
: >survivors
while IFS=: read -r f l c op; do
	case $op in
	"<") new="<=" ;; "<=") new="<" ;; ">") new=">=" ;; ">=") new=">" ;;
	"==") new="!=" ;; "!=") new="==" ;; "&&") new="||" ;; "||") new="&&" ;;
	esac
	cp "$f" "$f.orig"
	awk -v l="$l" -v c="$c" -v op="$op" -v new="$new" 'NR == l {
		$0 = substr($0, 1, c - 1) new substr($0, c + length(op)) } { print }' \
		"$f.orig" >"$f"
	n=$((n + 1))
	if ! make -s -j2 O=mut mut/ptxtile mut/unit_tests >/dev/null 2>&1; then
		verdict="killed (build)"
	elif run_tests; then
		verdict="SURVIVED"
	elif [ -n "$timed_out" ]; then
		verdict="killed (timeout)"
	else
		verdict=killed
	fi
	[ "$verdict" = SURVIVED ] && echo "$f:$l:$c:$op ($op -> $new)" >>survivors ||
		killed=$((killed + 1))
	echo "$n. $f:$l: '$op' -> '$new': $verdict"
	mv "$f.orig" "$f"
	touch "$f"
done <sample
echo "candidate sites: $total, sampled: $n"
echo "killed $killed of $n ($(awk -v k=$killed -v n=$n 'BEGIN { printf "%.1f", n ? 100 * k / n : 0 }')%)"
[ -s survivors ] && { echo "survivors:"; sed 's/^/  /' survivors; }
exit 0
