#!/bin/sh
# Hostile input through the CLI (issue 19): unbounded streams stop at the
# input budget, inputs nested past the depth budgets are diagnostics (exit
# 1, never a signal), and output paths are reported escaped.
BUILD=${BUILD:-build}
P=$BUILD/ptxtile
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ok() { echo "PASS hostile_cli/$1"; }
bad() { echo "FAIL hostile_cli/$1: $2"; }
# expect NAME CODE: the last command's exit was 1 and $t/err starts with CODE
expect() {
	if [ "$rc" -eq 1 ] && head -n 1 "$t/err" | grep -q "^$2 "; then ok "$1"
	else bad "$1" "exit $rc: $(head -c 200 "$t/err")"; fi
}
# a stream that never ends stops at the budget (it was read whole: SIGSEGV
# at ~2 GB), from a device and from a pipe
"$P" check --diag=short /dev/zero >/dev/null 2>"$t/err"; rc=$?
expect dev_zero E9009
yes | "$P" check --diag=short --max-input-bytes 1M - >/dev/null 2>"$t/err"; rc=$?
expect endless_stdin E9009
# a view of a view ... 20,000 deep overflowed codegen's stack
python3 - "$t" <<'PY'
import sys
head = ('from tvm_tirx.script import tirx as T\n\n@T.function\n'
        'def k(A: T.Tensor((64,), "float32")):\n'
        '    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))\n')
def views(n):
    b = "    B0 = A[0:64]\n" + "".join("    B%d = B%d[0:64]\n" % (i, i - 1)
                                     for i in range(1, n))
    return head + b + "    B%d[0] = T.float32(1.0)\n" % (n - 1)
open(sys.argv[1] + "/views_deep.py", "w").write(views(20000))
open(sys.argv[1] + "/views_512.py", "w").write(views(512))
PY
"$P" compile --diag=short "$t/views_deep.py" -o "$t/v.ptx" >/dev/null 2>"$t/err"; rc=$?
expect view_chain_depth E9019
if "$P" compile "$t/views_512.py" -o "$t/v.ptx" 2>"$t/err" &&
   grep -q 'st.global.f32' "$t/v.ptx"; then ok view_chain_at_budget
else bad view_chain_at_budget "$(head -c 200 "$t/err")"; fi
# a device id as the grid: tile_lin <-> tile_block_sym recursed forever
printf 'from tvm_tirx.script import tirx as T\n\n@T.function\ndef k(A: T.Tensor((4,), "int32")):\n    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.cuda.block_idx("x") // 16, block=32))\n    A[0] = 1\n' >"$t/grid.py"
"$P" compile --diag=short "$t/grid.py" -o "$t/g.ptx" >/dev/null 2>"$t/err"; rc=$?
expect grid_block_idx E2035
# near-linear lookups: 40,000 locals took 38 s of CPU (a linear symbol
# scan per name), 10,000 trivial kernels 1.75 GB (per-kernel tables
# indexed by module-wide ids); CPU time and address space are capped
python3 - "$t" <<'PY'
import sys
head = 'from tvm_tirx.script import tirx as T\n\n'
s = head + ('@T.function\ndef k(A: T.Tensor((64,), "int32")):\n'
            '    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))\n')
s += "".join("    v%d = A[%d]\n" % (i, i % 64) for i in range(40000))
open(sys.argv[1] + "/locals.py", "w").write(s)
s = head + "".join(
    '@T.function\ndef k%d(A: T.Tensor((64,), "int32")):\n'
    '    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))\n'
    '    A[0] = 1\n\n' % i for i in range(10000))
open(sys.argv[1] + "/kernels.py", "w").write(s)
PY
if (ulimit -t 10; "$P" check "$t/locals.py" >/dev/null 2>"$t/err"); then
	ok locals_40000_linear
else bad locals_40000_linear "over 10 s of CPU or failed: $(head -c 200 "$t/err")"; fi
case $BUILD in
*asan*) echo "SKIP hostile_cli/kernels_10000_memory: ASan reserves more address space than the cap";;
*) if (ulimit -v 1000000; "$P" check "$t/kernels.py" >/dev/null 2>"$t/err"); then
	ok kernels_10000_memory
else bad kernels_10000_memory "over 1 GB or failed: $(head -c 200 "$t/err")"; fi;;
esac
# concurrent compiles to one output: link() of the file being replaced
# failed with ENOENT for 1 of 600 (backup of the replaced file)
mkdir "$t/conc"
seq 1 300 | xargs -P 16 -I{} sh -c '"$1" compile examples/saxpy_relu.py -o "$2/out.ptx" 2>"$2/err.{}" || echo "exit $? in {}: $(cat "$2/err.{}")"' sh "$P" "$t/conc" >"$t/conc.log"
if [ ! -s "$t/conc.log" ] && grep -q '\.entry' "$t/conc/out.ptx" &&
   ! ls -a "$t/conc" | grep -q ptxtile-tmp; then ok concurrent_one_output
else bad concurrent_one_output "$(head -c 300 "$t/conc.log")"; fi
# paths in the CLI's own messages are escaped like the input's
"$P" compile examples/saxpy_relu.py -o "$(printf "$t/no\033]0;x\007dir/o.ptx")" 2>"$t/err"
if grep -q 'no\\x1b\]0;x\\x07dir' "$t/err" && ! grep -q "$(printf '\033')" "$t/err"; then
	ok output_path_escaped
else bad output_path_escaped "$(od -c "$t/err" | head -3)"; fi
"$P" compile "$(printf "$t/in\033[2J.py")" 2>"$t/err"
if grep -q 'in\\x1b\[2J.py' "$t/err"; then ok input_path_escaped_cannot_read
else bad input_path_escaped_cannot_read "$(od -c "$t/err" | head -3)"; fi
# the deepest IR JSON expression the reader admits (990 levels) compiles
# on a 1 MiB stack; 2,000 levels are E7011, not a stack overflow
printf 'from tvm_tirx.script import tirx as T\n\n@T.function\ndef k(A: T.Tensor((4,), "int32")):\n    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))\n    A[0] = 1\n' >"$t/j.py"
"$P" json "$t/j.py" -o "$t/template.json"
build_json() {
	python3 - "$1" "$2" "$t/template.json" <<'PY'
import json, sys
sys.setrecursionlimit(20000)
n, out = int(sys.argv[1]), sys.argv[2]
doc = json.load(open(sys.argv[3]))
tid = {"expr": "builtin", "dtype": "int32", "name": "T.cuda.thread_idx",
       "args": [{"expr": "str", "value": "x"}]}
e = {"expr": "int", "dtype": "int32", "value": 1}
for _ in range(n):
    e = {"expr": "binary", "dtype": "int32", "op": "add", "a": e, "b": tid}
doc["funcs"][0]["body"][0]["value"] = e
json.dump(doc, open(out, "w"))
PY
}
build_json 990 "$t/deep990.json"
build_json 2000 "$t/deep2000.json"
# (ASan's frames are larger: its build gets 8 MiB)
case $BUILD in *asan*) stack=8192;; *) stack=1024;; esac
if (ulimit -s $stack; "$P" compile "$t/deep990.json" -o "$t/d.ptx" 2>"$t/err"); then
	ok json_depth_990_small_stack
else bad json_depth_990_small_stack "exit $?: $(head -c 200 "$t/err")"; fi
"$P" compile --diag=short "$t/deep2000.json" -o "$t/d.ptx" >/dev/null 2>"$t/err"; rc=$?
expect json_depth_2000 E7011
# a load at the bottom of such a tree (A[tid + 1] of 4 elements, 980 levels
# down) is still bounds-checked, on the same stack: E6030, where the walk
# once stopped at 64 levels and accepted it
python3 - "$t/template.json" "$t/deepload.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
tid = {"expr": "builtin", "dtype": "int32", "name": "T.cuda.thread_idx",
       "args": [{"expr": "str", "value": "x"}]}
e = {"expr": "load", "dtype": "int32",
     "base": {"expr": "buf", "dtype": "int32", "buf": 0},
     "indices": [{"expr": "binary", "dtype": "int32", "op": "add", "a": tid,
                  "b": {"expr": "int", "dtype": "int32", "value": 1}}]}
for _ in range(980):
    e = {"expr": "binary", "dtype": "int32", "op": "add", "a": e, "b": tid}
doc["funcs"][0]["body"][0]["value"] = e
json.dump(doc, open(sys.argv[2], "w"))
PY
(ulimit -s $stack; "$P" compile --diag=short "$t/deepload.json" -o "$t/d.ptx" >/dev/null 2>"$t/err"); rc=$?
expect json_depth_980_load_checked E6030
