#!/bin/sh
# tools/ptx_identical.sh - every emitted byte of the compiler, kept for a
# byte-for-byte comparison across a refactor (issue 21: "every emitted PTX
# byte identical before and after").
#
#   sh tools/ptx_identical.sh DIR        writes DIR (must not exist)
#   sh tools/ptx_identical.sh DIR REF    writes DIR, then compares it with
#                                        REF; exit 1 on any difference
#
# What is kept, for sm_80, sm_90a and sm_100a each:
#   - every script of examples/, bench/, tests/golden, tests/roundtrip,
#     tests/tirx, tests/gpu/kernels, tests/property/corpus, tests/hostile,
#     tests/errors: `ptxtile compile` PTX, metadata JSON, stderr and exit
#     status (so refused scripts keep their diagnostics too);
#   - the emu_fuzz generator's scripts (seeds 1..$FUZZ_SEEDS per family,
#     default 6), compiled the same way;
#   - the ptx_diff samples (`ptxdiff gen`, seeds 1 and 2, $DIFF_N each,
#     default 2400): the minimal kernels ptx_emit prints for the form table.
# Run through `make ptx-identical REF=dir` (REF absent: it is written).
set -u
BUILD=${BUILD:-build}
P="$BUILD/ptxtile"
out=$1
ref=${2:-}
[ -e "$out" ] && { echo "ptx_identical: $out exists" >&2; exit 2; }
[ -x "$P" ] && [ -x "$BUILD/ptxdiff" ] ||
	{ echo "ptx_identical: build $P and $BUILD/ptxdiff first" >&2; exit 2; }
# the fuzz scripts live at one fixed path: diagnostics quote it
fz=${FUZZ_DIR:-build/ptx_identical_fuzz}
rm -rf "$fz"
mkdir -p "$out" "$fz"

# emu_fuzz scripts, written without running anything
python3 - "$fz" "${FUZZ_SEEDS:-6}" <<'EOF' || exit 2
import os, sys
sys.path.insert(0, "tools")
import emu_fuzz as e
os.chdir(e.ROOT)
forms = e.read_forms()
if "wgmma" in e.FAMILIES:
    e.wgmma_kernel_writer()
for fam in e.FAMILIES:
    for sd in range(1, int(sys.argv[2]) + 1):
        k = e.generate(fam, sd, forms)
        if k is not None:
            with open(os.path.join(sys.argv[1], "%s_%d.py" % (fam, sd)), "w") as f:
                f.write(k.script)
EOF

compile_all() { # list of scripts on stdin
	while read -r s; do
		name=$(echo "$s" | sed 's|/|__|g')
		for t in sm_80 sm_90a sm_100a; do
			o="$out/c/$name.$t"
			"$P" compile "$s" --target "$t" -o "$o.ptx" \
				--meta "$o.meta" >"$o.tmp" 2>&1
			rc=$?
			# the summary line names the output file: keep it
			# relative to the kept folder
			sed "s|$out/|OUT/|g" "$o.tmp" >"$o.log"
			rm -f "$o.tmp"
			echo "rc=$rc" >>"$o.log"
		done
	done
}
mkdir -p "$out/c"
{
	ls examples/*.py bench/*.py tests/golden/*.py tests/roundtrip/*.py \
		tests/tirx/*.py tests/gpu/kernels/*.py tests/property/corpus/*.py \
		tests/hostile/*.py tests/errors/*.py "$fz"/*.py 2>/dev/null
} | compile_all
for sd in 1 2; do
	mkdir -p "$out/diff$sd"
	"$BUILD/ptxdiff" gen "$out/diff$sd" "$sd" "${DIFF_N:-2400}" >/dev/null 2>&1 ||
		{ echo "ptx_identical: ptxdiff gen failed" >&2; exit 2; }
done
n=$(find "$out" -type f | wc -l)
echo "ptx_identical: $n files in $out"
[ -z "$ref" ] && exit 0
if diff -r -q "$ref" "$out" >"$out.diff" 2>&1; then
	echo "PASS ptx_identical: $n files byte-identical to $ref"
	rm -f "$out.diff"
	exit 0
fi
echo "FAIL ptx_identical: $(wc -l <"$out.diff") differences from $ref (list: $out.diff)"
head -20 "$out.diff"
exit 1
