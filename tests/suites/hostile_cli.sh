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
