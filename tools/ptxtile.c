/*
 * ptxtile.c - the command-line interface, a thin wrapper over ptxtile.h.
 *
 *   ptxtile print|json|check|compile|explain FILE [options]
 *
 * Exit status: 0 success, 1 the input has errors (diagnostics on stderr),
 * 2 usage or environment errors.  Outputs are produced completely in memory
 * and written atomically only on success, so an error never creates or
 * truncates an output file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ptxtile.h"
#include "base/base.h"
#include "ir/ir.h"
#include "ptxtile_run.h"

enum { EXIT_INPUT = 1, EXIT_USAGE = 2 };

enum { MAX_DEFS = 256 }; /* -D options per command line */

typedef struct Options {
	const char *cmd;
	const char *input;
	const char *out;
	const char *target;
	const char *cubin;
	const char *meta;
	pt_diag_style diag;
	size_t budget[PT_BUDGET_COUNT]; /* 0: the library's default */
	bool quiet; /* -q: no success summary */
	bool lineinfo; /* --lineinfo: .file/.loc in the PTX */
	const char *defs[MAX_DEFS]; /* -D NAME=VALUE, as given */
	int ndefs;
} Options;

/* --max-* flags, one per library budget (ptxtile.h). */
static const struct {
	const char *flag;
	pt_budget which;
} budget_flags[] = {
	{"--max-input-bytes", PT_BUDGET_INPUT_BYTES},
	{"--max-statements", PT_BUDGET_STATEMENTS},
	{"--max-ptx-bytes", PT_BUDGET_PTX_BYTES},
	{"--max-arena-bytes", PT_BUDGET_ARENA_BYTES},
};

typedef struct Command {
	const char *name;
	const char *summary;
	const char *usage;
	int (*run)(pt_ctx *, pt_module *, const Options *);
} Command;

static int run_print(pt_ctx *, pt_module *, const Options *);
static int run_json(pt_ctx *, pt_module *, const Options *);
static int run_check(pt_ctx *, pt_module *, const Options *);
static int run_compile(pt_ctx *, pt_module *, const Options *);
static int run_explain(pt_ctx *, pt_module *, const Options *);

static const Command commands[] = {
	{"print", "print the canonical script of FILE",
	 "ptxtile print FILE [-o OUT] [--diag=short]\n"
	 "  FILE is a script (.py) or IR JSON (.json); '-' reads stdin.\n",
	 run_print},
	{"json", "print the IR of FILE as JSON",
	 "ptxtile json FILE [-o OUT] [--diag=short]\n"
	 "  FILE is a script (.py) or IR JSON (.json); '-' reads stdin.\n",
	 run_json},
	{"check", "check FILE: everything compile checks, writing nothing",
	 "ptxtile check FILE [--target T] [--diag=short]\n", run_check},
	{"compile", "compile FILE to PTX (and a cubin, and metadata)",
	 "ptxtile compile FILE [--target T] [-o OUT.ptx] [--cubin OUT.cubin]\n"
	 "                [--meta OUT.json] [--lineinfo] [--diag=short] [-q]\n"
	 "  Without -o the PTX goes to stdout.  --cubin runs ptxas ($PTXAS,\n"
	 "  then PATH, then /usr/local/cuda/bin).  --lineinfo adds .file/.loc\n"
	 "  directives naming script lines (Nsight Compute, cuda-gdb).\n",
	 run_compile},
	{"explain", "explain each tile call of FILE",
	 "ptxtile explain FILE [--target T] [-o OUT] [--diag=short]\n",
	 run_explain},
};

static void
usage_all(FILE *f)
{
	fprintf(f, "usage: ptxtile COMMAND FILE [options]\n\ncommands:\n");
	for (size_t i = 0; i < countof(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(f, "\noptions:\n"
		   "  --target T    sm_80 sm_90 sm_90a sm_100a sm_100f sm_103a"
		   " (default %s)\n"
		   "  --diag=short  diagnostics as 'Ecode line:col' (also --diag short)\n"
		   "  -q            no one-line summary after a successful check or\n"
		   "                compile\n"
		   "  --lineinfo    .file/.loc lines (script positions) in the PTX\n"
		   "  -D NAME=VALUE override the module constant NAME (a script\n"
		   "                value: 128, 2.5, True, \"'bfloat16'\", \"(2, 1)\")\n"
		   "  --max-input-bytes N  --max-statements N  --max-ptx-bytes N\n"
		   "  --max-arena-bytes N  budgets (suffix k, M or G; defaults\n"
		   "                %zuM, %zuk statements, %zuM, %zuG)\n"
		   "  --help        help for a command: ptxtile COMMAND --help\n"
		   "options may come before or after the command and FILE\n"
		   "\nptxtile run --emulate FILE ...  runs a kernel in the PTX"
		   " emulator\n  (ptxtile run --help)\n"
		   "\nexit status: 0 ok, 1 input errors, 2 usage or environment"
		   " errors\n",
		   pt_default_target(), PT_BUDGET_INPUT_BYTES_DEFAULT >> 20,
		   PT_BUDGET_STATEMENTS_DEFAULT >> 10,
		   PT_BUDGET_PTX_BYTES_DEFAULT >> 20,
		   PT_BUDGET_ARENA_BYTES_DEFAULT >> 30);
}

static const Command *
find_command(const char *name)
{
	for (size_t i = 0; i < countof(commands); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int
usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "ptxtile: %s%s", msg, arg ? ": " : "");
	fputs_escaped(arg, stderr);
	fputc('\n', stderr);
	fprintf(stderr, "try 'ptxtile --help'\n");
	return EXIT_USAGE;
}

/* A budget: decimal digits and an optional k, M or G; 0 on error. */
static size_t
parse_size(const char *v)
{
	size_t n = 0;
	const char *p = v;
	for (; *p >= '0' && *p <= '9'; p++)
		if (ckd_mulz(&n, n, 10) || ckd_addz(&n, n, (size_t)(*p - '0')))
			return 0;
	int shift = *p == 'k' ? 10 : *p == 'M' ? 20 : *p == 'G' ? 30 : 0;
	if (p == v || (shift && p[1]) || (!shift && *p))
		return 0;
	return ckd_mulz(&n, n, (size_t)1 << shift) ? 0 : n;
}

const char *
cli_option_value(int argc, char **argv, int *i, const char *opt)
{
	size_t n = strlen(opt);
	if (strncmp(argv[*i], opt, n) != 0)
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] != 0)
		return NULL;
	if (*i + 1 >= argc)
		return "";
	return argv[++*i];
}

/* --max-*: true when argv[*i] is one; *bad names a value not a size. */
static bool
budget_flag(int argc, char **argv, int *i, Options *o, const char **bad)
{
	for (size_t k = 0; k < countof(budget_flags); k++) {
		const char *v = cli_option_value(argc, argv, i,
					     budget_flags[k].flag);
		if (!v)
			continue;
		size_t n = parse_size(v);
		if (!n)
			*bad = budget_flags[k].flag;
		o->budget[budget_flags[k].which] = n;
		return true;
	}
	return false;
}

static int check_outputs(const Options *o);

static int
parse_args(int argc, char **argv, Options *o, const Command **cmd)
{
	memset(o, 0, sizeof(*o));
	o->diag = PT_DIAG_FULL;
	*cmd = NULL;
	bool help = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v, *bad = NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			help = true;
		} else if (!strcmp(a, "--version")) {
			printf("ptxtile %s\n", PT_VERSION);
			return -1;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			o->quiet = true;
		} else if (!strcmp(a, "--lineinfo")) {
			o->lineinfo = true;
		} else if ((v = cli_option_value(argc, argv, &i, "--diag"))) {
			if (!strcmp(v, "short"))
				o->diag = PT_DIAG_SHORT;
			else if (!strcmp(v, "full"))
				o->diag = PT_DIAG_FULL;
			else
				return usage_error("--diag takes short or full",
						   *v ? v : NULL);
		} else if ((v = cli_option_value(argc, argv, &i, "--target"))) {
			o->target = v;
		} else if ((v = cli_option_value(argc, argv, &i, "--cubin"))) {
			o->cubin = v;
		} else if ((v = cli_option_value(argc, argv, &i, "--meta"))) {
			o->meta = v;
		} else if ((v = cli_option_value(argc, argv, &i, "-o"))) {
			o->out = v;
		} else if (!strncmp(a, "-D", 2)) {
			if (o->ndefs == MAX_DEFS)
				return usage_error("too many -D options", a);
			v = a[2] ? a + 2 : i + 1 < argc ? argv[++i] : "";
			if (!strchr(v, '=') || v[0] == '=')
				return usage_error("-D takes NAME=VALUE", a);
			o->defs[o->ndefs++] = v;
		} else if (budget_flag(argc, argv, &i, o, &bad)) {
			if (bad)
				return usage_error("budget needs a positive "
						   "size", bad);
		} else if (a[0] == '-' && a[1] != 0) {
			return usage_error("unknown option", a);
		} else if (!*cmd) {
			/* the first word is the command, wherever options are */
			if (!(*cmd = find_command(a)))
				return usage_error("unknown command", a);
			o->cmd = a;
		} else if (o->input) {
			return usage_error("more than one input file", a);
		} else {
			o->input = a;
		}
	}
	if (help) {
		if (*cmd)
			printf("usage: %s", (*cmd)->usage);
		else
			usage_all(stdout);
		return -1;
	}
	if (!*cmd)
		return usage_error("missing command", NULL);
	if (!o->input)
		return usage_error("missing input file", NULL);
	const char *empty = o->out && !*o->out       ? "-o"
			    : o->cubin && !*o->cubin ? "--cubin"
			    : o->meta && !*o->meta   ? "--meta"
			    : o->target && !*o->target ? "--target"
						       : NULL;
	if (empty)
		return usage_error("option needs a value", empty);
	if (o->cubin && strcmp(o->cmd, "compile"))
		return usage_error("--cubin is an option of compile", NULL);
	if (o->meta && strcmp(o->cmd, "compile"))
		return usage_error("--meta is an option of compile", NULL);
	return check_outputs(o);
}

/* An output that is the input file (by device and inode, through any
 * symlink) or another output would destroy what the command reads or
 * writes. */
static int
check_outputs(const Options *o)
{
	const char *outs[3] = {o->out, o->meta, o->cubin};
	struct stat in, st[3];
	bool have_in = strcmp(o->input, "-") != 0 && stat(o->input, &in) == 0;
	for (int i = 0; i < 3; i++) {
		if (!outs[i] || !strcmp(outs[i], "-") ||
		    stat(outs[i], &st[i]) != 0 || !S_ISREG(st[i].st_mode))
			continue;
		if (have_in && st[i].st_dev == in.st_dev &&
		    st[i].st_ino == in.st_ino)
			return usage_error("refusing to overwrite the input",
					   outs[i]);
		for (int j = 0; j < i; j++)
			if (outs[j] && strcmp(outs[j], "-") &&
			    stat(outs[j], &st[j]) == 0 &&
			    st[j].st_dev == st[i].st_dev &&
			    st[j].st_ino == st[i].st_ino)
				return usage_error("two outputs name one file",
						   outs[i]);
	}
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < i; j++)
			if (outs[i] && outs[j] && strcmp(outs[i], "-") &&
			    !strcmp(outs[i], outs[j]))
				return usage_error("two outputs name one file",
						   outs[i]);
	return 0;
}

/* "examples/x.py: ok, 1 kernel, 2 tile calls (sm_90a)" (check) or
 * "examples/x.py: ok, 1 kernel, 84 lines of PTX (sm_90a) -> x.ptx"
 * (compile) on stderr after success, unless -q. */
static void
summary(const pt_module *m, const Options *o, const char *ptx, size_t n)
{
	if (o->quiet)
		return;
	size_t nk = 0;
	for (size_t i = 0; i < m->funcs.n; i++)
		nk += m->funcs.v[i]->is_kernel;
	if (ptx) {
		n = 0;
		for (const char *p = ptx; *p; p++)
			n += *p == '\n';
	}
	fputs_escaped(o->input, stderr);
	fprintf(stderr, ": ok, %zu kernel%s, %zu %s (%s)%s", nk,
		nk == 1 ? "" : "s", n,
		ptx ? "lines of PTX" : n == 1 ? "tile call" : "tile calls",
		o->target ? o->target : pt_default_target(),
		ptx && o->out && strcmp(o->out, "-") ? " -> " : "");
	if (ptx && o->out && strcmp(o->out, "-"))
		fputs_escaped(o->out, stderr);
	fputc('\n', stderr);
}

/* Maps a library status to the CLI's exit status, printing diagnostics. */
static int
report(pt_ctx *ctx, int st, const Options *o)
{
	if (st == PT_OK) {
		if (pt_diag_count(ctx) > 0) /* warnings */
			fputs(pt_diag_render(ctx, o->diag), stderr);
		return 0;
	}
	if (pt_diag_count(ctx) > 0) {
		fputs(pt_diag_render(ctx, o->diag), stderr);
		return EXIT_INPUT;
	}
	char buf[8];
	fprintf(stderr, "ptxtile: error[%s]: %s\n",
		pt_code_name(st, buf) ? buf : "?", pt_ctx_errmsg(ctx));
	return EXIT_USAGE;
}

static int
cannot_write(const char *path, int err)
{
	fputs("ptxtile: cannot write ", stderr);
	fputs_escaped(path, stderr);
	fprintf(stderr, ": %s\n", strerror(err));
	return EXIT_USAGE;
}

/* Writes every staged output or none: all are staged (temporary files
 * beside their targets) before the first is renamed into place, and a
 * failure while committing puts the replaced files back. */
static int
write_outputs(OutFile *outs, const char *const *paths,
	      const char *const *data, const size_t *len, int n)
{
	for (int staged = 0; staged < n; staged++)
		if (!out_stage(&outs[staged], paths[staged], data[staged],
			       len[staged])) {
			int rc = cannot_write(paths[staged], outs[staged].err);
			for (int i = 0; i < staged; i++)
				out_abort(&outs[i]);
			return rc;
		}
	int bad = out_commit_all(outs, n);
	return bad < 0 ? 0 : cannot_write(paths[bad], outs[bad].err);
}

static int
write_output(const char *path, const char *text)
{
	OutFile o;
	const char *p = path ? path : "-";
	size_t len = strlen(text);
	return write_outputs(&o, &p, &text, &len, 1);
}

static int
run_print(pt_ctx *ctx, pt_module *m, const Options *o)
{
	const char *text;
	int st = pt_print(ctx, m, &text);
	return st ? report(ctx, st, o) : write_output(o->out, text);
}

static int
run_json(pt_ctx *ctx, pt_module *m, const Options *o)
{
	const char *text;
	int st = pt_to_json(ctx, m, &text);
	return st ? report(ctx, st, o) : write_output(o->out, text);
}

/* Tile calls in block b (a checked module still holds them: lowering
 * replaces each by its instructions). */
static size_t
count_tile_calls(const Block *b)
{
	size_t n = 0;
	for (size_t i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];
		if (s->kind == ST_EVAL)
			n += s->u.value->kind == EX_TILE_APPLY ||
			     s->u.value->kind == EX_TILE_EWISE;
		else if (s->kind == ST_FOR)
			n += count_tile_calls(&s->u.loop.body);
		else if (s->kind == ST_WHILE)
			n += count_tile_calls(&s->u.whil.body);
		else if (s->kind == ST_IF)
			n += count_tile_calls(&s->u.cond.then) +
			     count_tile_calls(&s->u.cond.els);
	}
	return n;
}

/* The whole compile with the outputs dropped: check rejects exactly
 * what compile rejects (code generation has its own limits: shared
 * memory, constant indices, budgets). */
static int
run_check(pt_ctx *ctx, pt_module *m, const Options *o)
{
	const char *ptx, *meta;
	int st = pt_check(ctx, m, o->target);
	size_t calls = 0; /* before lowering consumes them */
	for (size_t i = 0; !st && i < m->funcs.n; i++)
		if (m->funcs.v[i]->is_kernel)
			calls += count_tile_calls(&m->funcs.v[i]->body);
	if (!st)
		st = pt_compile(ctx, m, o->target, &ptx, &meta);
	int rc = report(ctx, st, o);
	if (!rc)
		summary(m, o, NULL, calls);
	return rc;
}

/* With errors the calls that passed are still explained, on stdout
 * only: an output file is never written for a failing input. */
static int
run_explain(pt_ctx *ctx, pt_module *m, const Options *o)
{
	const char *text;
	int st = pt_explain(ctx, m, o->target, &text);
	if (!st)
		return write_output(o->out, text);
	if (text && *text && !o->out)
		fputs(text, stdout);
	return report(ctx, st, o);
}

/* ptxas to use: $PTXAS, then PATH, then the usual CUDA location. */
static const char *
find_ptxas(void)
{
	const char *env = getenv("PTXAS");
	if (env && *env)
		return access(env, X_OK) == 0 ? env : NULL;
	static const char *const dirs[] = {"/usr/local/cuda/bin/ptxas",
					   "/usr/bin/ptxas"};
	const char *path = getenv("PATH");
	static char buf[4096];
	while (path && *path) {
		const char *end = strchr(path, ':');
		size_t n = end ? (size_t)(end - path) : strlen(path);
		if (n && n < sizeof(buf) - 8) {
			snprintf(buf, sizeof(buf), "%.*s/ptxas", (int)n, path);
			if (access(buf, X_OK) == 0)
				return buf;
		}
		path = end ? end + 1 : NULL;
	}
	for (size_t i = 0; i < countof(dirs); i++)
		if (access(dirs[i], X_OK) == 0)
			return dirs[i];
	return NULL;
}

/* Runs `ptxas -arch=target src -o out`; true when it succeeds. */
static bool
run_ptxas(const char *ptxas, const char *target, const char *src,
	  const char *out)
{
	char arch[32];
	snprintf(arch, sizeof(arch), "-arch=%s", target);
	pid_t pid = fork();
	if (pid == 0) {
		execl(ptxas, ptxas, arch, src, "-o", out, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	return pid > 0 && waitpid(pid, &status, 0) == pid &&
	       WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Assembles ptx into a cubin (arena memory in *cubin). */
static int
assemble_cubin(Arena *a, const char *ptx, const char *target,
	       const char **cubin, size_t *len)
{
	const char *ptxas = find_ptxas();
	if (!ptxas) {
		const char *env = getenv("PTXAS");
		if (env && *env)
			fprintf(stderr, "ptxtile: --cubin needs ptxas, but "
					"PTXAS=%s is not executable\n", env);
		else
			fprintf(stderr, "ptxtile: --cubin needs ptxas, which "
					"was not found (set PTXAS or add it "
					"to PATH)\n");
		return EXIT_USAGE;
	}
	/* ptxas reads and writes temporary files; the cubin then goes to
	 * path like every other output (atomic for a regular file, in place
	 * for a device or pipe). */
	char src[] = "/tmp/ptxtile-XXXXXX", out[] = "/tmp/ptxtile-cubin-XXXXXX";
	int fd = mkstemp(src);
	if (fd < 0)
		return EXIT_USAGE;
	close(fd);
	fd = mkstemp(out);
	if (fd < 0) {
		remove(src);
		return EXIT_USAGE;
	}
	close(fd);
	int rc = EXIT_USAGE;
	if (write_file_atomic(src, ptx, strlen(ptx)) && run_ptxas(ptxas, target,
								 src, out)) {
		*cubin = read_file(a, out, len);
		if (*cubin && *len > 0)
			rc = 0;
		else
			fprintf(stderr, "ptxtile: ptxas wrote no cubin\n");
	} else {
		fprintf(stderr, "ptxtile: ptxas (%s) failed\n", ptxas);
	}
	remove(out);
	remove(src);
	return rc;
}

static int
run_compile(pt_ctx *ctx, pt_module *m, const Options *o)
{
	const char *ptx, *meta;
	pt_set_lineinfo(ctx, o->lineinfo);
	int st = pt_compile(ctx, m, o->target, &ptx, &meta);
	if (st)
		return report(ctx, st, o);
	const char *target = o->target ? o->target : pt_default_target();
	const char *paths[3], *data[3];
	size_t len[3];
	OutFile outs[3];
	int n = 0, rc = 0;
	Arena a;
	arena_init(&a, NULL);
	if (o->cubin) {
		rc = assemble_cubin(&a, ptx, target, &data[n], &len[n]);
		paths[n++] = o->cubin;
	}
	if (o->meta) {
		data[n] = meta;
		len[n] = strlen(meta);
		paths[n++] = o->meta;
	}
	data[n] = ptx;
	len[n] = strlen(ptx);
	paths[n++] = o->out ? o->out : "-";
	if (!rc)
		rc = write_outputs(outs, paths, data, len, n);
	arena_free(&a);
	if (!rc)
		summary(m, o, ptx, 0);
	return rc;
}

/* -D NAME=VALUE overrides: split at the first '='. */
static int
set_constants(pt_ctx *ctx, const Options *o)
{
	for (int i = 0; i < o->ndefs; i++) {
		const char *eq = strchr(o->defs[i], '=');
		size_t n = (size_t)(eq - o->defs[i]);
		char name[256];
		if (n >= sizeof(name)) {
			fprintf(stderr, "ptxtile: -D name too long: %.40s...\n",
				o->defs[i]);
			return EXIT_USAGE;
		}
		memcpy(name, o->defs[i], n);
		name[n] = 0;
		if (pt_set_constant(ctx, name, eq + 1)) {
			fprintf(stderr, "ptxtile: -D %s: %s\n", o->defs[i],
				pt_ctx_errmsg(ctx));
			return EXIT_USAGE;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	Options o;
	const Command *cmd = NULL;
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return ptxtile_run_main(argc, argv);
	int rc = parse_args(argc, argv, &o, &cmd);
	if (rc)
		return rc < 0 ? 0 : rc;
	pt_ctx *ctx = pt_ctx_new(NULL);
	if (!ctx) {
		fprintf(stderr, "ptxtile: out of memory\n");
		return EXIT_USAGE;
	}
	for (int i = 0; i < PT_BUDGET_COUNT; i++)
		pt_set_budget(ctx, (pt_budget)i, o.budget[i]);
	if (set_constants(ctx, &o)) {
		pt_ctx_free(ctx);
		return EXIT_USAGE;
	}
	size_t len = 0;
	errno = 0;
	/* one byte past the budget is enough for pt_load to refuse it */
	char *text = read_file_max(&ctx->arena, o.input,
				   ctx->budget[PT_BUDGET_INPUT_BYTES], &len);
	if (!text) {
		int err = errno;
		fputs("ptxtile: cannot read ", stderr);
		fputs_escaped(o.input, stderr);
		fprintf(stderr, ": %s\n", err ? strerror(err) : "read error");
		pt_ctx_free(ctx);
		return EXIT_USAGE;
	}
	/* pt_load resets the arena, so hand it a private copy. */
	char *copy = malloc(len + 1);
	if (!copy) {
		pt_ctx_free(ctx);
		return EXIT_USAGE;
	}
	memcpy(copy, text, len + 1);
	pt_module *m = NULL;
	int st = pt_load(ctx, o.input, copy, len, &m);
	free(copy);
	rc = st ? report(ctx, st, &o) : cmd->run(ctx, m, &o);
	pt_ctx_free(ctx);
	return rc;
}
