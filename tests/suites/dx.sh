#!/bin/sh
# tests/suites/dx.sh - everyday diagnostics and options (issue 11):
# "did you mean" with the valid qualifiers and the caret on the spelling;
# owner diagnostics that state the documented mapping; scalar functions
# calling scalar functions; the mbarrier lints; --lineinfo.
BUILD=${BUILD:-build}
P="$BUILD/ptxtile"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ok() { echo "PASS dx/$1"; }
bad() { echo "FAIL dx/$1: $2"; }
has() { # name file text
	grep -qF -- "$3" "$2" && ok "$1" || bad "$1" "'$3' not in: $(head -c 600 "$2")"
}
head='from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((128, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    x = T.alloc_local((4,), "float32", layout="default")'

# unknown qualifier and mnemonic: suggestion, valid list, caret on T.ptx[...]
printf '%s\n    T.cuda.tile.apply(T.ptx["ld.globl.v4.b32"], x, A.sub[3, :])\n' "$head" >"$t/q.py"
"$P" check "$t/q.py" 2>"$t/err"
has qualifier_did_you_mean "$t/err" "qualifier \`.globl\` is not allowed for \`ld\` in \`ld.globl.v4.b32\`; did you mean \`.global\`? (\`ld\` takes .weak .global"
has qualifier_caret_on_spelling "$t/err" "q.py:7:23: error[E3001]"
grep -q '^                          ^~~~~~~~~~~~~~~~~~~~~~~~$' "$t/err" &&
	ok qualifier_caret_width || bad qualifier_caret_width "$(cat "$t/err")"
printf '%s\n    T.cuda.tile.apply(T.ptx["lds.global.v4.b32"], x, A.sub[3, :])\n' "$head" >"$t/m.py"
"$P" check "$t/m.py" 2>"$t/err"
has mnemonic_did_you_mean "$t/err" "unknown PTX instruction \`lds\` in \`lds.global.v4.b32\`; did you mean \`ld\`?"
printf '%s\n    T.ptx.ld.global.v3.b32(x[0], A.ptr_to([0, 0]))\n' "$head" >"$t/r.py"
"$P" check "$t/r.py" 2>"$t/err"
has raw_call_did_you_mean "$t/err" "did you mean \`.v2\`?"

# owner diagnostics state the required mapping
"$P" check tests/errors/E3120-foreign-register-owner.py 2>"$t/err"
has e3120_mapping "$t/err" "scope=\"warp\" needs each register owned by the thread its group coordinates name (axis 0 = laneid, each as 1@id in the layout)"
"$P" check tests/errors/E3507-ldmatrix-wrong-owner-lane.py 2>"$t/err"
has e3507_mapping "$t/err" "the documented map puts word w of row r of matrix i in register i of lane 4*r + w"
"$P" check tests/errors/E3605-mma-wrong-owner-lane.py 2>"$t/err"
has e3605_mapping "$t/err" "the documented map puts A register r of lane l at (row l/4 + 8*(r%2), b32 word l%4 + 4*(r/2))"

# scalar functions calling scalar functions: the body becomes one
# expression (relu(x) = x < 0 ? 0 : x, written out by hand here)
cat >"$t/sf.py" <<'PY'
from tvm_tirx.script import tirx as T

@T.function
def relu(x: T.float32) -> T.float32:
    if x < 0.0:
        return T.float32(0.0)
    else:
        return x

@T.function
def sq(x: T.float32) -> T.float32:
    return x * x

@T.function
def f(x: T.float32, a: T.float32) -> T.float32:
    y = sq(x)
    return y + a * relu(-x)
PY
"$P" print "$t/sf.py" >"$t/out" 2>"$t/err"
has scalar_calls_inline_binding "$t/out" "y: T.float32 = x * x"
has scalar_calls_inline_branches "$t/out" "return y + a * T.if_then_else(-x < 0.0, 0.0, -x)"
cat >>"$t/sf.py" <<'PY'

@T.function
def k(A: T.Tensor((32, 4), "float32", align=16), B: T.Tensor((32, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    x = T.alloc_local((4,), "float32", layout="default")
    y = T.alloc_local((4,), "float32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[tid, :])
    T.cuda.tile.ewise(f, y, x, T.float32(0.5))
    T.cuda.tile.apply(T.ptx["st.global.v4.b32"], B.sub[tid, :], y)
PY
"$P" compile -q "$t/sf.py" -o "$t/sf.ptx" 2>"$t/err" &&
	[ "$(grep -c 'selp.f32' "$t/sf.ptx")" = 4 ] && ok scalar_calls_ewise_compiles ||
	bad scalar_calls_ewise_compiles "$(cat "$t/err") $(grep -c selp "$t/sf.ptx" 2>/dev/null) selp"
cat >"$t/rec.py" <<'PY'
from tvm_tirx.script import tirx as T

@T.function
def f(x: T.float32) -> T.float32:
    return f(x)
PY
"$P" check --diag=short "$t/rec.py" 2>"$t/err"
[ "$(cat "$t/err")" = "E2030 5:12" ] && ok scalar_recursion_rejected ||
	bad scalar_recursion_rejected "$(cat "$t/err")"
cat >"$t/below.py" <<'PY'
from tvm_tirx.script import tirx as T

@T.function
def poly(x: T.float32) -> T.float32:
    return sq(x) + 1.0

@T.function
def sq(x: T.float32) -> T.float32:
    return x * x
PY
"$P" check "$t/below.py" 2>"$t/err"
has scalar_call_defined_below "$t/err" "below.py:5:12: error[E2030]: scalar function 'sq' is not complete here"

# mbarrier never initialised: a warning (exit 0); initialised: silent
cat >"$t/mb.py" <<'PY'
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((32,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    bar = T.alloc_shared((1,), "uint64", align=8)
    T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)
PY
"$P" check -q "$t/mb.py" 2>"$t/err"
rc=$?
[ $rc -eq 0 ] && grep -q "mb.py:7:26: warning\[E3009\]: bar is used as an mbarrier, but no mbarrier.init" "$t/err" &&
	ok mbarrier_uninit_warning || bad mbarrier_uninit_warning "exit $rc: $(cat "$t/err")"
sed 's/^    T.cuda.mbarrier_wait/    T.ptx.mbarrier.init.shared.b64(bar.ptr_to([0]), T.uint32(32))\n    T.cuda.mbarrier_wait/' "$t/mb.py" >"$t/mb2.py"
"$P" check -q "$t/mb2.py" 2>"$t/err" && [ ! -s "$t/err" ] && ok mbarrier_init_silent ||
	bad mbarrier_init_silent "$(cat "$t/err")"
# a named view (bv = bar.view(2)) is the buffer it views: initialised
# through one name and waited on through the other, bar is initialised
# (issue 19, mutation survivor tile/common.c:692: the mutant stopped
# tile_root_buffer at the view's own name and warned)
sed 's/^    T.cuda.mbarrier_wait/    bv = bar.view(1)\n    T.ptx.mbarrier.init.shared.b64(bv.ptr_to([0]), T.uint32(32))\n    T.cuda.mbarrier_wait/' "$t/mb.py" >"$t/mb3.py"
"$P" check -q "$t/mb3.py" 2>"$t/err" && [ ! -s "$t/err" ] && ok mbarrier_init_through_view_silent ||
	bad mbarrier_init_through_view_silent "$(cat "$t/err")"

# --lineinfo: .file names the script, .loc the line of each call
"$P" compile -q --lineinfo examples/vcopy_dynamic.py -o "$t/li.ptx"
grep -q '^\.file 1 "examples/vcopy_dynamic.py"$' "$t/li.ptx" &&
	ok lineinfo_file || bad lineinfo_file "$(grep file "$t/li.ptx")"
ld_line=$(grep -n 'ld.global.v4.b32' examples/vcopy_dynamic.py | tail -n 1 | cut -d: -f1)
awk '/\.loc/ {loc=$3} /ld\.global\.v4\.b32/ {print loc; exit}' "$t/li.ptx" >"$t/l"
[ "$(cat "$t/l")" = "$ld_line" ] && ok lineinfo_loc_of_call ||
	bad lineinfo_loc_of_call ".loc $(cat "$t/l"), script line $ld_line"
"$P" compile -q examples/vcopy_dynamic.py -o "$t/no.ptx"
grep -q '\.loc\|\.file' "$t/no.ptx" && bad lineinfo_off_by_default "found .loc" ||
	ok lineinfo_off_by_default
ptxas=$(command -v ptxas || { [ -x /usr/local/cuda/bin/ptxas ] && echo /usr/local/cuda/bin/ptxas; })
if [ -n "$ptxas" ]; then
	"$ptxas" -arch=sm_90a -lineinfo "$t/li.ptx" -o "$t/li.cubin" 2>"$t/err" &&
		ok lineinfo_ptxas || bad lineinfo_ptxas "$(cat "$t/err")"
else
	echo "SKIP dx/lineinfo_ptxas: ptxas not found"
fi
# nested calls that double per level are cut off, not expanded
{
	printf 'from tvm_tirx.script import tirx as T\n\n@T.function\ndef f0(x: T.float32) -> T.float32:\n    return x + 1.0\n'
	i=1
	while [ $i -le 40 ]; do
		printf '\n@T.function\ndef f%d(x: T.float32) -> T.float32:\n    return f%d(x) * f%d(x)\n' $i $((i - 1)) $((i - 1))
		i=$((i + 1))
	done
} >"$t/blow.py"
timeout 20 "$P" check "$t/blow.py" 2>"$t/err"
rc=$?
[ $rc -eq 1 ] && grep -q "makes an expression of more than 65536 nodes" "$t/err" &&
	ok scalar_call_blowup_rejected || bad scalar_call_blowup_rejected "exit $rc: $(head -c 300 "$t/err")"
# the descriptor walk names the first element whose offset from the
# origin is not constant: row 1, whose form has none of the origin's
# terms (issue 19, mutation survivor descriptors.c:354)
"$P" check --target sm_100a tests/errors/E8008-desc-broadcast-origin-straddle.py 2>"$t/err"
has desc_walk_first_nonconstant_element "$t/err" "element (1, 0) is -64*(i + 7) // 8 + 64 elements from the origin"
