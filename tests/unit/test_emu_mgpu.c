/*
 * test_emu_mgpu.c - several emulated devices (src/emu/devices.c): the
 * address windows and peer access, interleaved launches, the livelock
 * stop (PT_E_EMU_LIVELOCK), the cross-device ordering check
 * (PT_E_EMU_ORDER) form by form, and the two multi-device examples run on
 * 2 and 4 devices against results computed here on the host.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "ptxtile.h"
#include "ptxtile_emu.h"
#include "ptxtile_rt.h"
#include "base/base.h"
#include "rt/rt.h"
#include "emu/from_rt.h"

/* ---- the group itself ---- */

TEST(emu_mgpu_address_windows)
{
	CHECK(ptem_group_new(0) == NULL);
	CHECK(ptem_group_new(PTEM_MAX_DEVICES + 1) == NULL);
	ptem_group *g = ptem_group_new(3);
	CHECK_INT(ptem_group_size(g), 3);
	CHECK(ptem_group_device(g, 3) == NULL);
	uint64_t a[3], b;
	for (unsigned d = 0; d < 3; d++) {
		CHECK_INT(ptem_alloc(ptem_group_device(g, d), 64, &a[d]),
			  PT_OK);
		/* window d: 0x100000000 + d * 2^40 */
		CHECK(a[d] >= 0x100000000ull + d * PTEM_DEVICE_WINDOW);
		CHECK(a[d] < 0x100000000ull + (d + 1) * PTEM_DEVICE_WINDOW);
	}
	CHECK_INT(ptem_alloc(ptem_group_device(g, 1), 64, &b), PT_OK);
	CHECK(b > a[1] + 64 && b < 0x100000000ull + 2 * PTEM_DEVICE_WINDOW);
	/* every device sees every allocation through the same address */
	uint8_t *p = ptem_host(ptem_group_device(g, 2), a[2], 64);
	CHECK(p != NULL);
	CHECK(ptem_host(ptem_group_device(g, 0), a[2], 64) == p);
	CHECK(ptem_host(ptem_group_device(g, 1), a[2] + 60, 4) == p + 60);
	CHECK(ptem_host(ptem_group_device(g, 0), a[2] + 60, 8) == NULL);
	CHECK(ptem_host(ptem_group_device(g, 0), a[0] + 64, 1) == NULL);
	/* one launch per device */
	ptem_device_launch ls[2] = {{0}};
	CHECK_INT(ptem_group_run(g, ls, 2), PT_E_EMU_ARGS);
	CHECK(strstr(ptem_group_errmsg(g), "2 launches for a group of 3") !=
	      NULL);
	/* a device belongs to its group: freeing it alone does nothing */
	ptem_free(ptem_group_device(g, 1));
	CHECK(ptem_host(ptem_group_device(g, 1), b, 64) != NULL);
	ptem_group_free(g);
	/* a lone ptem keeps the first window */
	ptem *e = ptem_new();
	CHECK_INT(ptem_alloc(e, 16, &b), PT_OK);
	CHECK(b == 0x100000000ull);
	ptem_free(e);
}

/* Producer (role 0, device 0) writes data then signals with REL; the
 * consumer (role 1, device 1) spins with ACQ, then AFTER, then reads the
 * peer's data.  data and flag live on device 0, out on device 1. */
static const char pc_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry pc(.param .u64 data, .param .u64 flag, .param .u64 "
	"out,"
	" .param .u32 role)\n{\n"
	"\t.reg .b32 %%r<8>;\n\t.reg .b64 %%rd<8>;\n\t.reg .pred %%p<4>;\n"
	"\tld.param.u64 %%rd1, [data];\n\tld.param.u64 %%rd2, [flag];\n"
	"\tld.param.u64 %%rd3, [out];\n\tld.param.u32 %%r1, [role];\n"
	"\tmov.u32 %%r2, 42;\n\tmov.u32 %%r3, 1;\n"
	"\tsetp.ne.u32 %%p1, %%r1, 0;\n\t@%%p1 bra $CONSUMER;\n"
	"\tst.global.u32 [%%rd1], %%r2;\n"
	"\t%s\n"
	"\tret;\n"
	"$CONSUMER:\n"
	"\t%s\n"
	"\tsetp.eq.u32 %%p2, %%r4, 0;\n\t@%%p2 bra $CONSUMER;\n"
	"\t%s\n"
	"\tld.global.u32 %%r5, [%%rd1];\n\tst.global.u32 [%%rd3], %%r5;\n"
	"\tret;\n}\n";

/* Runs the producer/consumer pair; returns the group status, *out the
 * consumer's value. */
static int
run_pc_roles(TestCtx *t, const char *rel, const char *acq, const char *after,
	     unsigned flags, bool swap, uint32_t *out, char *msg, size_t cap)
{
	char ptx[4096];
	snprintf(ptx, sizeof(ptx), pc_ptx, rel, acq, after);
	ptem_group *g = ptem_group_new(2);
	uint64_t data, flag, o;
	for (unsigned d = 0; d < 2; d++)
		CHECK_INT(ptem_load(ptem_group_device(g, d), ptx, strlen(ptx)),
			  PT_OK);
	/* swap: device 1 produces, device 0 (scheduled first) consumes */
	ptem *e0 = ptem_group_device(g, swap),
	     *e1 = ptem_group_device(g, !swap);
	CHECK_INT(ptem_alloc(e0, 4, &data), PT_OK);
	CHECK_INT(ptem_alloc(e0, 4, &flag), PT_OK);
	CHECK_INT(ptem_alloc(e1, 4, &o), PT_OK);
	uint32_t role[2] = {swap, !swap};
	ptem_arg a0[] = {{&data, 8}, {&flag, 8}, {&o, 8}, {&role[0], 4}};
	ptem_arg a1[] = {{&data, 8}, {&flag, 8}, {&o, 8}, {&role[1], 4}};
	ptem_launch l = {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 0, flags, 0};
	ptem_device_launch ls[2] = {{"pc", l, a0, 4}, {"pc", l, a1, 4}};
	int st = ptem_group_run(g, ls, 2);
	snprintf(msg, cap, "%s", ptem_group_errmsg(g));
	memcpy(out, ptem_host(e1, o, 4), 4);
	ptem_group_free(g);
	return st;
}

static int
run_pc(TestCtx *t, const char *rel, const char *acq, const char *after,
       unsigned flags, uint32_t *out, char *msg, size_t cap)
{
	return run_pc_roles(t, rel, acq, after, flags, false, out, msg, cap);
}

TEST(emu_mgpu_ordering_forms)
{
	/* the flag store, the flag read, what follows the read; whether
	 * the PTX memory model (ISA "Memory Consistency Model") orders the
	 * data write before the data read across the two devices */
	static const struct {
		const char *rel, *acq, *after;
		int ok;
	} cases[] = {
		{"st.release.sys.global.u32 [%rd2], %r3;",
		 "ld.acquire.sys.global.u32 %r4, [%rd2];", "", 1},
		{"st.release.sys.global.u32 [%rd2], %r3;",
		 "ld.relaxed.sys.global.u32 %r4, [%rd2];", "", 0},
		{"st.release.sys.global.u32 [%rd2], %r3;",
		 "ld.relaxed.sys.global.u32 %r4, [%rd2];", "fence.acq_rel.sys;",
		 1},
		{"st.release.sys.global.u32 [%rd2], %r3;",
		 "ld.relaxed.sys.global.u32 %r4, [%rd2];", "fence.sc.sys;", 1},
		/* a .gpu fence orders nothing across devices */
		{"st.release.sys.global.u32 [%rd2], %r3;",
		 "ld.relaxed.sys.global.u32 %r4, [%rd2];", "fence.acq_rel.gpu;",
		 0},
		{"fence.acq_rel.sys; st.relaxed.sys.global.u32 [%rd2], %r3;",
		 "ld.acquire.sys.global.u32 %r4, [%rd2];", "", 1},
		{"st.relaxed.sys.global.u32 [%rd2], %r3;",
		 "ld.acquire.sys.global.u32 %r4, [%rd2];", "", 0},
		/* .gpu scope does not reach the other device */
		{"st.release.gpu.global.u32 [%rd2], %r3;",
		 "ld.acquire.gpu.global.u32 %r4, [%rd2];", "", 0},
		{"red.release.sys.global.add.u32 [%rd2], %r3;",
		 "atom.acquire.sys.global.or.b32 %r4, [%rd2], 0;", "", 1},
		{"atom.release.sys.global.exch.b32 %r6, [%rd2], %r3;",
		 "ld.acquire.sys.global.u32 %r4, [%rd2];", "", 1},
		{"atom.acq_rel.sys.global.add.u32 %r6, [%rd2], %r3;",
		 "atom.acq_rel.sys.global.add.u32 %r4, [%rd2], 0;", "", 1},
		/* a relaxed .gpu atomic: no release */
		{"atom.global.add.u32 %r6, [%rd2], %r3;",
		 "ld.acquire.sys.global.u32 %r4, [%rd2];", "", 0},
		/* the legacy spelling: membar.sys + volatile (relaxed .sys) */
		{"membar.sys; st.volatile.global.u32 [%rd2], %r3;",
		 "ld.volatile.global.u32 %r4, [%rd2];", "membar.sys;", 1},
		/* a weak read of the flag races with the flag store itself */
		{"st.release.sys.global.u32 [%rd2], %r3;",
		 "ld.global.u32 %r4, [%rd2];", "", 0},
		/* data written after the release is not covered by it */
		{"st.release.sys.global.u32 [%rd2], %r3; st.global.u32 [%rd1], "
		 "%r2;",
		 "ld.acquire.sys.global.u32 %r4, [%rd2];", "", 0},
	};
	for (size_t i = 0; i < countof(cases); i++) {
		uint32_t v = 0;
		char msg[1300];
		int st = run_pc(t, cases[i].rel, cases[i].acq, cases[i].after,
				PTEM_CHECK_ORDER, &v, msg, sizeof(msg));
		if (cases[i].ok) {
			if (st != PT_OK)
				test_fail(t, __FILE__, __LINE__, "case %zu: %s",
					  i, msg);
			CHECK_INT(v, 42);
		} else {
			if (st != PT_E_EMU_ORDER)
				test_fail(t, __FILE__, __LINE__,
					  "case %zu: status %d (%s)", i, st,
					  msg);
			CHECK(strstr(msg, "device 1: CTA (0,0,0) thread "
					  "(0,0,0), PTX line") == msg);
			CHECK(strstr(msg, "cross-device race: device 1 reads "
					  "byte") != NULL);
		}
	}
	/* both lines named (counted in pc_ptx): the read (25), the
	 * producer's data store (17), and the relaxed flag read (21) */
	uint32_t v;
	char msg[1300];
	CHECK_INT(run_pc(t, cases[1].rel, cases[1].acq, "", PTEM_CHECK_ORDER,
			 &v, msg, sizeof(msg)),
		  PT_E_EMU_ORDER);
	CHECK(strstr(msg, "PTX line 25 (ld.global.u32): cross-device race") !=
	      NULL);
	CHECK(strstr(msg, "device 0 wrote at PTX line 17 (st.global.u32)") !=
	      NULL);
	CHECK(strstr(msg, "release at PTX line 21 (ld.relaxed.sys.global.u32) "
			  "was relaxed") != NULL);
	/* the consumer spins on the peer's flag before it is written: a
	 * strong .sys read of the launch contents is no race, and once it
	 * sees the release the data read is ordered; a weak read is */
	CHECK_INT(run_pc_roles(t, cases[0].rel, cases[0].acq, "",
			       PTEM_CHECK_ORDER, true, &v, msg, sizeof(msg)),
		  PT_OK);
	CHECK_INT(v, 42);
	CHECK_INT(run_pc_roles(t, cases[0].rel, "ld.global.u32 %r4, [%rd2];",
			       "", PTEM_CHECK_ORDER, true, &v, msg,
			       sizeof(msg)),
		  PT_E_EMU_ORDER);
	CHECK(strstr(msg, "device 0: CTA (0,0,0) thread (0,0,0), PTX line 21 "
			  "(ld.global.u32): cross-device race: device 0 reads "
			  "byte") == msg);
	CHECK(strstr(msg, "which device 1 holds from before the launch") !=
	      NULL);
	/* the check is opt-in: the same run without it completes */
	CHECK_INT(run_pc(t, cases[1].rel, cases[1].acq, "", 0, &v, msg,
			 sizeof(msg)),
		  PT_OK);
	CHECK_INT(v, 42);
}

TEST(emu_mgpu_livelock)
{
	/* the producer never sets the flag: the consumer spins forever */
	uint32_t v;
	char msg[1300];
	CHECK_INT(run_pc(t, "", "ld.acquire.sys.global.u32 %r4, [%rd2];", "", 0,
			 &v, msg, sizeof(msg)),
		  PT_E_EMU_LIVELOCK);
	CHECK(strstr(msg, "device 1: CTA (0,0,0) thread (0,0,0), PTX line") ==
	      msg);
	CHECK(strstr(msg, "livelock") != NULL);
	/* a spin the other device ends is not one */
	CHECK_INT(run_pc(t, "st.release.sys.global.u32 [%rd2], %r3;",
			 "ld.acquire.sys.global.u32 %r4, [%rd2];", "", 0, &v,
			 msg, sizeof(msg)),
		  PT_OK);
	CHECK_INT(v, 42);
}

/* ---- scripts on several devices ---- */

typedef struct Compiled {
	Arena a;
	const char *ptx;
	RtMeta meta;
	int status;
} Compiled;

/* Compiles the script at path for target, with every `from` in its text
 * replaced by `to` first (a variant), into c. */
static int
compile_variant(TestCtx *t, Compiled *c, const char *path, const char *from,
		const char *to, const char *target)
{
	memset(c, 0, sizeof(*c));
	arena_init(&c->a, NULL);
	size_t len = 0;
	char *text = read_file(&c->a, path, &len);
	if (!text) {
		test_fail(t, __FILE__, __LINE__, "cannot read %s", path);
		return c->status = PT_E_NOMEM;
	}
	if (from) {
		/* each replacement is the same length or shorter */
		size_t fl = strlen(from), tl = strlen(to);
		char *out = NEWN(&c->a, char, len + 1), *w = out;
		for (const char *s = text; *s;) {
			if (!strncmp(s, from, fl)) {
				memcpy(w, to, tl);
				w += tl;
				s += fl;
			} else {
				*w++ = *s++;
			}
		}
		*w = 0;
		text = out;
	}
	pt_ctx *ctx = pt_ctx_new(NULL);
	pt_module *m = NULL;
	const char *ptx = NULL, *meta = NULL;
	int st = pt_load(ctx, path, text, strlen(text), &m);
	if (!st)
		st = pt_compile(ctx, m, target, &ptx, &meta);
	RtStatus rs;
	if (!st) {
		c->ptx = arena_strdup(&c->a, ptx);
		st = meta_parse(&c->a, meta, strlen(meta), &c->meta, &rs);
	}
	if (st)
		test_fail(t, __FILE__, __LINE__, "%s: compile failed (%d)",
			  path, st);
	pt_ctx_free(ctx);
	return c->status = st;
}

static const RtKernelMeta *
kernel_meta(const Compiled *c, const char *name)
{
	for (size_t i = 0; i < c->meta.nkernels; i++)
		if (!strcmp(c->meta.kernels[i].name, name))
			return &c->meta.kernels[i];
	return NULL;
}

/* Plans device d's launch of k with args through the runtime's planner
 * (as a GPU launch would) into ls. */
static int
plan_device(TestCtx *t, Arena *a, const RtKernelMeta *k, const ptrt_arg *args,
	    size_t nargs, unsigned flags, ptem_device_launch *ls)
{
	LaunchPlan plan;
	RtStatus rs;
	int st = launch_plan(a, k, args, nargs, &plan, &rs);
	if (st) {
		test_fail(t, __FILE__, __LINE__, "plan: %s", rs.msg);
		return st;
	}
	ptem_arg *pa = NEWN(a, ptem_arg, k->nparams + 1);
	for (size_t i = 0; i < k->nparams; i++) {
		const RtParam *q = &k->params[i];
		pa[i].data = plan.params[i];
		pa[i].size = q->kind == RP_TENSOR ? 8
			     : q->kind == RP_TMA  ? 128
						 : (size_t)dtype_size(q->dtype);
		if (q->kind == RP_TMA) {
			uint8_t *map = NEWN(a, uint8_t, 128);
			emu_tensormap_from_plan(&plan.tma[i], map);
			pa[i].data = map;
		}
	}
	ls->kernel = k->name;
	ls->launch = (ptem_launch){
		{plan.grid[0], plan.grid[1], plan.grid[2]},
		{plan.block[0], plan.block[1], plan.block[2]},
		{plan.cluster[0], plan.cluster[1], plan.cluster[2]},
		plan.smem,
		flags,
		0};
	ls->args = pa;
	ls->nargs = k->nparams;
	return PT_OK;
}

static uint64_t
put(ptem *e, const void *data, size_t bytes)
{
	uint64_t a = 0;
	if (ptem_alloc(e, bytes, &a) == PT_OK && data)
		memcpy(ptem_host(e, a, bytes), data, bytes);
	return a;
}

static float
bf16_to_f32(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* round to nearest even (finite inputs) */
static uint16_t
f32_to_bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* A value of varied magnitude, so the order of a sum shows in its bits. */
static float
ar_value(unsigned r, unsigned i, unsigned epoch)
{
	uint32_t h = (i * 2654435761u) ^ (r * 40503u + epoch * 977u);
	h ^= h >> 15;
	h *= 2246822519u;
	h ^= h >> 13;
	/* a 23-bit mantissa times 2^-20 .. 2^11 */
	float m = (float)((int)(h & 0x7fffffu) - 0x400000);
	return ldexpf(m, (int)(h >> 27) - 20);
}

enum { AR_PAD_WORDS = 2 * 32 * 8 };

/* One-shot all-reduce on `world` devices, two calls (epochs 1, 2) on
 * the same buffers and pads; the results are checked bit for bit against
 * the host's fixed-order sums.  Returns the first failing status (the
 * message in msg), or PT_OK. */
static int
allreduce_run(TestCtx *t, const Compiled *c, const char *kernel, bool bf16,
	      unsigned world, unsigned n, char *msg, size_t cap)
{
	ptem_group *g = ptem_group_new(world);
	Arena a;
	arena_init(&a, NULL);
	const RtKernelMeta *k = kernel_meta(c, kernel);
	size_t es = bf16 ? 2 : 4;
	/* per device: out, inp, its signal pad; and its two pointer tables
	 * (every device's input, every device's pad) */
	uint64_t out[8], inp[8], pad[8], intab[8], padtab[8];
	uint64_t ins[8] = {0}, pads[8] = {0};
	for (unsigned d = 0; d < world; d++) {
		ptem *e = ptem_group_device(g, d);
		CHECK_INT(ptem_load(e, c->ptx, strlen(c->ptx)), PT_OK);
		out[d] = put(e, NULL, n * es);
		inp[d] = put(e, NULL, n * es);
		pad[d] = put(e, NULL, AR_PAD_WORDS * 4);
		ins[d] = inp[d];
		pads[d] = pad[d];
	}
	for (unsigned d = 0; d < world; d++) {
		intab[d] = put(ptem_group_device(g, d), ins, sizeof(ins));
		padtab[d] = put(ptem_group_device(g, d), pads, sizeof(pads));
	}
	int st = PT_OK;
	float *want = NEWN(&a, float, n);
	for (unsigned epoch = 1; epoch <= 2 && !st; epoch++) {
		for (unsigned d = 0; d < world; d++) {
			uint8_t *x = ptem_host(ptem_group_device(g, d), inp[d],
					       n * es);
			for (unsigned i = 0; i < n; i++) {
				float v = ar_value(d, i, epoch);
				if (bf16) {
					uint16_t b = f32_to_bf16(v);
					memcpy(x + 2 * i, &b, 2);
				} else {
					memcpy(x + 4 * i, &v, 4);
				}
			}
		}
		/* the fixed-order sum: X_0 + X_1 + ... in float32 */
		for (unsigned i = 0; i < n; i++) {
			volatile float s = 0;
			for (unsigned r = 0; r < world; r++) {
				float v = ar_value(r, i, epoch);
				if (bf16)
					v = bf16_to_f32(f32_to_bf16(v));
				s = r ? s + v : v;
			}
			want[i] = s;
		}
		ptem_device_launch ls[8];
		for (unsigned d = 0; d < world && !st; d++) {
			ptrt_arg args[] = {
				ptrt_arg_tensor(out[d],
						bf16 ? PTRT_BFLOAT16
						     : PTRT_FLOAT32,
						1, (int64_t[]){n}, NULL),
				ptrt_arg_tensor(inp[d],
						bf16 ? PTRT_BFLOAT16
						     : PTRT_FLOAT32,
						1, (int64_t[]){n}, NULL),
				ptrt_arg_tensor(intab[d], PTRT_UINT64, 1,
						(int64_t[]){8}, NULL),
				ptrt_arg_tensor(padtab[d], PTRT_UINT64, 1,
						(int64_t[]){8}, NULL),
				ptrt_arg_i32((int32_t)d),
				ptrt_arg_i32((int32_t)world),
				ptrt_arg_u32(epoch)};
			st = plan_device(t, &a, k, args, countof(args),
					 PTEM_CHECK_ORDER, &ls[d]);
		}
		if (!st)
			st = ptem_group_run(g, ls, world);
		snprintf(msg, cap, "%s", ptem_group_errmsg(g));
		for (unsigned d = 0; d < world && !st; d++) {
			const uint8_t *o = ptem_host(ptem_group_device(g, d),
						     out[d], n * es);
			unsigned bad = 0;
			for (unsigned i = 0; i < n; i++) {
				if (bf16) {
					uint16_t b, w = f32_to_bf16(want[i]);
					memcpy(&b, o + 2 * i, 2);
					bad += b != w;
				} else {
					bad += memcmp(o + 4 * i, &want[i], 4) !=
					       0;
				}
			}
			if (bad)
				test_fail(
					t, __FILE__, __LINE__,
					"%s world %u epoch %u device %u: %u of "
					"%u sums differ",
					kernel, world, epoch, d, bad, n);
		}
	}
	arena_free(&a);
	ptem_group_free(g);
	return st;
}

TEST(emu_script_allreduce_oneshot_mgpu)
{
	Compiled c;
	if (compile_variant(t, &c, "examples/allreduce_oneshot.py", NULL, NULL,
			    "sm_90a") == PT_OK) {
		char msg[1300];
		static const unsigned worlds[] = {2, 4};
		for (size_t w = 0; w < 2; w++) {
			int st = allreduce_run(t, &c, "allreduce_f32", false,
					       worlds[w], 1000, msg,
					       sizeof(msg));
			if (st)
				test_fail(t, __FILE__, __LINE__, "f32: %s",
					  msg);
			st = allreduce_run(t, &c, "allreduce_bf16", true,
					   worlds[w], 777, msg, sizeof(msg));
			if (st)
				test_fail(t, __FILE__, __LINE__, "bf16: %s",
					  msg);
		}
	}
	arena_free(&c.a);
}

TEST(emu_mgpu_allreduce_relaxed_is_reported)
{
	/* the acquire of the flag spin replaced by a relaxed load: the
	 * reads of peer inputs are no longer ordered after the peers'
	 * release */
	Compiled c;
	if (compile_variant(t, &c, "examples/allreduce_oneshot.py",
			    "ld.acquire.sys", "ld.relaxed.sys",
			    "sm_90a") == PT_OK) {
		char msg[1300];
		int st = allreduce_run(t, &c, "allreduce_f32", false, 2, 300,
				       msg, sizeof(msg));
		CHECK_INT(st, PT_E_EMU_ORDER);
		CHECK(strstr(msg, "cross-device race: device") != NULL);
		CHECK(strstr(msg, "(ld.global.f32)") != NULL);
		CHECK(strstr(msg, "holds from before the launch") != NULL);
		CHECK(strstr(msg, "(ld.relaxed.sys.global.u32) was relaxed") !=
		      NULL);
	}
	arena_free(&c.a);
}

/* All-gather + GEMM on `world` devices: A shard s (Ms x K) on device s,
 * B_d (N x K) on device d; every device's C (world*Ms x N) is checked
 * against the host's product.  Values are multiples of 1/8 in [-2, 2),
 * so every product and float32 partial sum is exact and C is the bf16
 * rounding (nearest even) of the exact sum. */
static float
ag_value(unsigned s, unsigned i, unsigned k, unsigned salt)
{
	uint32_t h = (s * 73856093u) ^ (i * 19349663u) ^ (k * 83492791u) ^ salt;
	h ^= h >> 13;
	h *= 2654435761u;
	return (float)((int)(h >> 27) - 16) / 8.0f;
}

static int
allgather_gemm_run(TestCtx *t, const Compiled *c, unsigned world, unsigned Ms,
		   unsigned K, unsigned N, unsigned sms, char *msg, size_t cap)
{
	ptem_group *g = ptem_group_new(world);
	Arena a;
	arena_init(&a, NULL);
	const RtKernelMeta *k = kernel_meta(c, "allgather_gemm");
	unsigned M = world * Ms;
	uint64_t ash[8] = {0}, b[8], cc[8], pad[8], pads[8] = {0}, maps[8],
		 padtab[8];
	/* host staging for one shard of A or one B */
	uint16_t *hb = NEWN(&a, uint16_t, (size_t)(Ms > N ? Ms : N) * K);
	for (unsigned d = 0; d < world; d++) {
		ptem *e = ptem_group_device(g, d);
		CHECK_INT(ptem_load(e, c->ptx, strlen(c->ptx)), PT_OK);
		for (unsigned i = 0; i < Ms; i++)
			for (unsigned kk = 0; kk < K; kk++)
				hb[i * K + kk] =
					f32_to_bf16(ag_value(d, i, kk, 1));
		ash[d] = put(e, hb, (size_t)Ms * K * 2);
		for (unsigned j = 0; j < N; j++)
			for (unsigned kk = 0; kk < K; kk++)
				hb[j * K + kk] =
					f32_to_bf16(ag_value(d, j, kk, 2));
		b[d] = put(e, hb, (size_t)N * K * 2);
		cc[d] = put(e, NULL, (size_t)M * N * 2);
		pad[d] = put(e, NULL, 24 * 4);
		pads[d] = pad[d];
	}
	/* every device's table of the shards' maps (over peer memory) */
	uint8_t tab[8][128];
	memset(tab, 0, sizeof(tab));
	for (unsigned s = 0; s < world; s++) {
		ptem_tma_desc td = {.format = 9 /* BFLOAT16 */,
				    .rank = 2,
				    .addr = ash[s],
				    .dims = {K, Ms},
				    .strides = {(uint64_t)K * 2},
				    .box = {64, 128},
				    .elem_strides = {1, 1},
				    .swizzle = 3 /* 128B */};
		CHECK_INT(ptem_tensormap_encode(&td, tab[s]), PT_OK);
	}
	for (unsigned d = 0; d < world; d++) {
		maps[d] = put(ptem_group_device(g, d), tab, sizeof(tab));
		padtab[d] = put(ptem_group_device(g, d), pads, sizeof(pads));
	}
	ptem_device_launch ls[8];
	int st = PT_OK;
	for (unsigned d = 0; d < world && !st; d++) {
		ptrt_arg args[] = {ptrt_arg_tensor(maps[d], PTRT_UINT8, 2,
						   (int64_t[]){8, 128}, NULL),
				   ptrt_arg_tensor(b[d], PTRT_BFLOAT16, 2,
						   (int64_t[]){N, K}, NULL),
				   ptrt_arg_tensor(cc[d], PTRT_BFLOAT16, 2,
						   (int64_t[]){M, N}, NULL),
				   ptrt_arg_tensor(padtab[d], PTRT_UINT64, 1,
						   (int64_t[]){8}, NULL),
				   ptrt_arg_i32((int32_t)d),
				   ptrt_arg_i32((int32_t)world),
				   ptrt_arg_i32((int32_t)Ms),
				   ptrt_arg_i32((int32_t)sms),
				   ptrt_arg_u32(1)};
		st = plan_device(t, &a, k, args, countof(args),
				 PTEM_CHECK_ORDER, &ls[d]);
	}
	if (!st)
		st = ptem_group_run(g, ls, world);
	snprintf(msg, cap, "%s", ptem_group_errmsg(g));
	for (unsigned d = 0; d < world && !st; d++) {
		const uint16_t *o = ptem_host(ptem_group_device(g, d), cc[d],
					      (size_t)M * N * 2);
		unsigned bad = 0;
		for (unsigned row = 0; row < M; row++)
			for (unsigned j = 0; j < N; j++) {
				double sum = 0;
				unsigned s = row / Ms, i = row % Ms;
				for (unsigned kk = 0; kk < K; kk++)
					sum += (double)ag_value(s, i, kk, 1) *
					       ag_value(d, j, kk, 2);
				bad += o[(size_t)row * N + j] !=
				       f32_to_bf16((float)sum);
			}
		if (bad)
			test_fail(t, __FILE__, __LINE__,
				  "world %u device %u: %u of %u elements of C "
				  "differ",
				  world, d, bad, M * N);
	}
	arena_free(&a);
	ptem_group_free(g);
	return st;
}

TEST(emu_script_allgather_gemm_mgpu)
{
	Compiled c;
	if (compile_variant(t, &c, "examples/allgather_gemm.py", NULL, NULL,
			    "sm_90a") == PT_OK) {
		char msg[1300];
		/* 2 devices: 2 k-tiles, ragged N; 4 devices with 2 CTAs each
		 * (the last-CTA done round) and a shard of 72 rows */
		if (allgather_gemm_run(t, &c, 2, 64, 128, 40, 1, msg,
				       sizeof(msg)))
			test_fail(t, __FILE__, __LINE__, "%s", msg);
		if (allgather_gemm_run(t, &c, 4, 72, 64, 24, 2, msg,
				       sizeof(msg)))
			test_fail(t, __FILE__, __LINE__, "%s", msg);
	}
	arena_free(&c.a);
}

TEST(emu_mgpu_allgather_gemm_relaxed_is_reported)
{
	/* the producer's flag acquire replaced by a relaxed load: its TMA
	 * read of a peer's shard is not ordered after the peer's release */
	Compiled c;
	if (compile_variant(t, &c, "examples/allgather_gemm.py",
			    "ld.acquire.sys", "ld.relaxed.sys",
			    "sm_90a") == PT_OK) {
		char msg[1300];
		CHECK_INT(allgather_gemm_run(t, &c, 2, 64, 64, 16, 1, msg,
					     sizeof(msg)),
			  PT_E_EMU_ORDER);
		CHECK(strstr(msg, "(cp.async.bulk.tensor.2d.shared::cta.global."
				  "tile.mbarrier::complete_tx::bytes): "
				  "cross-device race") != NULL);
		CHECK(strstr(msg, "holds from before the launch") != NULL);
	}
	arena_free(&c.a);
}
