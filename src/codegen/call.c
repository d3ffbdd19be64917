/*
 * call.c - raw PTX calls (EX_PTX): the generic instruction emitter.
 *
 * Input: the call's spelling, arguments, optional pred= and preserve_dst.
 * The form comes with the node: a raw call's with which arguments fill
 * which operand (Expr.u.ptx.sel, ptx_select's answer, recorded by the
 * checker); a lowering's instruction as the row its tile checker chose
 * (Expr.u.ptx.row), whose arguments are bound to operands here where
 * they are printed (ptx_bind: which optional operand is left out, how a
 * group spreads over arguments).  Nothing here selects a form.
 *
 * Lowering per operand kind:
 *   register in   the value converted to a register of the operand's
 *                 width and class (integer immediates stay immediates
 *                 where the form allows them); a ptr_to gives a generic
 *                 64-bit address, or a shared-window address for a
 *                 32-bit operand or a .shared form
 *   register out  an lvalue: a scalar variable's register, a register
 *                 array element, or a temporary stored back afterwards
 *   vector        a tuple (or consecutive scalars), printed {a, b, ...}
 *   address       ptr_to in the operand's state space, or a u32/u64
 *                 scalar (e.g. a shared::cluster address from mapa)
 *   tensor        a T.TensorMap parameter and its coordinates
 *   immediate     a compile-time constant
 * Output: "[@p ]spelling operands;" exactly as spelled.
 */
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "ptx/ptx.h"

/* The dtype whose register holds a PTX operand type. */
static DType
reg_dtype(PtxType t)
{
	const char *n = ptx_type_name(t);
	int bits = ptx_type_bits(t);
	if (!strcmp(n, "f32"))
		return DT_FLOAT32;
	if (!strcmp(n, "f64"))
		return DT_FLOAT64;
	if (n[0] == 's')
		return bits == 16 ? DT_INT16 : bits == 32 ? DT_INT32 : DT_INT64;
	return bits == 16 ? DT_UINT16 : bits == 32 ? DT_UINT32 : DT_UINT64;
}

/* True when a register of dtype t may stand for operand type pt
 * (PTX accepts any register of the same size for .bN operands). */
static bool
class_ok(DType t, PtxType pt)
{
	DType want = reg_dtype(pt);
	if (t == DT_BOOL || pt == PTY_PRED)
		return t == DT_BOOL && pt == PTY_PRED;
	if (rc_of(t) == rc_of(want) || rc_of(want) == RC_B16)
		return true;
	/* .b8-.b128 only: bf16 and bf16x2 also start with 'b' but are
	 * typed (ptxas refuses an f32 register for them) */
	const char *n = ptx_type_name(pt);
	return n[0] == 'b' && n[1] >= '0' && n[1] <= '9' &&
	       dtype_bits(t) == ptx_type_bits(pt);
}

/* A value in a register (or immediate) fitting operand type t. */
static Val
fit_reg(Gen *g, Val v, PtxType t, bool imm_ok, Span sp)
{
	DType want = reg_dtype(t);
	int bits = ptx_type_bits(t);
	if (v.imm && imm_ok && !dtype_is_float(v.dt) && !dtype_is_float(want))
		return v;
	if (v.imm)
		return gen_in_reg(g, gen_convert(g, v, want, sp));
	if (dtype_bits(v.dt) != bits && (dtype_bits(v.dt) > 8 || bits != 16)) {
		if (dtype_is_float(v.dt) || dtype_is_float(want))
			return gen_error(g, PT_E_CODEGEN_OPERAND_WIDTH, sp,
					 "%s value for a .%s operand",
					 dtype_name(v.dt), ptx_type_name(t));
		return gen_convert(g, v, want, sp);
	}
	if (class_ok(v.dt, t))
		return v;
	Val d = gen_reg(g, want);
	gen_emit(g, "mov.b%d %s, %s;", bits, d.s, v.s);
	return d;
}

/* An output operand: where the instruction writes, and what to do
 * after it (copy from a temporary). */
typedef struct OutFix {
	Val tmp;
	const Expr *dst;
	const Val *reg; /* destination register, or NULL for memory */
} OutFix;

typedef struct CallState {
	Gen *g;
	const Expr *e;
	const PtxInst *in;
	VEC(const char *) words;
	VEC(OutFix) fix;
} CallState;

static void
word(CallState *cs, const char *w)
{
	vec_push(&cs->g->c->arena, &cs->words, w);
}

/* A bit copy between registers of one width (any classes). */
static const char *
copy_op(DType t)
{
	switch (dtype_bits(t)) {
	case 1: return "mov.pred";
	case 16: return "mov.b16";
	case 32: return "mov.b32";
	default: return "mov.b64";
	}
}

static const char *
out_reg(CallState *cs, const Expr *a, PtxType pt)
{
	Gen *g = cs->g;
	DType want = pt == PTY_PRED ? DT_BOOL : reg_dtype(pt);
	const Val *dst = NULL;
	if (a->kind == EX_VAR) {
		dst = gen_var(g, a->u.var);
		if (!dst || dst->imm || a->u.var->kind != VK_LOCAL) {
			gen_error(g, PT_E_CODEGEN_NOT_LVALUE, a->span,
				  "'%s' cannot be written by an instruction",
				  a->u.var->name);
			return "_";
		}
	} else if (a->kind == EX_LOAD) {
		dst = gen_local_elem(g, a);
	} else {
		gen_error(g, PT_E_CODEGEN_NOT_LVALUE, a->span,
			  "output operand must be a variable or an element");
		return "_";
	}
	if (dst && dtype_bits(dst->dt) != dtype_bits(want) &&
	    !(dtype_bits(dst->dt) == 8 && dtype_bits(want) == 16)) {
		gen_error(g, PT_E_CODEGEN_OPERAND_WIDTH, a->span,
			  "%s destination for a %d-bit operand",
			  dtype_name(dst->dt), dtype_bits(want));
		return "_";
	}
	if (dst && class_ok(dst->dt, pt))
		return dst->s;
	/* a temporary of the operand's class, copied out afterwards */
	OutFix fx = {gen_reg(g, want), a, dst};
	vec_push(&g->c->arena, &cs->fix, fx);
	OutFix *f = &cs->fix.v[cs->fix.n - 1];
	if (cs->e->u.ptx.preserve_dst || cs->e->u.ptx.pred) {
		Val old = gen_expr(g, a);
		gen_emit(g, "%s %s, %s;", copy_op(want), f->tmp.s,
			 gen_in_reg(g, old).s);
	}
	return f->tmp.s;
}

static void
flush_outs(CallState *cs)
{
	Gen *g = cs->g;
	for (size_t i = 0; i < cs->fix.n; i++) {
		OutFix *f = &cs->fix.v[i];
		if (f->reg)
			gen_emit(g, "%s %s, %s;", copy_op(f->tmp.dt), f->reg->s,
				 f->tmp.s);
		else
			gen_store_val(g, f->dst, f->tmp);
	}
}

static const char *
space_word(PtxSpace s)
{
	switch (s) {
	case PSP_GENERIC: return "";
	case PSP_GLOBAL: return "global";
	case PSP_LOCAL: return "local";
	case PSP_PARAM: return "param";
	case PSP_CONST: return "const";
	case PSP_TMEM: return "tmem";
	default: return "shared";
	}
}

static const char *
in_reg(CallState *cs, const Expr *a, PtxType t, bool imm_ok)
{
	Gen *g = cs->g;
	if (a->kind == EX_PTR_TO) {
		bool wide = ptx_type_bits(t) == 64;
		bool shared = ptx_has(cs->in, PQ_SHARED_CLUSTER) ||
			      ptx_has(cs->in, PQ_SHARED) || !wide;
		Val v = {0};
		v.dt = wide ? DT_UINT64 : DT_UINT32;
		v.s = gen_ptr_to(g, a, shared ? "shared" : "", &wide);
		if (v.s[0] != '%') {
			Val r = gen_reg(g, DT_UINT32);
			gen_emit(g, "mov.u32 %s, %s;", r.s, v.s);
			v = r;
		}
		if (shared && ptx_type_bits(t) == 64 && v.dt != DT_UINT64)
			v = gen_convert(g, v, DT_UINT64, a->span);
		return v.s;
	}
	return fit_reg(g, gen_expr(g, a), t, imm_ok, a->span).s;
}

/* An operand the checker saw as a variable can still reach here as a
 * constant (a T.unroll loop variable, read after its loop): the value
 * must be in the form's set, as a literal's is (ptxas refuses the rest:
 * tcgen05.dealloc of 15 columns). */
static void
check_imm_set(CallState *cs, const PtxOperand *op, const Expr *a, long long v)
{
	if (!ptx_imm_ok(op, v))
		gen_error(cs->g, PT_E_PTX_IMMEDIATE_RANGE, a->span,
			  "%lld is not one of the values %s the operand "
			  "allows", v, op->imm);
}

static void
reg_operand(CallState *cs, const PtxOperand *op, const Expr *a)
{
	if (op->out) {
		word(cs, out_reg(cs, a, op->type));
		return;
	}
	const char *w = in_reg(cs, a, op->type, op->imm_ok);
	if (op->imm_ok && op->imm && w && (w[0] == '-' || (w[0] >= '0' &&
							   w[0] <= '9')))
		check_imm_set(cs, op, a, strtoll(w, NULL, 0));
	word(cs, w);
}

static void
pred_operand(CallState *cs, const PtxOperand *op, const Expr *a)
{
	Gen *g = cs->g;
	if (op->out) {
		word(cs, out_reg(cs, a, PTY_PRED));
		return;
	}
	word(cs, gen_in_reg(g, gen_cond(g, a)).s);
}

/* "base+off" for an address text that is a register or "sym[+-N]"
 * (a constant element address): PTX allows one immediate, so a
 * symbol's own offset is folded into it. */
static const char *
addr_offset(Gen *g, const char *base, int64_t off)
{
	const char *k = base[0] == '%' ? NULL : strpbrk(base, "+-");
	if (k) {
		off += strtoll(k, NULL, 10);
		base = arena_printf(&g->c->arena, "%.*s", (int)(k - base),
				    base);
	}
	if (!off)
		return base;
	return arena_printf(&g->c->arena, "%s+%lld", base,
			    (long long)off);
}

/* A [symbol+off] address moved into a register, for operands ptxas
 * takes only as [reg+off] (PtxOperand.reg_addr). */
static const char *
addr_in_reg(Gen *g, const char *w, bool wide)
{
	if (w[0] == '%')
		return w;
	const char *k = strpbrk(w, "+-");
	int64_t off = k ? strtoll(k, NULL, 10) : 0;
	const char *sym = k ? arena_printf(&g->c->arena, "%.*s",
					   (int)(k - w), w)
			    : w;
	Val r = gen_reg(g, wide ? DT_UINT64 : DT_UINT32);
	gen_emit(g, "mov.u%d %s, %s;", wide ? 64 : 32, r.s, sym);
	return addr_offset(g, r.s, off);
}

static void
addr_operand(CallState *cs, const PtxOperand *op, const Expr *a)
{
	Gen *g = cs->g;
	int64_t off;
	if (a->kind == EX_PTR_TO) {
		bool wide;
		const char *w = gen_ptr_to(g, a, space_word(op->space), &wide);
		word(cs, op->reg_addr ? addr_in_reg(g, w, wide) : w);
		return;
	}
	/* ptr_to(...) + constant bytes: the [reg+imm] address form, so
	 * repeats of one tile call share a base register */
	if (a->kind == EX_BINARY && a->u.op.op == BIN_ADD &&
	    a->u.op.a->kind == EX_PTR_TO && gen_const_int(g, a->u.op.b, &off)) {
		bool wide;
		const char *base = gen_ptr_to(g, a->u.op.a,
					      space_word(op->space), &wide);
		word(cs, addr_offset(g, base, off));
		return;
	}
	Val v = gen_in_reg(g, gen_expr(g, a));
	/* under .address_size 64 only shared windows (and tensor memory)
	 * take a 32-bit address; ptxas refuses the rest ("32-bit address
	 * ... conflicting with .address_size 64") */
	bool narrow_ok = op->space == PSP_SHARED || op->space == PSP_SHARED_CTA ||
			 op->space == PSP_SHARED_CLUSTER || op->space == PSP_TMEM;
	if (v.s && !narrow_ok && dtype_bits(v.dt) < 64)
		diag_error(g->c, PT_E_CODEGEN_OPERAND_WIDTH, a->span,
			   "a %s address must be 64 bits (uint64 or ptr_to), "
			   "found %s", op->space == PSP_GENERIC ? "generic"
								 : space_word(op->space),
			   dtype_name(v.dt));
	word(cs, v.s);
}

static void
imm_operand(CallState *cs, const PtxOperand *op, const Expr *a)
{
	int64_t v = 0;
	if (!gen_const_int(cs->g, a, &v))
		gen_error(cs->g, PT_E_CODEGEN_NOT_CONSTANT, a->span,
			  "immediate operand must be a constant");
	else
		check_imm_set(cs, op, a, (long long)v);
	word(cs, arena_printf(&cs->g->c->arena, "%lld", (long long)v));
}

static void
group(CallState *cs, const PtxOperand *op, const ExprVec *args, size_t ai,
      int n)
{
	const Expr *a = args->v[ai];
	PtxOperand one = *op;
	one.kind = PTXOP_REG;
	one.imm_ok = false;
	if (a->kind == EX_TUPLE && n == 1) {
		for (size_t i = 0; i < a->u.tuple.n; i++)
			reg_operand(cs, &one, a->u.tuple.v[i]);
		return;
	}
	for (int i = 0; i < n; i++)
		reg_operand(cs, &one, args->v[ai + (size_t)i]);
}

static void
tensor_operand(CallState *cs, const PtxOperand *op, const ExprVec *args,
	       size_t ai, int n)
{
	const Expr *m = args->v[ai];
	if (m->kind != EX_VAR || !gen_var(cs->g, m->u.var)) {
		gen_error(cs->g, PT_E_CODEGEN_ADDRESS, m->span,
			  "tensor operand needs a T.TensorMap parameter");
		return;
	}
	word(cs, gen_var(cs->g, m->u.var)->s);
	PtxOperand c = *op;
	c.type = PTY_S32;
	c.kind = PTXOP_VEC;
	group(cs, &c, args, ai + 1, n - 1);
}

static void
lower_operand(CallState *cs, int oi, size_t ai, int n)
{
	const PtxOperand *op = &cs->in->ops[oi];
	const ExprVec *args = &cs->e->u.ptx.args;
	const Expr *a = args->v[ai];
	switch (op->kind) {
	case PTXOP_REG: reg_operand(cs, op, a); break;
	case PTXOP_PRED: pred_operand(cs, op, a); break;
	case PTXOP_ADDR: addr_operand(cs, op, a); break;
	case PTXOP_IMM: imm_operand(cs, op, a); break;
	case PTXOP_VEC: group(cs, op, args, ai, n); break;
	case PTXOP_TENSOR: tensor_operand(cs, op, args, ai, n); break;
	case PTXOP_SINK: break; /* never filled (arg_fits) */
	case PTXOP_LABEL:
	case PTXOP_PARAMS:
		break; /* no script value reads as a label or .param list */
	case PTXOP_PAIR: {
		PtxOperand r = *op;
		r.kind = PTXOP_REG;
		r.type = PTY_B32;
		reg_operand(cs, &r, a);
		r.kind = PTXOP_PRED;
		pred_operand(cs, &r, args->v[ai + 1]);
		break;
	}
	}
}

/* Left-out operands that PTX still needs a word for: outputs get a
 * scratch register, the sink its `_`. */
static bool
scratch_operand(CallState *cs, const PtxOperand *op)
{
	if (op->kind == PTXOP_SINK) {
		word(cs, op->word ? arena_printf(&cs->g->c->arena, "%.*s",
						 (int)strcspn(op->word, ","),
						 op->word)
				  : "_");
		return true;
	}
	if (!op->out || op->kind != PTXOP_REG)
		return false;
	word(cs, gen_reg(cs->g, reg_dtype(op->type)).s);
	return true;
}

/* Two argument readings that bind alike (the repeats of one tile call). */
static bool
args_alike(const PtxArg *a, const PtxArg *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i].kind != b[i].kind || a[i].also != b[i].also ||
		    a[i].any != b[i].any || a[i].one != b[i].one ||
		    a[i].callp != b[i].callp || a[i].bits != b[i].bits ||
		    a[i].vec != b[i].vec || a[i].has_value != b[i].has_value ||
		    (a[i].has_value && a[i].value != b[i].value))
			return false;
	return true;
}

/* The arguments of an instruction a lowering issued bound to its row's
 * operands, here where they are printed: the row is the tile checker's
 * choice, and which optional operand the arguments leave out and how a
 * group spreads over them is read off the arguments (as ptx_select
 * would).  A misfit is a lowering bug: an internal error, never a print
 * against the wrong operands.  An immediate outside the row's set binds
 * and is reported where it is printed (E3007). */
static bool
bind_issued(Gen *g, const Expr *e, int *take)
{
	const PtxInst *row = e->u.ptx.row;
	int n = (int)e->u.ptx.args.n;
	PtxArg *args = NEWN(&g->c->arena, PtxArg, n + 1);
	for (int i = 0; i < n; i++)
		args[i] = ir_ptx_arg_broad(e->u.ptx.args.v[i]);
	BindMemo *m = &g->bind;
	if (m->row == row && m->n == n && args_alike(m->args, args, n)) {
		memcpy(take, m->take, sizeof m->take);
		return true;
	}
	PtxMiss why = ptx_bind(row, args, n, take);
	if (why == PTXM_OK || why == PTXM_IMMEDIATE) {
		*m = (BindMemo){row, n, args, {0}};
		memcpy(m->take, take, sizeof m->take);
		return true;
	}
	diag_error(g->c, PT_E_PTX_ISSUE_MISFIT, e->span,
		   "internal error: %d argument%s issued for %s fit%s none "
		   "of its operands' readings (%s)",
		   n, n == 1 ? "" : "s", row->spelling, n == 1 ? "s" : "",
		   ptx_describe_operands(&g->c->arena, row));
	return false;
}

void
gen_ptx_call(Gen *g, const Expr *e)
{
	/* codegen only prints: the checker selected every raw call's form
	 * and the tile lowering issued its checker's row (ir_ptx_issue); a
	 * node without either is a compiler bug, never a silent selection
	 * here -- unless its miss was reported already, which is the error
	 * the user sees */
	const PtxInst *in = ir_ptx_form(e);
	if (!in) {
		if (!g->c->nerrors)
			diag_error(g->c, PT_E_PTX_UNSELECTED, e->span,
				   "internal error: %s reached code "
				   "generation without a selected form",
				   e->u.ptx.spelling);
		return;
	}
	int bound[PTX_MAX_OPS];
	const int *take = bound;
	if (e->u.ptx.sel)
		take = e->u.ptx.sel->take;
	else if (!bind_issued(g, e, bound))
		return;
	gen_need_ptx(g, in->min_ptx);
	const char *pred = NULL;
	if (e->u.ptx.pred) {
		Val p = gen_cond(g, e->u.ptx.pred);
		if (p.imm && !p.i)
			return;
		pred = p.imm ? NULL : p.s;
	}
	CallState cs = {0};
	cs.g = g;
	cs.e = e;
	cs.in = in;
	bool present[PTX_MAX_OPS];
	size_t ai = 0;
	for (int oi = 0; oi < in->nops; oi++) {
		present[oi] = take[oi] > 0;
		if (take[oi])
			lower_operand(&cs, oi, ai, take[oi]);
		else
			present[oi] = scratch_operand(&cs, &in->ops[oi]);
		ai += (size_t)take[oi];
	}
	StrBuf b;
	sb_init(&b, &g->c->arena);
	ptx_emit(&b, in, pred, present, cs.words.v);
	gen_emit(g, "%s", sb_cstr(&b));
	flush_outs(&cs);
}
