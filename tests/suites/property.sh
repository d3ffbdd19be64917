#!/bin/sh
# Replays tests/property/corpus/*.py and *.json, the mutants for which
# tools/mutate_examples.py once found "accepted => ptxas accepts" broken
# (or a signal): each must now be rejected with diagnostics (exit 1) or
# compile (exit 0) to PTX that ptxas accepts for the target on its first
# line ("# target: sm_XX"; an IR JSON mutant's is in NAME.target).
# Without ptxas only the exit status is checked.
BUILD=${BUILD:-build}
PTXAS=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for py in tests/property/corpus/*.py tests/property/corpus/*.json; do
	[ -f "$py" ] || continue
	name=$(basename "$py")
	name=${name%.*}
	case $py in
	*.json) target=$(cat "${py%.json}.target" 2>/dev/null) ;;
	*) target=$(sed -n '1s/^# target: *//p' "$py") ;;
	esac
	"$BUILD/ptxtile" compile --target "${target:-sm_90a}" "$py" \
		-o "$tmp/k.ptx" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
		echo "FAIL property/$name: exit $rc: $(head -c 200 "$tmp/err")"
	elif [ "$rc" -eq 0 ] && [ -x "$PTXAS" ] &&
	     ! "$PTXAS" -arch="${target:-sm_90a}" "$tmp/k.ptx" -o "$tmp/k.cubin" \
			>"$tmp/err" 2>&1; then
		echo "FAIL property/$name: ptxas rejects: $(head -c 200 "$tmp/err")"
	else
		echo "PASS property/$name"
	fi
done
