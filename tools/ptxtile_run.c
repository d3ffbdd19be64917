/*
 * ptxtile_run.c - `ptxtile run`: runs a kernel in the PTX emulator
 * (--emulate, docs/emulator.md) or on the GPU through the runtime (--gpu)
 * with the same inputs, and dumps its tensors.
 *
 *   ptxtile run --emulate FILE.py [--target T] [--kernel NAME]
 *               [--arg NAME=SPEC]... [--fill SPEC] [--size VAR=N]...
 *               [--dump NAME[=PATH]]... [--dump-all DIR]
 *               [--late] [--check-races] [--max-steps N] [--lineinfo]
 *               [--devices N [--check-order]]
 *   ptxtile run --emulate FILE.ptx --meta FILE.json ...
 *   ptxtile run --gpu FILE ...
 *
 * The script is compiled in-process; the metadata gives the parameters
 * and the launch, and the runtime's launch planner (the same checks as a
 * GPU launch) binds the arguments and computes the tensor maps, which are
 * then written in the emulator's tensor map encoding.
 * SPEC of a tensor: zeros (default) | iota | random[:SEED] |
 * random-f16[:SEED] | random-bf16[:SEED] | file:PATH (raw little-endian
 * bytes of exactly the tensor's size); of a scalar: its value.  --dump
 * writes a tensor's bytes to PATH, or prints its values.
 * --devices N runs one launch per emulated device (src/emu/devices.c),
 * every tensor on every device; random SPECs take the seed + the device
 * index; peers:NAME is a uint64 tensor holding every device's address of
 * tensor NAME, peers:BYTES every device's address of a fresh zeroed
 * buffer of BYTES (signal pads); a scalar @rank is the device index,
 * @world is N.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxtile.h"
#include "ptxtile_emu.h"
#include "ptxtile_rt.h"
#include "base/base.h"
#include "rt/rt.h"
#include "emu/from_rt.h"

#include "ptxtile_run.h"

enum { EXIT_INPUT = 1, EXIT_USAGE = 2 };

typedef struct RunOpts {
	const char *input, *target, *kernel, *meta, *dump_all, *fill_all;
	/* each as long as argv (every entry is an argv string), so a kernel
	 * with any number of parameters can be given all of them */
	const char **args, **sizes, **dumps;
	const char **defs; /* -D NAME=VALUE, as given */
	int nargs, nsizes, ndumps, ndefs;
	bool emulate, gpu, late, races, lineinfo, order;
	uint64_t max_steps;
	unsigned devices; /* 0: one device, no group */
} RunOpts;

static const char run_usage[] =
	"usage: ptxtile run --emulate FILE.py [--target T] [--kernel NAME]\n"
	"                   [--arg NAME=SPEC]... [--size VAR=N]...\n"
	"                   [--dump NAME[=PATH]]... [--late] [--check-races]\n"
	"                   [--max-steps N] [--lineinfo] [-D NAME=VALUE]...\n"
	"                   [--devices N [--check-order]]\n"
	"       ptxtile run --emulate FILE.ptx --meta FILE.json ...\n"
	"       ptxtile run --gpu FILE ...   (the same, on the GPU)\n"
	"  Runs a kernel in the PTX emulator (docs/emulator.md), or with\n"
	"  --gpu through the runtime on the GPU, with the same inputs.\n"
	"  SPEC of a tensor: zeros (default), iota, random[:SEED], file:PATH\n"
	"  (raw bytes, exactly the tensor's size); of a scalar: its value.\n"
	"  random-f16[:SEED] / random-bf16[:SEED] fill every 16-bit half\n"
	"  (for tensors of packed halves).  --fill SPEC is the SPEC of every\n"
	"  tensor without an --arg.  --size binds a symbolic tensor size.\n"
	"  --dump writes a tensor's bytes to PATH, or prints its values;\n"
	"  --dump-all DIR writes every tensor to DIR/NAME.bin.  --late\n"
	"  completes every asynchronous copy only when the kernel must\n"
	"  observe it.  --check-races reports shared-memory races.\n"
	"  --lineinfo compiles a script with .file/.loc, so emulator errors\n"
	"  name the script line too.  -D NAME=VALUE overrides the module\n"
	"  constant NAME of a script, as in ptxtile compile.\n"
	"  --devices N (2-8) runs one launch per emulated device, every\n"
	"  tensor on every device (random seeds + the device index); SPEC\n"
	"  peers:NAME is a uint64 tensor of every device's address of NAME\n"
	"  (peers:BYTES: of a fresh zeroed buffer of BYTES on each device),\n"
	"  a scalar @rank the device index, @world N; dumps name the device\n"
	"  (NAME[d], PATH.d).  --check-order reports cross-device races.\n";

/* Reads at most max bytes of path ("-": stdin) into a: a file (or a
 * stream such as /dev/zero) longer than that is never read further, so
 * no input can grow memory past its budget.  NULL when unreadable or
 * longer (*over set). */
static char *
read_bounded(Arena *a, const char *path, size_t max, size_t *len, bool *over)
{
	*over = false;
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!f)
		return NULL;
	StrBuf b;
	sb_init(&b, a);
	char buf[65536];
	size_t n;
	while (!*over && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		*over = b.n + n > max;
		if (!*over)
			sb_putn(&b, buf, n);
	}
	bool err = ferror(f);
	if (f != stdin)
		fclose(f);
	if (err || *over)
		return NULL;
	*len = b.n;
	return (char *)sb_cstr(&b);
}

/* read_bounded with the messages of a run input over its budget. */
static char *
read_input(Arena *a, const char *path, size_t max, const char *what,
	   int code, size_t *len)
{
	bool over;
	char *text = read_bounded(a, path, max, len, &over);
	if (over)
		fprintf(stderr, "ptxtile run: error[E%04d]: %s %s is over the "
				"budget of %zu bytes\n", code, what, path, max);
	else if (!text)
		fprintf(stderr, "ptxtile run: cannot read %s\n", path);
	return text;
}

static int
usage_err(const char *msg, const char *arg)
{
	fprintf(stderr, "ptxtile run: %s%s%s\ntry 'ptxtile run --help'\n", msg,
		arg ? ": " : "", arg ? arg : "");
	return EXIT_USAGE;
}

static int
push(const char **list, int *n, const char *v, const char *opt)
{
	if (!*v)
		return usage_err("option needs a value", opt);
	list[(*n)++] = v;
	return 0;
}

static int
parse_run_args(int argc, char **argv, RunOpts *o, Arena *ar)
{
	memset(o, 0, sizeof(*o));
	o->args = NEWN(ar, const char *, (size_t)argc);
	o->sizes = NEWN(ar, const char *, (size_t)argc);
	o->dumps = NEWN(ar, const char *, (size_t)argc);
	o->defs = NEWN(ar, const char *, (size_t)argc);
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v;
		int rc = 0;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(run_usage, stdout);
			return -1;
		} else if (!strcmp(a, "--emulate")) {
			o->emulate = true;
		} else if (!strcmp(a, "--gpu")) {
			o->gpu = true;
		} else if (!strcmp(a, "--late")) {
			o->late = true;
		} else if (!strcmp(a, "--check-races")) {
			o->races = true;
		} else if (!strcmp(a, "--lineinfo")) {
			o->lineinfo = true;
		} else if (!strcmp(a, "--check-order")) {
			o->order = true;
		} else if ((v = cli_option_value(argc, argv, &i, "--devices"))) {
			char *end;
			unsigned long n = strtoul(v, &end, 10);
			if (!*v || *end || n < 2 || n > PTEM_MAX_DEVICES)
				return usage_err("--devices takes 2..8", v);
			o->devices = (unsigned)n;
		} else if ((v = cli_option_value(argc, argv, &i, "--target"))) {
			o->target = v;
		} else if ((v = cli_option_value(argc, argv, &i, "--kernel"))) {
			o->kernel = v;
		} else if ((v = cli_option_value(argc, argv, &i, "--meta"))) {
			o->meta = v;
		} else if ((v = cli_option_value(argc, argv, &i, "--dump-all"))) {
			o->dump_all = v;
		} else if ((v = cli_option_value(argc, argv, &i, "--fill"))) {
			o->fill_all = v;
		} else if ((v = cli_option_value(argc, argv, &i, "--arg"))) {
			rc = push(o->args, &o->nargs, v, "--arg");
		} else if ((v = cli_option_value(argc, argv, &i, "--size"))) {
			rc = push(o->sizes, &o->nsizes, v, "--size");
		} else if ((v = cli_option_value(argc, argv, &i, "--dump"))) {
			rc = push(o->dumps, &o->ndumps, v, "--dump");
		} else if (!strncmp(a, "-D", 2)) {
			v = a[2] ? a + 2 : i + 1 < argc ? argv[++i] : "";
			if (!strchr(v, '=') || v[0] == '=')
				return usage_err("-D takes NAME=VALUE", a);
			rc = push(o->defs, &o->ndefs, v, "-D");
		} else if ((v = cli_option_value(argc, argv, &i, "--max-steps"))) {
			char *end;
			o->max_steps = strtoull(v, &end, 10);
			if (!*v || *end || !o->max_steps)
				return usage_err("bad --max-steps", v);
		} else if (a[0] == '-' && a[1]) {
			return usage_err("unknown option", a);
		} else if (o->input) {
			return usage_err("more than one input file", a);
		} else {
			o->input = a;
		}
		if (rc)
			return rc;
	}
	if (o->emulate == o->gpu)
		return usage_err("give one of --emulate and --gpu", NULL);
	if (o->meta && o->ndefs)
		return usage_err("-D overrides constants of a script, not of "
				 "PTX with --meta", NULL);
	if (o->gpu && (o->late || o->max_steps || o->races || o->devices))
		return usage_err("--late, --check-races, --max-steps and "
				 "--devices are emulator options", NULL);
	if (o->order && !o->devices)
		return usage_err("--check-order goes with --devices", NULL);
	if (!o->input)
		return usage_err("missing input file", NULL);
	size_t n = strlen(o->input);
	bool ptx = n > 4 && !strcmp(o->input + n - 4, ".ptx");
	if (ptx != (o->meta != NULL))
		return usage_err(ptx ? "a .ptx input needs --meta"
				     : "--meta goes with a .ptx input", NULL);
	if ((o->target || o->lineinfo) && ptx)
		return usage_err("--target and --lineinfo are for script inputs",
				 NULL);
	return 0;
}

/* "NAME=VALUE" entries of a list: the value for name, or NULL. */
static const char *
lookup(const char *const *list, int n, const char *name)
{
	size_t len = strlen(name);
	for (int i = 0; i < n; i++)
		if (!strncmp(list[i], name, len) && list[i][len] == '=')
			return list[i] + len + 1;
	return NULL;
}

/* ---- filling tensors ---- */

static uint64_t
rnd_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void
put_elem(uint8_t *p, ptrt_dtype dt, int size, double v, uint64_t bits,
	 bool use_bits)
{
	uint64_t b = bits;
	if (!use_bits) {
		switch (dt) {
		case PTRT_FLOAT32: {
			float f = (float)v;
			uint32_t u;
			memcpy(&u, &f, 4);
			b = u;
			break;
		}
		case PTRT_FLOAT64:
			memcpy(&b, &v, 8);
			break;
		case PTRT_FLOAT16: {
			/* v is a small integer or a multiple of 1/8 here:
			 * exact in f16 through f32 */
			float f = (float)v;
			uint32_t u;
			memcpy(&u, &f, 4);
			uint32_t e = (u >> 23) & 0xff, m = u & 0x7fffff;
			b = (u >> 16) & 0x8000;
			if (e)
				b |= ((e - 112) << 10) | (m >> 13);
			break;
		}
		case PTRT_BFLOAT16: {
			float f = (float)v;
			uint32_t u;
			memcpy(&u, &f, 4);
			b = u >> 16;
			break;
		}
		default:
			b = (uint64_t)(int64_t)v;
		}
	}
	for (int i = 0; i < size; i++)
		p[i] = (uint8_t)(b >> (8 * i));
}

static bool
is_float_dtype(ptrt_dtype dt)
{
	return dt == PTRT_FLOAT32 || dt == PTRT_FLOAT64 ||
	       dt == PTRT_FLOAT16 || dt == PTRT_BFLOAT16;
}

static int
fill_tensor(uint8_t *p, uint64_t n, int esize, ptrt_dtype dt,
	    const char *spec, const char *name)
{
	if (!spec || !strcmp(spec, "zeros"))
		return 0;
	if (!strcmp(spec, "iota")) {
		for (uint64_t i = 0; i < n; i++)
			put_elem(p + i * (uint64_t)esize, dt, esize,
				 (double)(is_float_dtype(dt) ? i % 2048 : i), 0,
				 false);
		return 0;
	}
	if (!strncmp(spec, "random", 6) && (!spec[6] || spec[6] == ':')) {
		uint64_t s = spec[6] ? strtoull(spec + 7, NULL, 10) : 1;
		s = s * 2654435761u + 0x9e3779b97f4a7c15ull;
		for (uint64_t i = 0; i < n; i++) {
			uint64_t x = rnd_next(&s);
			/* floats: multiples of 1/8 in [-4, 4), exact in
			 * every float type */
			double v = (double)((int64_t)(x >> 58) - 32) / 8.0;
			put_elem(p + i * (uint64_t)esize, dt, esize, v, x,
				 !is_float_dtype(dt));
		}
		return 0;
	}
	bool bf = !strncmp(spec, "random-bf16", 11);
	if (bf || !strncmp(spec, "random-f16", 10)) {
		const char *seed = spec + (bf ? 11 : 10);
		uint64_t s = *seed == ':' ? strtoull(seed + 1, NULL, 10) : 1;
		s = s * 2654435761u + 0x9e3779b97f4a7c15ull;
		if (esize % 2 || (*seed && *seed != ':')) {
			fprintf(stderr, "ptxtile run: %s: bad SPEC '%s'\n", name,
				spec);
			return EXIT_USAGE;
		}
		for (uint64_t i = 0; i < n * (uint64_t)esize / 2; i++) {
			double v = (double)((int64_t)(rnd_next(&s) >> 58) - 32) / 8.0;
			put_elem(p + 2 * i, bf ? PTRT_BFLOAT16 : PTRT_FLOAT16, 2, v,
				 0, false);
		}
		return 0;
	}
	if (!strncmp(spec, "file:", 5)) {
		Arena a;
		arena_init(&a, NULL);
		size_t len = 0;
		bool over = false;
		/* one byte more than the tensor tells a longer file */
		char *data = n * (uint64_t)esize < SIZE_MAX
				     ? read_bounded(&a, spec + 5,
						    n * (size_t)esize, &len,
						    &over)
				     : NULL;
		int rc = 0;
		if (!data || len != n * (uint64_t)esize) {
			fprintf(stderr, "ptxtile run: %s: %s is %s, the tensor "
					"is %llu bytes\n", name, spec + 5,
				data || over ? "another size" : "unreadable",
				(unsigned long long)(n * (uint64_t)esize));
			rc = EXIT_USAGE;
		} else {
			memcpy(p, data, len);
		}
		arena_free(&a);
		return rc;
	}
	fprintf(stderr, "ptxtile run: %s: bad SPEC '%s'\n", name, spec);
	return EXIT_USAGE;
}

static int
scalar_arg(const RtParam *q, const char *v, ptrt_arg *out)
{
	char *end = NULL;
	if (!v) {
		fprintf(stderr, "ptxtile run: scalar %s needs --arg %s=VALUE\n",
			q->name, q->name);
		return EXIT_USAGE;
	}
	switch (q->dtype) {
	case PTRT_FLOAT32: *out = ptrt_arg_f32(strtof(v, &end)); break;
	case PTRT_FLOAT64: *out = ptrt_arg_f64(strtod(v, &end)); break;
	case PTRT_INT64: *out = ptrt_arg_i64(strtoll(v, &end, 0)); break;
	case PTRT_UINT64: *out = ptrt_arg_u64(strtoull(v, &end, 0)); break;
	case PTRT_UINT32:
		*out = ptrt_arg_u32((uint32_t)strtoul(v, &end, 0));
		break;
	default:
		*out = ptrt_arg_i32((int32_t)strtol(v, &end, 0));
		out->dtype = q->dtype;
	}
	if (!*v || *end) {
		fprintf(stderr, "ptxtile run: bad value for %s: %s\n", q->name,
			v);
		return EXIT_USAGE;
	}
	return 0;
}

/* ---- dumping ---- */

static void
print_tensor(const char *name, const uint8_t *p, uint64_t n, int esize,
	     ptrt_dtype dt, int64_t row)
{
	printf("%s:", name);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t b = 0;
		for (int k = 0; k < esize; k++)
			b |= (uint64_t)p[i * (uint64_t)esize + (uint64_t)k] << (8 * k);
		if (row > 0 && i % (uint64_t)row == 0)
			printf("\n ");
		if (dt == PTRT_FLOAT32) {
			float f;
			uint32_t u = (uint32_t)b;
			memcpy(&f, &u, 4);
			printf(" %.9g", f);
		} else if (dt == PTRT_FLOAT64) {
			double d;
			memcpy(&d, &b, 8);
			printf(" %.17g", d);
		} else if (dt == PTRT_FLOAT16 || dt == PTRT_BFLOAT16) {
			printf(" 0x%04llx", (unsigned long long)b);
		} else if (dt == PTRT_INT8 || dt == PTRT_INT16 ||
			   dt == PTRT_INT32 || dt == PTRT_INT64) {
			int sh = 64 - 8 * esize;
			printf(" %lld", (long long)((int64_t)(b << sh) >> sh));
		} else {
			printf(" %llu", (unsigned long long)b);
		}
	}
	printf("\n");
}

typedef struct Tensor {
	const RtParam *q;
	uint8_t *host;      /* the inputs, then the results */
	uint64_t addr, n;   /* device or emulated address, elements */
	int esize;
	int64_t row;
	int64_t shape[PTRT_MAX_DIMS];
	const char *spec;   /* its SPEC (NULL: zeros) */
} Tensor;

/* dev >= 0: device dev of a group (NAME[dev], PATH.dev, NAME.dev.bin) */
static int
dump_tensors(const RunOpts *o, const Tensor *ts, size_t nt, int dev)
{
	char sfx[16] = "";
	if (dev >= 0)
		snprintf(sfx, sizeof(sfx), ".%d", dev);
	for (size_t i = 0; o->dump_all && i < nt; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s%s.bin", o->dump_all,
			 ts[i].q->name, sfx);
		if (!write_file_atomic(path, (const char *)ts[i].host,
				       ts[i].n * (uint64_t)ts[i].esize)) {
			fprintf(stderr, "ptxtile run: cannot write %s\n", path);
			return EXIT_USAGE;
		}
	}
	for (int d = 0; d < o->ndumps; d++) {
		char name[128];
		const char *eq = strchr(o->dumps[d], '=');
		size_t len = eq ? (size_t)(eq - o->dumps[d]) : strlen(o->dumps[d]);
		snprintf(name, sizeof(name), "%.*s", (int)len, o->dumps[d]);
		const Tensor *t = NULL;
		for (size_t i = 0; i < nt; i++)
			if (!strcmp(ts[i].q->name, name))
				t = &ts[i];
		if (!t) {
			fprintf(stderr, "ptxtile run: --dump %s: no tensor of "
					"that name\n", name);
			return EXIT_USAGE;
		}
		uint64_t bytes = t->n * (uint64_t)t->esize;
		if (eq && eq[1]) {
			char path[4096];
			snprintf(path, sizeof(path), "%s%s", eq + 1, sfx);
			if (!write_file_atomic(path, (const char *)t->host,
					       bytes)) {
				fprintf(stderr, "ptxtile run: cannot write %s\n",
					path);
				return EXIT_USAGE;
			}
		} else {
			char label[160];
			if (dev >= 0)
				snprintf(label, sizeof(label), "%s[%d]", name, dev);
			else
				snprintf(label, sizeof(label), "%s", name);
			print_tensor(label, t->host, t->n, t->esize, t->q->dtype,
				     t->row);
		}
	}
	return 0;
}

/* ---- the run ---- */

/* Host images of the tensors (filled from their SPECs) and the scalar
 * arguments; the tensor arguments get their addresses later. */
static int
bind_args(const RtKernelMeta *k, const RunOpts *o, Arena *a, ptrt_arg *args,
	  Tensor *ts, size_t *nt)
{
	int64_t *vals = NEWN(a, int64_t, k->nvars + 1);
	for (size_t v = 0; v < k->nvars; v++) {
		const char *s = lookup(o->sizes, o->nsizes, k->vars[v]);
		vals[v] = s ? strtoll(s, NULL, 0) : -1;
	}
	for (size_t i = 0; i < k->nparams; i++) {
		const RtParam *q = &k->params[i];
		if (q->arg < 0)
			continue;
		const char *spec = lookup(o->args, o->nargs, q->name);
		if (!spec && q->kind == RP_TENSOR)
			spec = o->fill_all;
		if (q->kind == RP_SCALAR) {
			/* @rank, @world: set per device (run_group) */
			bool dev = o->devices && spec && (!strcmp(spec, "@rank") ||
							  !strcmp(spec, "@world"));
			if (scalar_arg(q, dev ? "0" : spec, &args[q->arg]))
				return EXIT_USAGE;
			continue;
		}
		if (q->kind != RP_TENSOR) {
			fprintf(stderr, "ptxtile run: parameter %s: user tensor "
					"maps are not supported by the CLI\n",
				q->name);
			return EXIT_USAGE;
		}
		Tensor *t = &ts[(*nt)++];
		t->q = q;
		t->n = 1;
		for (int d = 0; d < q->ndim; d++) {
			int var = q->shape[d].var;
			int64_t sz = var >= 0 ? vals[var] : q->shape[d].value;
			if (sz <= 0 || sz > (1 << 28) ||
			    t->n > (1ull << 30) / (uint64_t)sz) {
				fprintf(stderr, "ptxtile run: tensor %s needs a "
						"size for %s (--size %s=N)\n",
					q->name, var >= 0 ? k->vars[var] : "?",
					var >= 0 ? k->vars[var] : "?");
				return EXIT_USAGE;
			}
			t->shape[d] = sz;
			t->n *= (uint64_t)sz;
		}
		t->esize = dtype_size(q->dtype);
		if (t->esize <= 0) {
			fprintf(stderr, "ptxtile run: tensor %s: sub-byte dtypes "
					"are not supported by the CLI\n", q->name);
			return EXIT_USAGE;
		}
		t->row = q->ndim > 1 ? t->shape[q->ndim - 1] : 0;
		uint64_t bytes = t->n * (uint64_t)t->esize;
		t->host = NEWN(a, uint8_t, bytes);
		t->spec = spec;
		if (o->devices && spec && !strncmp(spec, "peers:", 6)) {
			if (q->dtype != PTRT_UINT64 || t->n < o->devices) {
				fprintf(stderr, "ptxtile run: %s: peers: needs a "
						"uint64 tensor of at least %u "
						"elements\n", q->name, o->devices);
				return EXIT_USAGE;
			}
			continue; /* filled by run_group */
		}
		int rc = fill_tensor(t->host, t->n, t->esize, q->dtype, spec,
				     q->name);
		if (rc)
			return rc;
	}
	return 0;
}

static void
set_tensor_args(const Tensor *ts, size_t nt, ptrt_arg *args)
{
	for (size_t i = 0; i < nt; i++)
		args[ts[i].q->arg] = ptrt_arg_tensor(ts[i].addr, ts[i].q->dtype,
						     ts[i].q->ndim, ts[i].shape,
						     NULL);
}

static int
emu_error(const char *what, int st, const char *msg)
{
	char code[8];
	fprintf(stderr, "ptxtile run: %serror[%s]: %s\n", what,
		pt_code_name(st, code) ? code : "?", msg);
	return EXIT_INPUT;
}

/* The launch as the runtime plans it (ptrt_plan_launch: the same checks,
 * parameters and tensor maps as a GPU launch), run in the emulator. */
static int
run_emulated(const RunOpts *o, const char *ptx, const char *meta,
	     const RtKernelMeta *k, Arena *a, ptrt_arg *args, Tensor *ts,
	     size_t nt)
{
	ptem *e = ptem_new();
	if (!e)
		return EXIT_USAGE;
	int rc = EXIT_USAGE;
	int lst = ptem_load(e, ptx, strlen(ptx));
	if (lst) {
		rc = emu_error("", lst, ptem_errmsg(e));
		goto out;
	}
	for (size_t i = 0; i < nt; i++) {
		uint64_t bytes = ts[i].n * (uint64_t)ts[i].esize;
		if (ptem_alloc(e, bytes, &ts[i].addr))
			goto out;
		memcpy(ptem_host(e, ts[i].addr, bytes), ts[i].host, bytes);
	}
	set_tensor_args(ts, nt, args);
	ptrt_plan plan = {.nparams = (uint32_t)k->nparams,
			  .params = NEWN(a, ptrt_plan_param, k->nparams + 1)};
	char msg[512];
	if (ptrt_plan_launch(meta, strlen(meta), k->name, args, k->nargs, &plan,
			     msg, sizeof(msg)) != PT_OK) {
		fprintf(stderr, "ptxtile run: %s\n", msg);
		goto out;
	}
	ptem_arg *pa = NEWN(a, ptem_arg, k->nparams + 1);
	for (size_t i = 0; i < k->nparams; i++) {
		pa[i].size = plan.params[i].size;
		pa[i].data = plan.params[i].bytes;
		if (plan.params[i].is_tma) {
			uint8_t *map = NEWN(a, uint8_t, 128);
			emu_tensormap_from_ptrt_plan(&plan.params[i].tma, map);
			pa[i].data = map;
		}
	}
	ptem_launch l = {0};
	for (int d = 0; d < 3; d++) {
		l.grid[d] = plan.grid[d];
		l.block[d] = plan.block[d];
		l.cluster[d] = plan.cluster[d];
	}
	l.dynamic_smem = plan.smem;
	l.flags = (o->late ? PTEM_LATE_COMPLETION : 0) |
		  (o->races ? PTEM_CHECK_RACES : 0);
	l.max_steps = o->max_steps;
	int rst = ptem_run(e, k->name, &l, pa, k->nparams);
	if (rst) {
		rc = emu_error("", rst, ptem_errmsg(e));
		goto out;
	}
	fprintf(stderr, "ptxtile run: %s: %llu instructions emulated\n",
		k->name, (unsigned long long)ptem_steps(e));
	for (size_t i = 0; i < nt; i++)
		memcpy(ts[i].host, ptem_host(e, ts[i].addr,
					     ts[i].n * (uint64_t)ts[i].esize),
		       ts[i].n * (uint64_t)ts[i].esize);
	rc = 0;
out:
	ptem_free(e);
	return rc;
}

/* The SPEC of a tensor on device d: random seeds move by d. */
static const char *
device_spec(const char *spec, unsigned d, char *buf, size_t cap)
{
	const char *kinds[] = {"random-bf16", "random-f16", "random"};
	for (size_t i = 0; spec && i < countof(kinds); i++) {
		size_t n = strlen(kinds[i]);
		if (strncmp(spec, kinds[i], n) || (spec[n] && spec[n] != ':'))
			continue;
		unsigned long long seed =
			spec[n] ? strtoull(spec + n + 1, NULL, 10) : 1;
		snprintf(buf, cap, "%s:%llu", kinds[i], seed + d);
		return buf;
	}
	return spec;
}

/* Device d's tensors: filled from their SPECs (peers: from every device's
 * addresses), allocated on the device. */
static int
group_tensors(const RunOpts *o, ptem_group *g, unsigned d, const Tensor *ts,
	      Tensor *dt, size_t nt, Arena *a)
{
	for (size_t i = 0; i < nt; i++) {
		dt[i] = ts[i];
		uint64_t bytes = ts[i].n * (uint64_t)ts[i].esize;
		dt[i].host = NEWN(a, uint8_t, bytes);
		char buf[64];
		const char *spec = device_spec(ts[i].spec, d, buf, sizeof(buf));
		if (!spec || strncmp(spec, "peers:", 6)) {
			int rc = fill_tensor(dt[i].host, ts[i].n, ts[i].esize,
					     ts[i].q->dtype, spec,
					     ts[i].q->name);
			if (rc)
				return rc;
		}
		if (ptem_alloc(ptem_group_device(g, d), bytes, &dt[i].addr))
			return EXIT_USAGE;
	}
	return 0;
}

static int
fill_peers(const RunOpts *o, ptem_group *g, Tensor *const *dt, size_t nt)
{
	for (unsigned d = 0; d < o->devices; d++)
		for (size_t i = 0; i < nt; i++) {
			const char *spec = dt[d][i].spec;
			if (!spec || strncmp(spec, "peers:", 6))
				continue;
			char *end;
			unsigned long long bytes = strtoull(spec + 6, &end, 10);
			if (spec[6] >= '0' && spec[6] <= '9') {
				/* peers:BYTES: a fresh zeroed buffer on every
				 * device (signal pads), made once */
				if (*end || !bytes || bytes > (1ull << 30)) {
					fprintf(stderr, "ptxtile run: %s: bad %s\n",
						dt[d][i].q->name, spec);
					return EXIT_USAGE;
				}
				if (d)
					continue;
				for (unsigned r = 0; r < o->devices; r++) {
					uint64_t b;
					if (ptem_alloc(ptem_group_device(g, r),
						       (size_t)bytes, &b))
						return EXIT_USAGE;
					for (unsigned e = 0; e < o->devices; e++)
						memcpy(dt[e][i].host + 8 * r, &b, 8);
				}
				continue;
			}
			size_t j = 0;
			while (j < nt && strcmp(dt[d][j].q->name, spec + 6))
				j++;
			if (j == nt) {
				fprintf(stderr, "ptxtile run: %s: no tensor %s\n",
					dt[d][i].q->name, spec + 6);
				return EXIT_USAGE;
			}
			for (unsigned r = 0; r < o->devices; r++)
				memcpy(dt[d][i].host + 8 * r, &dt[r][j].addr, 8);
		}
	for (unsigned d = 0; d < o->devices; d++)
		for (size_t i = 0; i < nt; i++) {
			uint64_t bytes = dt[d][i].n * (uint64_t)dt[d][i].esize;
			memcpy(ptem_host(ptem_group_device(g, d), dt[d][i].addr,
					 bytes), dt[d][i].host, bytes);
		}
	return 0;
}

/* Device d's launch, planned by the runtime as for a GPU launch. */
static int
plan_group_launch(const RunOpts *o, const char *meta, const RtKernelMeta *k,
		  Arena *a, const ptrt_arg *args0, const Tensor *dt, size_t nt,
		  unsigned d, ptem_device_launch *ls)
{
	ptrt_arg *args = NEWN(a, ptrt_arg, k->nargs + 1);
	memcpy(args, args0, k->nargs * sizeof(*args));
	set_tensor_args(dt, nt, args);
	for (size_t i = 0; i < k->nparams; i++) {
		const RtParam *q = &k->params[i];
		const char *spec = q->kind == RP_SCALAR && q->arg >= 0
					   ? lookup(o->args, o->nargs, q->name)
					   : NULL;
		char v[16];
		if (!spec || (strcmp(spec, "@rank") && strcmp(spec, "@world")))
			continue;
		snprintf(v, sizeof(v), "%u", strcmp(spec, "@rank") ? o->devices : d);
		scalar_arg(q, v, &args[q->arg]);
	}
	ptrt_plan plan = {.nparams = (uint32_t)k->nparams,
			  .params = NEWN(a, ptrt_plan_param, k->nparams + 1)};
	char msg[512];
	if (ptrt_plan_launch(meta, strlen(meta), k->name, args, k->nargs, &plan,
			     msg, sizeof(msg)) != PT_OK) {
		fprintf(stderr, "ptxtile run: device %u: %s\n", d, msg);
		return EXIT_USAGE;
	}
	ptem_arg *pa = NEWN(a, ptem_arg, k->nparams + 1);
	for (size_t i = 0; i < k->nparams; i++) {
		pa[i].size = plan.params[i].size;
		pa[i].data = plan.params[i].bytes;
		if (plan.params[i].is_tma) {
			uint8_t *map = NEWN(a, uint8_t, 128);
			emu_tensormap_from_ptrt_plan(&plan.params[i].tma, map);
			pa[i].data = map;
		}
	}
	memset(ls, 0, sizeof(*ls));
	for (int j = 0; j < 3; j++) {
		ls->launch.grid[j] = plan.grid[j];
		ls->launch.block[j] = plan.block[j];
		ls->launch.cluster[j] = plan.cluster[j];
	}
	ls->launch.dynamic_smem = plan.smem;
	ls->launch.flags = (o->late ? PTEM_LATE_COMPLETION : 0) |
			   (o->races ? PTEM_CHECK_RACES : 0) |
			   (o->order ? PTEM_CHECK_ORDER : 0);
	ls->launch.max_steps = o->max_steps;
	ls->kernel = k->name;
	ls->args = pa;
	ls->nargs = k->nparams;
	return 0;
}

/* --devices N: one launch per emulated device, then every device's
 * dumps. */
static int
run_group(const RunOpts *o, const char *ptx, const char *meta,
	  const RtKernelMeta *k, Arena *a, ptrt_arg *args, Tensor *ts,
	  size_t nt)
{
	ptem_group *g = ptem_group_new(o->devices);
	if (!g)
		return EXIT_USAGE;
	int rc = EXIT_USAGE;
	Tensor *dt[PTEM_MAX_DEVICES];
	ptem_device_launch ls[PTEM_MAX_DEVICES];
	for (unsigned d = 0; d < o->devices; d++) {
		ptem *e = ptem_group_device(g, d);
		int lst = ptem_load(e, ptx, strlen(ptx));
		if (lst) {
			rc = emu_error("", lst, ptem_errmsg(e));
			goto out;
		}
		dt[d] = NEWN(a, Tensor, nt + 1);
		if ((rc = group_tensors(o, g, d, ts, dt[d], nt, a)))
			goto out;
	}
	if ((rc = fill_peers(o, g, dt, nt)))
		goto out;
	for (unsigned d = 0; d < o->devices; d++)
		if ((rc = plan_group_launch(o, meta, k, a, args, dt[d], nt, d,
					    &ls[d])))
			goto out;
	int rst = ptem_group_run(g, ls, o->devices);
	if (rst) {
		rc = emu_error("", rst, ptem_group_errmsg(g));
		goto out;
	}
	for (unsigned d = 0; d < o->devices; d++) {
		fprintf(stderr, "ptxtile run: %s: device %u: %llu instructions "
				"emulated\n", k->name, d,
			(unsigned long long)ptem_steps(ptem_group_device(g, d)));
		for (size_t i = 0; i < nt; i++) {
			uint64_t bytes = dt[d][i].n * (uint64_t)dt[d][i].esize;
			memcpy(dt[d][i].host,
			       ptem_host(ptem_group_device(g, d), dt[d][i].addr,
					 bytes), bytes);
		}
		if ((rc = dump_tensors(o, dt[d], nt, (int)d)))
			goto out;
	}
	rc = 0;
out:
	ptem_group_free(g);
	return rc;
}

static int
gpu_error(ptrt_ctx *rt, const char *what)
{
	fprintf(stderr, "ptxtile run: %s: %s\n", what,
		rt ? ptrt_errmsg(rt) : "out of memory");
	return EXIT_USAGE;
}

static int
run_gpu(const char *ptx, const char *meta, const RtKernelMeta *km,
	ptrt_arg *args, Tensor *ts, size_t nt)
{
	ptrt_ctx *rt = NULL;
	ptrt_module *m = NULL;
	ptrt_kernel *k = NULL;
	int rc = 0;
	if (ptrt_open(&rt)) {
		rc = gpu_error(rt, "no GPU");
		ptrt_close(rt);
		return rc;
	}
	if (ptrt_module_load(rt, ptx, strlen(ptx), meta, strlen(meta), &m) ||
	    ptrt_kernel_get(m, km->name, &k))
		rc = gpu_error(rt, "load");
	for (size_t i = 0; !rc && i < nt; i++) {
		size_t bytes = (size_t)(ts[i].n * (uint64_t)ts[i].esize);
		if (ptrt_alloc(rt, bytes, &ts[i].addr) ||
		    ptrt_copy_htod(rt, ts[i].addr, ts[i].host, bytes))
			rc = gpu_error(rt, "upload");
	}
	if (!rc) {
		set_tensor_args(ts, nt, args);
		if (ptrt_launch(k, args, km->nargs, NULL) || ptrt_sync(rt))
			rc = gpu_error(rt, "launch");
	}
	for (size_t i = 0; !rc && i < nt; i++)
		if (ptrt_copy_dtoh(rt, ts[i].host, ts[i].addr,
				   (size_t)(ts[i].n * (uint64_t)ts[i].esize)))
			rc = gpu_error(rt, "download");
	ptrt_close(rt);
	return rc;
}

static int
run_kernel(const RunOpts *o, const char *ptx, const char *meta)
{
	Arena a;
	arena_init(&a, NULL);
	RtMeta m;
	RtStatus st = {0};
	int rc = EXIT_INPUT;
	if (meta_parse(&a, meta, strlen(meta), &m, &st) != PT_OK) {
		fprintf(stderr, "ptxtile run: bad metadata: error[E%04d]: %s\n",
			st.code, st.msg);
		goto out;
	}
	const RtKernelMeta *k = NULL;
	for (size_t i = 0; i < m.nkernels; i++)
		if (!o->kernel || !strcmp(m.kernels[i].name, o->kernel))
			k = &m.kernels[i];
	if (!k || (!o->kernel && m.nkernels != 1)) {
		fprintf(stderr, "ptxtile run: %s\n",
			o->kernel ? "no kernel of that name"
				  : "name the kernel with --kernel");
		rc = EXIT_USAGE;
		goto out;
	}
	ptrt_arg *args = NEWN(&a, ptrt_arg, k->nargs + 1);
	Tensor *ts = NEWN(&a, Tensor, k->nparams + 1);
	size_t nt = 0;
	if ((rc = bind_args(k, o, &a, args, ts, &nt)))
		goto out;
	rc = o->gpu ? run_gpu(ptx, meta, k, args, ts, nt)
	     : o->devices ? run_group(o, ptx, meta, k, &a, args, ts, nt)
			  : run_emulated(o, ptx, meta, k, &a, args, ts, nt);
	if (!rc && !o->devices)
		rc = dump_tensors(o, ts, nt, -1);
out:
	arena_free(&a);
	return rc;
}

/* -D NAME=VALUE overrides (kept across pt_load): split at the first '='. */
static int
set_run_constants(pt_ctx *ctx, const RunOpts *o)
{
	for (int i = 0; i < o->ndefs; i++) {
		const char *eq = strchr(o->defs[i], '=');
		size_t n = (size_t)(eq - o->defs[i]);
		char name[256];
		if (n >= sizeof(name))
			return usage_err("-D name too long", o->defs[i]);
		memcpy(name, o->defs[i], n);
		name[n] = 0;
		if (pt_set_constant(ctx, name, eq + 1)) {
			fprintf(stderr, "ptxtile run: -D %s: %s\n", o->defs[i],
				pt_ctx_errmsg(ctx));
			return EXIT_USAGE;
		}
	}
	return 0;
}

int
ptxtile_run_main(int argc, char **argv)
{
	RunOpts o;
	Arena a;
	arena_init(&a, NULL);
	int rc = parse_run_args(argc, argv, &o, &a);
	if (rc) {
		arena_free(&a);
		return rc < 0 ? 0 : rc;
	}
	size_t len = 0;
	char *text = read_input(&a, o.input, PT_BUDGET_INPUT_BYTES_DEFAULT,
				"input", PT_E_BUDGET_INPUT, &len);
	if (!text) {
		arena_free(&a);
		return EXIT_USAGE;
	}
	if (o.meta) {
		size_t mlen = 0;
		char *meta = read_input(&a, o.meta, RT_META_MAX_BYTES,
					"metadata", PT_E_RT_META_BUDGET, &mlen);
		rc = meta ? run_kernel(&o, text, meta) : EXIT_USAGE;
		arena_free(&a);
		return rc;
	}
	pt_ctx *ctx = pt_ctx_new(NULL);
	pt_module *m = NULL;
	const char *ptx, *meta;
	if (ctx && set_run_constants(ctx, &o)) {
		pt_ctx_free(ctx);
		arena_free(&a);
		return EXIT_USAGE;
	}
	int st = ctx ? pt_load(ctx, o.input, text, len, &m) : PT_E_NOMEM;
	if (ctx)
		pt_set_lineinfo(ctx, o.lineinfo);
	if (!st)
		st = pt_compile(ctx, m, o.target, &ptx, &meta);
	if (st) {
		if (ctx && pt_diag_count(ctx) > 0)
			fputs(pt_diag_render(ctx, PT_DIAG_FULL), stderr);
		else
			fprintf(stderr, "ptxtile run: %s does not compile\n",
				o.input);
		rc = EXIT_INPUT;
	} else {
		rc = run_kernel(&o, ptx, meta);
	}
	pt_ctx_free(ctx);
	arena_free(&a);
	return rc;
}
