/*
 * builtin.c - builtin calls: thread and CTA ids, synchronisation helpers
 * and the scalar math functions.
 *
 * Ids read special registers (%tid, %ctaid, %cluster_ctaid, %laneid);
 * warp_id is the linear thread index (x fastest) divided by 32.  Sync
 * helpers: cta_sync = bar.sync 0, warp_sync = bar.warp.sync -1,
 * cluster_sync = barrier.cluster arrive+wait (aligned), elect_sync =
 * elect.sync over the full warp, mbarrier_wait = a try_wait.parity loop
 * (test_wait.parity where the target has no try_wait).  Which targets
 * have an instruction or special register, and from which PTX version,
 * comes from its form row (src/ptx/forms_*.def, sregs.def); a target
 * without it is PT_E_CODEGEN_TARGET.  The gated instructions' rows
 * (builtin_forms.def) are selected by the checker and carried by the
 * call node (Expr.u.call.forms); this file prints them and never
 * selects (a node without them is E3010).  bar.sync and bar.warp.sync
 * exist on every target at every version we emit.
 *
 * Math runs in float32 for float16/bfloat16/float32: exp(x) =
 * ex2.approx(x * log2 e), log(x) = lg2.approx(x) * ln 2, sigmoid(x) =
 * 1 / (1 + exp(-x)); sqrt is sqrt.rn, rsqrt and tanh are approx.
 */
#include <stdio.h>
#include <string.h>

#include "codegen/codegen.h"

#define LOG2E 1.4426950408889634
#define LN2 0.6931471805599453

/* Whether the target has what the builtin needs (gate), recording the
 * PTX version it needs. */
static bool
gate_ok(Gen *g, const Expr *e, PtxGate gate, int min_ptx)
{
	if (!ptx_gate_allows(gate, g->c->target)) {
		gen_error(g, PT_E_CODEGEN_TARGET, e->span, "%s needs %s or newer",
			  builtin_spelling(e->u.call.id),
			  ptx_gate_min_target(gate));
		return false;
	}
	gen_need_ptx(g, min_ptx);
	return true;
}

/* Form i of the builtin's instructions, selected by the checker
 * (ir_select_builtin): codegen only prints, so a node without its
 * selection is an internal error, never selected here. */
static const PtxInst *
form_of(Gen *g, const Expr *e, int i)
{
	if (e->u.call.forms && e->u.call.forms[i])
		return e->u.call.forms[i];
	if (!g->c->nerrors)
		diag_error(g->c, PT_E_PTX_UNSELECTED, e->span,
			   "internal error: %s reached code generation without "
			   "its selected form",
			   builtin_spelling(e->u.call.id));
	return NULL;
}

/* Form i, when the target has it (reported otherwise). */
static const PtxInst *
form_ok(Gen *g, const Expr *e, int i)
{
	const PtxInst *in = form_of(g, e, i);
	return in && gate_ok(g, e, in->gate, in->min_ptx) ? in : NULL;
}

static char
axis_char(Gen *g, const Expr *e)
{
	const Expr *a = e->u.call.args.n ? e->u.call.args.v[0] : NULL;
	if (a && a->kind == EX_STR && a->u.str[0] >= 'x' &&
	    a->u.str[0] <= 'z' && !a->u.str[1])
		return a->u.str[0];
	gen_error(g, PT_E_INTERNAL, e->span, "thread axis must be x, y or z");
	return 'x';
}

static Val
special(Gen *g, const char *reg)
{
	Val d = gen_reg(g, DT_INT32);
	gen_emit(g, "mov.u32 %s, %s;", d.s, reg);
	return d;
}

/* Special register r on the builtin's axis (%tid.x), gated by its row. */
static Val
special_axis(Gen *g, const Expr *e, PtxSreg r)
{
	const PtxSregRow *row = ptx_sreg(r);
	if (!gate_ok(g, e, row->gate, row->min_ptx))
		return val_int(g, 0, DT_INT32);
	/* "%tid.x": no printf, the builtin is read once per thread index */
	char buf[24];
	const char *name = row->name;
	size_t n = strlen(name);
	PT_ASSERT(n + 3 <= sizeof buf);
	memcpy(buf, name, n);
	buf[n] = '.';
	buf[n + 1] = axis_char(g, e);
	buf[n + 2] = 0;
	return special(g, buf);
}

static bool
block_is_1d(const Func *f)
{
	for (int i = 1; i < f->launch.nblock; i++) {
		int64_t v;
		if (!ir_const_int(f->launch.block[i], &v) || v != 1)
			return false;
	}
	return true;
}

static Val
warp_id(Gen *g)
{
	Val lin = special(g, "%tid.x");
	if (!block_is_1d(g->f)) {
		Val y = special(g, "%tid.y"), z = special(g, "%tid.z");
		Val ny = special(g, "%ntid.y"), nx = special(g, "%ntid.x");
		gen_emit(g, "mad.lo.s32 %s, %s, %s, %s;", z.s, z.s, ny.s, y.s);
		gen_emit(g, "mad.lo.s32 %s, %s, %s, %s;", lin.s, z.s, nx.s,
			 lin.s);
	}
	Val d = gen_reg(g, DT_INT32);
	gen_emit(g, "shr.u32 %s, %s, 5;", d.s, lin.s);
	return d;
}

static void
mbarrier_wait(Gen *g, const Expr *e)
{
	const Expr *pe = e->u.call.args.v[0];
	const char *addr;
	if (pe->kind == EX_PTR_TO) {
		bool wide = false;
		addr = gen_ptr_to(g, pe, "shared", &wide);
	} else {
		addr = gen_in_reg(g, gen_expr(g, pe)).s;
	}
	Val ph = gen_convert(g, gen_expr(g, e->u.call.args.v[1]), DT_UINT32,
			     e->span);
	if (ph.imm && ph.i != 0 && ph.i != 1) { /* ptxas: 0 or 1 */
		gen_error(g, PT_E_CODEGEN_NOT_CONSTANT, e->span,
			  "mbarrier_wait phase parity is %lld; a constant "
			  "parity is 0 or 1", (long long)ph.i);
		return;
	}
	Val p = gen_reg(g, DT_BOOL);
	int l = gen_label(g);
	gen_place_label(g, l);
	/* try_wait, or test_wait where the target has none (the
	 * checker's pick) */
	const PtxInst *in = form_of(g, e, 0);
	if (!in)
		return;
	gen_need_ptx(g, in->min_ptx);
	gen_emit(g, "%s %s, [%s], %s;", in->spelling, p.s, addr, ph.s);
	gen_emit(g, "@!%s bra $L%d;", p.s, l);
}

static Val
thread_idx(Gen *g, const Expr *e)
{
	return special_axis(g, e, PTXR_TID);
}

static Val
block_idx(Gen *g, const Expr *e)
{
	return special_axis(g, e, PTXR_CTAID);
}

static Val
cluster_cta_id(Gen *g, const Expr *e)
{
	return special_axis(g, e, PTXR_CLUSTER_CTAID);
}

static Val
lane_id(Gen *g, const Expr *e)
{
	return special(g, ptx_sreg(PTXR_LANEID)->name);
}

static Val
warp_id_builtin(Gen *g, const Expr *e)
{
	return warp_id(g);
}

static Val
cta_sync(Gen *g, const Expr *e)
{
	gen_emit(g, "bar.sync 0;");
	return val_int(g, 0, DT_INT32);
}

static Val
warp_sync(Gen *g, const Expr *e)
{
	gen_emit(g, "bar.warp.sync -1;");
	return val_int(g, 0, DT_INT32);
}

/* barrier.cluster.arrive.aligned, then barrier.cluster.wait.aligned */
static Val
cluster_sync(Gen *g, const Expr *e)
{
	const PtxInst *arrive = form_ok(g, e, 0);
	const PtxInst *wait = arrive ? form_ok(g, e, 1) : NULL;
	if (wait) {
		gen_emit(g, "%s;", arrive->spelling);
		gen_emit(g, "%s;", wait->spelling);
	}
	return val_int(g, 0, DT_INT32);
}

static Val
elect_sync(Gen *g, const Expr *e)
{
	const PtxInst *in = form_ok(g, e, 0);
	if (!in)
		return val_int(g, 0, DT_INT32);
	Val p = gen_reg(g, DT_BOOL);
	gen_emit(g, "%s _|%s, -1;", in->spelling, p.s);
	return p;
}

static Val
mbarrier_wait_builtin(Gen *g, const Expr *e)
{
	mbarrier_wait(g, e);
	return val_int(g, 0, DT_INT32);
}

static Val
unop(Gen *g, const char *op, Val a)
{
	Val d = gen_reg(g, a.dt);
	gen_emit(g, "%s %s, %s;", op, d.s, gen_in_reg(g, a).s);
	return d;
}

static Val
binop(Gen *g, const char *op, Val a, Val b)
{
	Val d = gen_reg(g, a.dt);
	gen_emit(g, "%s %s, %s, %s;", op, d.s, gen_in_reg(g, a).s, b.s);
	return d;
}

static Val
f32_exp2(Gen *g, Val x)
{
	return unop(g, "ex2.approx.ftz.f32", x);
}

/* One float32 transcendental; x is already float32. */
static Val
f32_math(Gen *g, Builtin id, Val x)
{
	switch (id) {
	case BI_EXP:
		return f32_exp2(g, binop(g, "mul.f32", x,
					 val_float(g, LOG2E, DT_FLOAT32)));
	case BI_EXP2: return f32_exp2(g, x);
	case BI_LOG:
		return binop(g, "mul.f32", unop(g, "lg2.approx.ftz.f32", x),
			     val_float(g, LN2, DT_FLOAT32));
	case BI_LOG2: return unop(g, "lg2.approx.ftz.f32", x);
	case BI_SQRT: return unop(g, "sqrt.rn.f32", x);
	case BI_RSQRT: return unop(g, "rsqrt.approx.ftz.f32", x);
	case BI_TANH: return unop(g, "tanh.approx.f32", x);
	default: { /* BI_SIGMOID */
		Val t = binop(g, "mul.f32", x,
			      val_float(g, -LOG2E, DT_FLOAT32));
		Val d = binop(g, "add.f32", f32_exp2(g, t),
			      val_float(g, 1.0, DT_FLOAT32));
		return unop(g, "rcp.rn.f32", d);
	}
	}
}

static Val
float_math(Gen *g, const Expr *e, Val x)
{
	Builtin id = e->u.call.id;
	DType t = e->dtype;
	if (t == DT_FLOAT64) {
		if (id == BI_SQRT)
			return unop(g, "sqrt.rn.f64", x);
		if (id == BI_RSQRT)
			return unop(g, "rsqrt.approx.f64", x);
		return gen_error(g, PT_E_CODEGEN_DTYPE, e->span,
				 "%s is not available for float64",
				 builtin_spelling(id));
	}
	x = gen_convert(g, x, DT_FLOAT32, e->span);
	return gen_convert(g, f32_math(g, id, x), t, e->span);
}

/* Integer or float min/max/abs/fma/ceildiv with the operand dtype t. */
static Val
arith_builtin(Gen *g, const Expr *e, Val *a)
{
	DType t = e->dtype;
	Builtin id = e->u.call.id;
	bool fl = dtype_is_float(t);
	DType w = fl ? (t == DT_FLOAT64 ? DT_FLOAT64 : DT_FLOAT32) : t;
	char s[8];
	if (fl) {
		snprintf(s, sizeof s, "%s", w == DT_FLOAT64 ? "f64" : "f32");
	} else {
		int bits = dtype_bits(t) < 16 ? 16 : dtype_bits(t);
		snprintf(s, sizeof s, "%c%d", dtype_is_signed(t) ? 's' : 'u',
			 bits);
	}
	int n = (int)e->u.call.args.n;
	for (int i = 0; i < n; i++) {
		a[i] = gen_convert(g, a[i], w, e->span);
		if (fl && a[i].imm)
			a[i] = val_float(g, a[i].f, w);
	}
	Val d;
	switch (id) {
	case BI_ABS:
		if (!fl && !dtype_is_signed(t))
			return a[0];
		d = unop(g, arena_printf(&g->c->arena, "abs.%s", s), a[0]);
		break;
	case BI_MIN:
	case BI_MAX:
		d = binop(g, arena_printf(&g->c->arena, "%s.%s",
					  id == BI_MIN ? "min" : "max", s),
			  a[0], a[1]);
		break;
	case BI_FMA:
		d = gen_reg(g, w);
		gen_emit(g, "%s.%s %s, %s, %s, %s;", fl ? "fma.rn" : "mad.lo",
			 s, d.s, gen_in_reg(g, a[0]).s, a[1].s, a[2].s);
		break;
	default: { /* ceildiv: floor((a + b - 1) / b) */
		if (fl)
			return gen_error(g, PT_E_CODEGEN_DTYPE, e->span,
					 "T.ceildiv needs integers");
		if (a[0].imm && a[1].imm && a[1].i != 0) {
			int64_t x = a[0].i + a[1].i - 1, y = a[1].i;
			int64_t q = x / y - ((x % y != 0) && ((x < 0) != (y < 0)));
			return val_int(g, dtype_is_signed(t) ? q
				       : (int64_t)((uint64_t)x / (uint64_t)y), t);
		}
		Val num = gen_iadd(g, a[0], gen_iadd(g, a[1],
						     val_int(g, -1, t)));
		d = gen_ibin(g, "div", num, a[1]);
		if (dtype_is_signed(t)) {
			/* floor correction when the signs differ */
			Val r = gen_ibin(g, "rem", num, a[1]);
			Val x = gen_ibin(g, "xor", r, a[1]);
			Val p1 = gen_reg(g, DT_BOOL), p2 = gen_reg(g, DT_BOOL);
			gen_emit(g, "setp.ne.%s %s, %s, 0;", s, p1.s, r.s);
			gen_emit(g, "setp.lt.%s %s, %s, 0;", s, p2.s, x.s);
			gen_emit(g, "and.pred %s, %s, %s;", p1.s, p1.s, p2.s);
			gen_emit(g, "@%s sub.%s %s, %s, 1;", p1.s, s, d.s, d.s);
		}
		return d;
	}
	}
	return fl ? gen_convert(g, d, t, e->span) : d;
}

/* ---- CUDA intrinsics: lowering coerced the arguments (builtins.def) ---- */

static Val
arg_reg(Gen *g, const Expr *e, int i)
{
	return gen_in_reg(g, gen_expr(g, e->u.call.args.v[i]));
}

/* __fdividef(x, y): div.approx.f32, as nvcc writes it */
static Val
fdividef(Gen *g, const Expr *e)
{
	Val x = arg_reg(g, e, 0);
	return binop(g, "div.approx.f32", x, arg_reg(g, e, 1));
}

/* T.isnan(x): x != x, setp.nan (float16/bfloat16 widened to float32
 * first: a NaN stays a NaN) */
static Val
isnan_builtin(Gen *g, const Expr *e)
{
	const Expr *x = e->u.call.args.v[0];
	DType t = x->dtype == DT_FLOAT64 ? DT_FLOAT64 : DT_FLOAT32;
	Val v = gen_in_reg(g, gen_convert(g, gen_expr(g, x), t, e->span));
	Val p = gen_reg(g, DT_BOOL);
	gen_emit(g, "setp.nan.%s %s, %s, %s;", dtype_ptx(t), p.s, v.s, v.s);
	return p;
}

/* __ffs(x) = 32 - clz(x & -x): x & -x keeps the lowest set bit (0 for
 * 0, whose clz is 32).  nvcc writes brev + bfind.shiftamt + add, the same
 * value; clz is used here because the emulator runs it already. */
static Val
ffs_u32(Gen *g, const Expr *e)
{
	Val x = arg_reg(g, e, 0);
	Val n = gen_reg(g, DT_INT32), c = gen_reg(g, DT_INT32);
	Val d = gen_reg(g, DT_INT32);
	gen_emit(g, "neg.s32 %s, %s;", n.s, x.s);
	gen_emit(g, "and.b32 %s, %s, %s;", n.s, x.s, n.s);
	gen_emit(g, "clz.b32 %s, %s;", c.s, n.s);
	gen_emit(g, "sub.s32 %s, 32, %s;", d.s, c.s);
	return d;
}

/* __reduce_add_sync / __reduce_min_sync(mask, x): redux.sync over the
 * lanes of mask (PTX order: value, then mask). */
static Val
reduce_sync(Gen *g, const Expr *e)
{
	const PtxInst *in = form_ok(g, e, 0);
	if (!in)
		return val_int(g, 0, DT_UINT32);
	Val m = gen_expr(g, e->u.call.args.v[0]);
	Val x = arg_reg(g, e, 1);
	Val d = gen_reg(g, DT_UINT32);
	gen_emit(g, "%s %s, %s, %s;", in->spelling, d.s, x.s, m.s);
	return d;
}

/* __float22bfloat162_rn(make_float2(x, y)): the pair {x, y}, x in the low
 * half; cvt's first source goes to the high half. */
static Val
float22bfloat162_rn(Gen *g, const Expr *e)
{
	Val x = arg_reg(g, e, 0), y = arg_reg(g, e, 1);
	Val d = gen_reg(g, DT_UINT32);
	gen_emit(g, "cvt.rn.bf16x2.f32 %s, %s, %s;", d.s, y.s, x.s);
	return d;
}

/* The emitter of each id, sync and CUDA intrinsic builtin; the others
 * are math (one float argument) or arithmetic (arith_builtin), named in
 * is_arith. */
static Val (*const id_sync[BI_COUNT])(Gen *, const Expr *) = {
	[BI_THREAD_IDX] = thread_idx,
	[BI_BLOCK_IDX] = block_idx,
	[BI_CLUSTER_CTA_ID] = cluster_cta_id,
	[BI_LANE_ID] = lane_id,
	[BI_WARP_ID] = warp_id_builtin,
	[BI_CTA_SYNC] = cta_sync,
	[BI_WARP_SYNC] = warp_sync,
	[BI_CLUSTER_SYNC] = cluster_sync,
	[BI_ELECT_SYNC] = elect_sync,
	[BI_MBARRIER_WAIT] = mbarrier_wait_builtin,
	[BI_PRINTF] = gen_printf,
	[BI_TRAP_WHEN_ASSERT_FAILED] = gen_trap_assert,
	[BI_FDIVIDEF] = fdividef,
	[BI_ISNAN] = isnan_builtin,
	[BI_FFS_U32] = ffs_u32,
	[BI_REDUCE_ADD_SYNC_U32] = reduce_sync,
	[BI_REDUCE_MIN_SYNC_U32] = reduce_sync,
	[BI_FLOAT22BFLOAT162_RN] = float22bfloat162_rn,
};

static bool
is_arith(Builtin id)
{
	switch (id) {
	case BI_ABS: case BI_MIN: case BI_MAX: case BI_FMA: case BI_CEILDIV:
		return true;
	default:
		return false;
	}
}

Val
gen_builtin(Gen *g, const Expr *e)
{
	Builtin id = e->u.call.id;
	if ((unsigned)id < BI_COUNT && id_sync[id])
		return id_sync[id](g, e);
	Val a[3];
	int n = (int)e->u.call.args.n;
	for (int i = 0; i < n && i < 3; i++)
		a[i] = gen_expr(g, e->u.call.args.v[i]);
	if (is_arith(id))
		return arith_builtin(g, e, a);
	if (!dtype_is_float(e->dtype))
		return gen_error(g, PT_E_CODEGEN_DTYPE, e->span,
				 "%s needs a float argument, not %s",
				 builtin_spelling(id), dtype_name(e->dtype));
	return float_math(g, e, gen_in_reg(g, gen_convert(g, a[0], e->dtype,
							 e->span)));
}
