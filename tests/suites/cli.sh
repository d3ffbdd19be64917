#!/bin/sh
# The CLI contract: exit 0 on success, 1 when the input has errors
# (diagnostics as file:line:col: error[Ecode]: message, the source line
# and a caret; --diag=short gives "Ecode line:col"), 2 for usage or
# environment errors; --help per command; no output file is created or
# truncated when anything fails.
BUILD=${BUILD:-build}
P="$BUILD/ptxtile"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ok() { echo "PASS cli/$1"; }
bad() { echo "FAIL cli/$1: $2"; }
expect_rc() { # name want command...
	name=$1 want=$2
	shift 2
	"$@" >"$t/out" 2>"$t/err"
	rc=$?
	if [ "$rc" -eq "$want" ]; then ok "$name"; else
		bad "$name" "exit $rc, expected $want: $(head -2 "$t/err")"; fi
}
good=examples/saxpy_relu.py
printf 'from tvm_tirx.script import tirx as T\n\n@T.function\ndef k(A: T.Tensor((4,), "int32")):\n    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))\n    A[0] = nope\n' >"$t/bad.py"

expect_rc help 0 "$P" --help
for c in print json check compile explain; do
	expect_rc "help_$c" 0 "$P" "$c" --help
	grep -q "^usage: ptxtile $c" "$t/out" || bad "help_$c" "no usage line"
done
expect_rc no_command 2 "$P"
expect_rc unknown_command 2 "$P" frobnicate "$good"
expect_rc unknown_option 2 "$P" check --frob "$good"
expect_rc missing_file 2 "$P" check "$t/none.py"
expect_rc unknown_target 2 "$P" check "$good" --target sm_75
grep -q "sm_75" "$t/err" || bad unknown_target_message "target not named"
expect_rc check_ok 0 "$P" check "$good"

# input errors: the full and the short form
expect_rc input_error 1 "$P" check "$t/bad.py"
if grep -q "bad.py:6:12: error\[E2001\]: " "$t/err" &&
   grep -q "^        A\[0\] = nope$" "$t/err" &&
   grep -q "^               ^~~~$" "$t/err"; then ok input_error_format
else bad input_error_format "$(cat "$t/err")"; fi
expect_rc short_error 1 "$P" check --diag=short "$t/bad.py"
if [ "$(cat "$t/err")" = "E2001 6:12" ]; then ok short_error_format
else bad short_error_format "$(cat "$t/err")"; fi

# no output file is created, and none truncated, when the input is bad
for c in print json compile explain; do
	rm -f "$t/new.out"
	"$P" "$c" "$t/bad.py" -o "$t/new.out" >/dev/null 2>&1
	[ -e "$t/new.out" ] && bad "no_partial_$c" "created" || ok "no_partial_$c"
	echo keep >"$t/old.out"
	"$P" "$c" "$t/bad.py" -o "$t/old.out" >/dev/null 2>&1
	[ "$(cat "$t/old.out")" = keep ] && ok "no_truncate_$c" ||
		bad "no_truncate_$c" "existing file changed"
done
rm -f "$t/m.json" "$t/c.cubin"
"$P" compile "$t/bad.py" --meta "$t/m.json" --cubin "$t/c.cubin" \
	-o "$t/x.ptx" >/dev/null 2>&1
[ -e "$t/m.json" ] || [ -e "$t/c.cubin" ] || [ -e "$t/x.ptx" ] &&
	bad no_partial_compile_all "an output was written" ||
	ok no_partial_compile_all

# success: every output, stdin input, JSON input
expect_rc compile_ok 0 "$P" compile "$good" -o "$t/g.ptx" --meta "$t/g.json"
grep -q "^.entry\|^.visible .entry" "$t/g.ptx" && grep -q '"kernels"' "$t/g.json" &&
	ok compile_outputs || bad compile_outputs "missing .entry or kernels"
"$P" json "$good" >"$t/ir.json" 2>/dev/null
"$P" print "$good" >"$t/a.py" 2>/dev/null
"$P" print "$t/ir.json" >"$t/b.py" 2>/dev/null
"$P" print - <"$good" >"$t/c.py" 2>/dev/null
cmp -s "$t/a.py" "$t/b.py" && cmp -s "$t/a.py" "$t/c.py" && ok json_and_stdin_inputs ||
	bad json_and_stdin_inputs "print differs across script, JSON and stdin"

# --cubin without a usable ptxas is an environment error, writing nothing
rm -f "$t/n.ptx" "$t/n.cubin"
PTXAS="$t/no-ptxas" "$P" compile "$good" -o "$t/n.ptx" --cubin "$t/n.cubin" \
	>/dev/null 2>"$t/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "needs ptxas" "$t/err" && [ ! -e "$t/n.ptx" ] &&
   [ ! -e "$t/n.cubin" ]; then ok cubin_without_ptxas
else bad cubin_without_ptxas "exit $rc: $(cat "$t/err")"; fi
if [ -x /usr/local/cuda/bin/ptxas ] || command -v ptxas >/dev/null 2>&1; then
	PATH="$PATH:/usr/local/cuda/bin" expect_rc cubin_ok 0 "$P" compile "$good" \
		--cubin "$t/k.cubin" -o "$t/k.ptx"
	[ -s "$t/k.cubin" ] && ok cubin_written || bad cubin_written "empty"
else
	echo "SKIP cli/cubin_ok: ptxas not found"
fi

# a device or pipe as output is written in place, never replaced by a file
# (renaming a temporary over /dev/null would destroy the device node)
mkfifo "$t/fifo" 2>/dev/null
if [ -p "$t/fifo" ]; then
	timeout 10 cat "$t/fifo" >"$t/from_fifo" &
	reader=$!
	"$P" print "$good" -o "$t/fifo" >/dev/null 2>&1
	rc=$?
	wait $reader
	if [ $rc -eq 0 ] && [ -p "$t/fifo" ] && [ -s "$t/from_fifo" ] &&
	   cmp -s "$t/from_fifo" "$t/a.py"; then ok output_to_pipe
	else bad output_to_pipe "exit $rc; the pipe was replaced or got other text"; fi
else
	echo "SKIP cli/output_to_pipe: mkfifo unavailable"
fi

# everyday conveniences (issue 11)
same_out() { # name: the last two runs' stderr must be equal
	cmp -s "$t/e1" "$t/e2" && ok "$1" || bad "$1" "'$(cat "$t/e1")' vs '$(cat "$t/e2")'"
}
"$P" check --diag=short "$t/bad.py" 2>"$t/e1"
"$P" check --diag short "$t/bad.py" 2>"$t/e2"
same_out diag_short_space
"$P" --diag short check "$t/bad.py" 2>"$t/e2"
same_out options_before_command
expect_rc options_before_command_rc 1 "$P" --target sm_90a --diag=short check "$t/bad.py"
expect_rc diag_bad_value 2 "$P" check --diag long "$good"
grep -q "diag takes short or full" "$t/err" || bad diag_bad_value_message "$(cat "$t/err")"
expect_rc unreadable_reason 2 "$P" check "$t/none.py"
grep -q "cannot read $t/none.py: No such file or directory" "$t/err" &&
	ok unreadable_reason_message || bad unreadable_reason_message "$(cat "$t/err")"
expect_rc unreadable_dir 2 "$P" check "$t"
grep -q "cannot read $t: Is a directory" "$t/err" &&
	ok unreadable_dir_message || bad unreadable_dir_message "$(cat "$t/err")"
expect_rc unknown_target_lists 2 "$P" check "$good" --target sm_75
grep -q "valid targets: sm_80 sm_90 sm_90a sm_100a sm_100f sm_103a" "$t/err" &&
	ok unknown_target_lists_message || bad unknown_target_lists_message "$(cat "$t/err")"
# one-line summaries on stderr; -q silences them; stdout stays the output
expect_rc summary_check 0 "$P" check examples/ld_st.py
[ "$(cat "$t/err")" = "examples/ld_st.py: ok, 1 kernel, 2 tile calls (sm_90a)" ] &&
	ok summary_check_line || bad summary_check_line "$(cat "$t/err")"
expect_rc summary_quiet 0 "$P" check -q examples/ld_st.py
[ -s "$t/err" ] && bad summary_quiet_silent "$(cat "$t/err")" || ok summary_quiet_silent
expect_rc summary_compile 0 "$P" compile examples/ld_st.py -o "$t/s.ptx"
lines=$(wc -l <"$t/s.ptx" | tr -d ' ')
[ "$(cat "$t/err")" = "examples/ld_st.py: ok, 1 kernel, $lines lines of PTX (sm_90a) -> $t/s.ptx" ] &&
	ok summary_compile_line || bad summary_compile_line "$(cat "$t/err") ($lines lines)"
# explain names the file, and with an error still explains the calls
# that passed (on stdout; no output file)
printf 'from tvm_tirx.script import tirx as T\n\n@T.function\ndef k(A: T.Tensor((128, 4), "float32", align=16)):\n    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))\n    x = T.alloc_local((4,), "float32", layout="default")\n    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[3, :])\n    T.cuda.tile.apply(T.ptx["st.global.v4.b32"], A.sub[3, 1:5], x)\n' >"$t/mixed.py"
expect_rc explain_with_errors 1 "$P" explain "$t/mixed.py"
if grep -q "^$t/mixed.py:7:5: ld family (ld_st.c), scope=thread$" "$t/out" &&
   grep -q "expands to 1 instructions per issuing thread" "$t/out" &&
   grep -q "^$t/mixed.py:8:5: st family (ld_st.c), scope=thread$" "$t/out" &&
   grep -q "rejected: see the error for this line" "$t/out" &&
   grep -q "mixed.py:8:.*error\[E" "$t/err"; then ok explain_with_errors_output
else bad explain_with_errors_output "$(cat "$t/out" "$t/err")"; fi
# make test-gpu without a driver: a reported skip, not a make error
# (the GPU programs link the plain runtime: not under the ASan build)
if [ "$BUILD" != build ]; then
	echo "SKIP cli/test_gpu_skip: BUILD=$BUILD links sanitized objects"
elif [ ! -e /dev/nvidiactl ] && ! ldconfig -p 2>/dev/null | grep -q libcuda.so.1; then
	make --no-print-directory -s test-gpu O="$BUILD" >"$t/out" 2>&1
	rc=$?
	[ $rc -eq 0 ] && grep -q "skipped - no CUDA driver" "$t/out" &&
		ok test_gpu_skip || bad test_gpu_skip "exit $rc: $(tail -2 "$t/out")"
else
	echo "SKIP cli/test_gpu_skip: a CUDA driver is present"
fi
