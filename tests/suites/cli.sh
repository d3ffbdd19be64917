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

# ---- issue 10: hostile output paths ----
# a symlink is written through: the file it names changes, the link stays
echo old >"$t/target.ptx"
ln -s "$t/target.ptx" "$t/link.ptx"
expect_rc symlink_write_through 0 "$P" compile "$good" -o "$t/link.ptx"
if [ -L "$t/link.ptx" ] && grep -q '\.entry' "$t/target.ptx"; then
	ok symlink_kept_target_written
else bad symlink_kept_target_written "link replaced or target unchanged"; fi
# a planted file at the old temporary name <out>.tmp.<pid> is never used:
# temporaries come from mkstemp; a symlink planted there is left alone
# (the shell plants it under its own pid, then execs ptxtile as that pid)
echo secret >"$t/victim"
expect_rc planted_tmp_symlink 0 sh -c 'ln -s "$1/victim" "$1/p.ptx.tmp.$$" &&
	exec "$2" compile "$3" -o "$1/p.ptx"' sh "$t" "$P" "$good"
[ "$(cat "$t/victim")" = secret ] && ok planted_tmp_victim_untouched ||
	bad planted_tmp_victim_untouched "the planted link's target was overwritten"
# no temporary is left beside the output
ls -a "$t" | grep -q '^\.ptxtile-tmp-' &&
	bad no_temporary_left "$(ls -a "$t" | grep ptxtile-tmp)" || ok no_temporary_left
# a link to a descriptor (/dev/stdout is one) writes to that descriptor;
# the redirected file is not replaced behind the shell's back
ln -s /proc/self/fd/1 "$t/stdout_link"
"$P" compile "$good" -o "$t/stdout_link" >"$t/so.ptx" 2>"$t/err"
grep -q '\.entry' "$t/so.ptx" && [ -L "$t/stdout_link" ] && ok stdout_link_output ||
	bad stdout_link_output "$(cat "$t/err")"
"$P" compile "$good" -o /dev/fd/1 >"$t/so2.ptx" 2>"$t/err"
grep -q '\.entry' "$t/so2.ptx" && ok dev_fd_output || bad dev_fd_output "$(cat "$t/err")"
# -o naming the input (or a link to it) is refused and the input kept
cp "$good" "$t/in.py"
ln -s "$t/in.py" "$t/in_link.py"
expect_rc refuse_overwrite_input 2 "$P" print "$t/in.py" -o "$t/in.py"
expect_rc refuse_overwrite_input_link 2 "$P" compile "$t/in.py" -o "$t/in_link.py"
expect_rc refuse_meta_is_input 2 "$P" compile "$t/in.py" --meta "$t/in.py"
cmp -s "$good" "$t/in.py" && ok input_kept || bad input_kept "input changed"
expect_rc refuse_two_outputs_one_file 2 "$P" compile "$good" -o "$t/same" --meta "$t/same"
# all or nothing: when the PTX cannot be written, --meta is not left behind
rm -f "$t/m2.json"
mkdir -p "$t/ro" && chmod 500 "$t/ro"
if [ "$(id -u)" != 0 ]; then
	expect_rc unwritable_output 2 "$P" compile "$good" --meta "$t/m2.json" -o "$t/ro/x.ptx"
	[ -e "$t/m2.json" ] && bad meta_not_left_behind "meta written" || ok meta_not_left_behind
	grep -q "cannot write $t/ro/x.ptx: Permission denied" "$t/err" &&
		ok cannot_write_reason || bad cannot_write_reason "$(cat "$t/err")"
fi
# a missing directory fails the same way, as root too
expect_rc missing_dir_output 2 "$P" compile "$good" --meta "$t/m2.json" -o "$t/nodir/x.ptx"
[ -e "$t/m2.json" ] && bad meta_not_left_behind_nodir "meta written" ||
	ok meta_not_left_behind_nodir
grep -q "cannot write $t/nodir/x.ptx: No such file or directory" "$t/err" &&
	ok cannot_write_strerror || bad cannot_write_strerror "$(cat "$t/err")"
# all or nothing at commit time too: the PTX goes to /dev/full (staged
# fine, fails when written, after --meta was renamed into place), so the
# metadata file it replaced is put back and a new one is removed
if [ -w /dev/full ]; then
	echo OLDMETA >"$t/m3.json"
	expect_rc commit_failure 2 "$P" compile "$good" -o /dev/full --meta "$t/m3.json"
	[ "$(cat "$t/m3.json")" = OLDMETA ] && ok commit_failure_restores ||
		bad commit_failure_restores "$(head -c 80 "$t/m3.json")"
	rm -f "$t/m3.json"
	expect_rc commit_failure_new 2 "$P" compile "$good" -o /dev/full --meta "$t/m3.json"
	[ -e "$t/m3.json" ] && bad commit_failure_no_new_file "meta left behind" ||
		ok commit_failure_no_new_file
	ls -a "$t" | grep -q ptxtile-tmp && bad commit_failure_no_temp "$(ls -a "$t")" ||
		ok commit_failure_no_temp
fi
# budget flags take sizes
expect_rc budget_flag_bad 2 "$P" check "$good" --max-ptx-bytes 12q
expect_rc budget_flag_zero 2 "$P" check "$good" --max-ptx-bytes 0
expect_rc budget_flag_suffix 0 "$P" check "$good" --max-arena-bytes 512M

# ---- issue 10: diagnostics never pass control bytes through, and clip
# long lines around the caret ----
printf 'from tvm_tirx.script import tirx as T\n\n@T.function\ndef k(A: T.Tensor((4,), "int32")):\n    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))\n    A[0] = nope  # \033]0;pwned\007 \033[31mred\n' >"$t/esc.py"
expect_rc escape_exit 1 "$P" check "$t/esc.py"
if ! tr -d '\n\t' <"$t/err" | LC_ALL=C grep -q '[[:cntrl:]]' &&
   grep -q 'nope  # \\x1b\]0;pwned\\x07 \\x1b\[31mred' "$t/err"; then
	ok escape_control_bytes
else bad escape_control_bytes "$(od -c "$t/err" | head -5)"; fi
# the same byte in an IR JSON name is escaped in the message too
"$P" json "$good" | sed 's/"name": "saxpy_relu"/"name": "k\\u001b]0;x\\u0007"/' >"$t/esc.json"
expect_rc escape_json_exit 1 "$P" check "$t/esc.json"
! tr -d '\n\t' <"$t/err" | LC_ALL=C grep -q '[[:cntrl:]]' && grep -q 'E9000' "$t/err" &&
	ok escape_json_name || bad escape_json_name "$(od -c "$t/err" | head -5)"
# a 1 MB line: the excerpt is a window around the caret, not the line
{ printf 'from tvm_tirx.script import tirx as T\n\n@T.function\ndef k(A: T.Tensor((4,), "int32")):\n    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))\n    A[0] = nope  # '
  head -c 1000000 /dev/zero | tr '\0' a; printf '\n'; } >"$t/long1.py"
{ printf 'from tvm_tirx.script import tirx as T\n\n@T.function\ndef k(A: T.Tensor((4,), "int32")):\n    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))\n    s = "'
  head -c 1000000 /dev/zero | tr '\0' a; printf '" + nope\n'; } >"$t/long2.py"
for f in long1 long2; do
	expect_rc "${f}_exit" 1 "$P" check "$t/$f.py"
	n=$(wc -c <"$t/err")
	caret=$(grep -n '\^' "$t/err" | head -1 | cut -d: -f1)
	src=$(sed -n "$((caret - 1))p" "$t/err")
	pad=$(sed -n "${caret}p" "$t/err" | sed 's/\^.*//' | wc -c)
	col=$(printf '%s' "$src" | sed 's/nope.*//' | wc -c)
	if [ "$n" -lt 1000 ] && printf '%s' "$src" | grep -q '\.\.\.' && [ "$pad" -eq $((col + 1)) ]; then
		ok "clip_$f"
	else bad "clip_$f" "$n bytes; caret at $pad, nope at $col"; fi
done

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
