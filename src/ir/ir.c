/*
 * ir.c - IR builders, name tables (dtypes, scopes, builtins) and
 * structural equality.
 *
 * Equality compares shape, constants and symbols by name, dtype and
 * kind (never by pointer or id) and ignores spans, so a module printed
 * and parsed again, or written to JSON and read back, compares equal to
 * the original.
 */
#include <string.h>

#include "ir/ir.h"
#include "ptx/ptx.h"

/* ---- dtypes ---- */

static const struct {
	const char *name;
	int bits;
	DTypeKind kind;
	const char *ptx;
} dtype_table[] = {
	[DT_NONE] = {"none", 0, DK_BITS, ""},
#define DTYPE(id, name, bits, kind, ptx) [DT_##id] = {name, bits, DK_##kind, ptx},
#include "ir/dtypes.def"
#undef DTYPE
};

const char *
dtype_name(DType t)
{
	return (unsigned)t < DT_COUNT ? dtype_table[t].name : "?";
}

int
dtype_bits(DType t)
{
	return (unsigned)t < DT_COUNT ? dtype_table[t].bits : 0;
}

DTypeKind
dtype_kind(DType t)
{
	return (unsigned)t < DT_COUNT ? dtype_table[t].kind : DK_BITS;
}

const char *
dtype_ptx(DType t)
{
	return (unsigned)t < DT_COUNT ? dtype_table[t].ptx : "";
}

bool
dtype_parse(const char *s, DType *out)
{
	for (int t = DT_NONE + 1; t < DT_COUNT; t++)
		if (!strcmp(dtype_table[t].name, s)) {
			*out = (DType)t;
			return true;
		}
	return false;
}

/* ---- scopes ---- */

const char *const memscope_names[MS_TMEM + 1] = {
	[MS_GLOBAL] = "global", [MS_SHARED] = "shared",
	[MS_SHARED_DYN] = "shared.dyn", [MS_LOCAL] = "local",
	[MS_TMEM] = "tmem",
};

const char *const execscope_names[ES_CLUSTER + 1] = {
	[ES_THREAD] = "thread", [ES_WARP] = "warp",
	[ES_WARPGROUP] = "warpgroup", [ES_CTA] = "cta",
	[ES_CLUSTER] = "cluster",
};

const char *
memscope_name(MemScope s)
{
	return (unsigned)s < countof(memscope_names) ? memscope_names[s] : "?";
}

bool
memscope_parse(const char *s, MemScope *out)
{
	for (size_t i = 0; i < countof(memscope_names); i++)
		if (!strcmp(memscope_names[i], s)) {
			*out = (MemScope)i;
			return true;
		}
	return false;
}

const char *
execscope_name(ExecScope s)
{
	return (unsigned)s < countof(execscope_names) ? execscope_names[s]
						      : "?";
}

bool
execscope_parse(const char *s, ExecScope *out)
{
	for (size_t i = 0; i < countof(execscope_names); i++)
		if (!strcmp(execscope_names[i], s)) {
			*out = (ExecScope)i;
			return true;
		}
	return false;
}

/* ---- builtins ---- */

static const BuiltinInfo builtin_table[] = {
#define BUILTIN(id, spelling, nargs, args, result) {spelling, nargs, BA_##args, BR_##result},
#include "ir/builtins.def"
#undef BUILTIN
};

const char *
builtin_spelling(Builtin b)
{
	return (unsigned)b < BI_COUNT ? builtin_table[b].spelling : "?";
}

const BuiltinInfo *
builtin_info(Builtin b)
{
	return (unsigned)b < BI_COUNT ? &builtin_table[b] : NULL;
}

bool
builtin_parse(const char *spelling, Builtin *out)
{
	for (int b = 0; b < BI_COUNT; b++)
		if (!strcmp(builtin_table[b].spelling, spelling)) {
			*out = (Builtin)b;
			return true;
		}
	return false;
}

/* The builtins' instruction forms (builtin_forms.def), by builtin id. */
typedef enum FormPick { PICK_NONE, PICK_ALL, PICK_FIRST } FormPick;

static const struct {
	FormPick pick;
	const char *spelling[2];
} builtin_forms[BI_COUNT] = {
#define BUILTIN_FORMS(id, pick, s0, s1) [BI_##id] = {PICK_##pick, {s0, s1}},
#include "ir/builtin_forms.def"
#undef BUILTIN_FORMS
};

int
builtin_form_count(Builtin b)
{
	if ((unsigned)b >= BI_COUNT || builtin_forms[b].pick == PICK_NONE)
		return 0;
	if (builtin_forms[b].pick == PICK_FIRST)
		return 1;
	return builtin_forms[b].spelling[1] ? 2 : 1;
}

const char *
builtin_form_spelling(Builtin b, int i)
{
	if ((unsigned)b >= BI_COUNT || i < 0 || i > 1)
		return NULL;
	return builtin_forms[b].spelling[i];
}

bool
ir_select_builtin(Ctx *c, Expr *x)
{
	Builtin b = x->u.call.id;
	if (!builtin_form_count(b))
		return true;
	const PtxInst **forms = NEWN(&c->arena, const PtxInst *, 2);
	for (int i = 0; i < 2 && builtin_forms[b].spelling[i]; i++) {
		const char *sp = builtin_forms[b].spelling[i];
		PtxSel *s = NEW(&c->arena, PtxSel);
		if (ptx_select(sp, NULL, -1, s) != PTXM_OK)
			return diag_error(c, PT_E_INTERNAL, x->span,
					  "internal error: %s issues %s, which "
					  "no form row accepts",
					  builtin_spelling(b), sp);
		forms[i] = &s->inst;
	}
	/* FIRST: the second alternative only where the first's gate
	 * refuses the target */
	if (builtin_forms[b].pick == PICK_FIRST && forms[1] &&
	    !ptx_gate_allows(forms[0]->gate, c->target))
		forms[0] = forms[1];
	x->u.call.forms = forms;
	return true;
}

/* ---- builders ---- */

Expr *
ir_new_expr(Ctx *c, ExprKind k, ExprType ty, DType t, Span sp)
{
	Expr *e = NEW(&c->arena, Expr);
	e->kind = k;
	e->type = ty;
	e->dtype = t;
	e->span = sp;
	return e;
}

Expr *
ir_int(Ctx *c, int64_t v, DType t, Span sp)
{
	Expr *e = ir_new_expr(c, EX_INT, ET_SCALAR, t, sp);
	e->u.ival = v;
	return e;
}

Expr *
ir_float(Ctx *c, double v, DType t, Span sp)
{
	Expr *e = ir_new_expr(c, EX_FLOAT, ET_SCALAR, t, sp);
	e->u.fval = v;
	return e;
}

Expr *
ir_bool(Ctx *c, bool v, Span sp)
{
	Expr *e = ir_new_expr(c, EX_BOOL, ET_SCALAR, DT_BOOL, sp);
	e->u.ival = v;
	return e;
}

Stmt *
ir_new_stmt(Ctx *c, StmtKind k, Span sp)
{
	Stmt *s = NEW(&c->arena, Stmt);
	s->kind = k;
	s->span = sp;
	return s;
}

bool
ir_const_int(const Expr *e, int64_t *v)
{
	if (!e || (e->kind != EX_INT && e->kind != EX_BOOL))
		return false;
	*v = e->u.ival;
	return true;
}

/* ---- PTX calls ---- */

/* How an argument may fill a PTX operand: a ptr_to is an address or a
 * register (a 64-bit generic address, e.g. mapa's source, or a 32-bit
 * shared-window one); a non-constant
 * 32/64-bit integer is a register or an address (a shared::cluster
 * address from mapa); a constant is an immediate; a tuple is a
 * register group. */
static PtxArg
ptx_arg(const Expr *x)
{
	PtxArg a = {0};
	int64_t v;
	if (x->kind == EX_PTR_TO) {
		a.kind = PTXOP_ADDR;
		a.also = PTX_KIND(PTXOP_REG); /* 64-bit generic or 32-bit
						* shared-window address */
	} else if (x->type == ET_SCALAR && x->dtype == DT_BOOL &&
		   x->kind != EX_BOOL) {
		a.kind = PTXOP_PRED;
		a.bits = 1;
	} else if (ir_const_int(x, &v)) {
		a.kind = PTXOP_IMM;
		a.has_value = true;
		a.value = v;
		a.bits = dtype_bits(x->dtype);
	} else if (x->kind == EX_TUPLE) {
		a.kind = PTXOP_VEC;
		a.vec = (int)x->u.tuple.n;
	} else {
		a.kind = PTXOP_REG;
		int bits = dtype_bits(x->dtype);
		a.bits = bits < 16 ? 0 : bits;
		if (x->type == ET_SCALAR && bits >= 32 &&
		    dtype_kind(x->dtype) != DK_FLOAT)
			a.also = PTX_KIND(PTXOP_ADDR);
	}
	return a;
}

/* The broad reading, for calls the tile lowering builds and calls the
 * checker did not see: what codegen can lower.  A bool is a predicate;
 * any other scalar a register of any width (a constant is moved into
 * one), an integer also an immediate and, from 32 bits, an address;
 * codegen names what is wrong with a reading it cannot lower. */
PtxArg
ir_ptx_arg_broad(const Expr *x)
{
	PtxArg a = ptx_arg(x);
	if (x->type != ET_SCALAR || x->kind == EX_PTR_TO)
		return a;
	if (x->dtype == DT_BOOL)
		return (PtxArg){.kind = PTXOP_PRED, .bits = 1};
	a.also = 0;
	if (dtype_kind(x->dtype) != DK_FLOAT) {
		a.also |= PTX_KIND(PTXOP_IMM);
		if (dtype_bits(x->dtype) >= 32)
			a.also |= PTX_KIND(PTXOP_ADDR);
	}
	a.kind = PTXOP_REG;
	a.bits = 0;
	return a;
}

bool
ir_select_ptx(Ctx *c, Expr *x, bool broad)
{
	int n = (int)x->u.ptx.args.n;
	PtxArg *args = NEWN(&c->arena, PtxArg, n + 1);
	for (int i = 0; i < n; i++)
		args[i] = broad ? ir_ptx_arg_broad(x->u.ptx.args.v[i])
				: ptx_arg(x->u.ptx.args.v[i]);
	PtxSel *s = NEW(&c->arena, PtxSel);
	PtxMiss why = ptx_select(x->u.ptx.spelling, args, n, s);
	if (why != PTXM_OK) {
		/* a spelling miss points at the spelling, an operand miss at
		 * the call */
		bool spelling = why == PTXM_JUNK || why == PTXM_MNEMONIC ||
				why == PTXM_QUALIFIERS;
		return ptx_select_report(c, why, s, n,
					 spelling && x->u.ptx.opcode_span.file
						 ? x->u.ptx.opcode_span
						 : x->span);
	}
	x->u.ptx.sel = s;
	return true;
}

const PtxInst *
ir_ptx_form(const Expr *x)
{
	return x->u.ptx.sel ? &x->u.ptx.sel->inst : x->u.ptx.row;
}

Expr *
ir_ptx_issue(Ctx *c, const PtxInst *row, ExprVec args, Expr *pred, Span sp)
{
	Expr *p = ir_new_expr(c, EX_PTX, ET_VOID, DT_NONE, sp);
	p->u.ptx.args = args;
	p->u.ptx.pred = pred;
	if (!row) {
		p->u.ptx.spelling = "(no row)";
		diag_error(c, PT_E_PTX_UNSELECTED, sp,
			   "internal error: an instruction issued without the "
			   "form row its checker chose");
		return p;
	}
	p->u.ptx.spelling = row->spelling;
	p->u.ptx.row = row;
	return p;
}

/* ---- visiting every expression ---- */

typedef struct Visit {
	void (*fn)(void *ud, Expr *x);
	void *ud;
} Visit;

static void visit_expr(const Visit *v, Expr *x);

static void
visit_vec(const Visit *v, const ExprVec *xs)
{
	for (size_t i = 0; i < xs->n; i++)
		visit_expr(v, xs->v[i]);
}

static void
visit_expr(const Visit *v, Expr *x)
{
	if (!x)
		return;
	v->fn(v->ud, x);
	switch (x->kind) {
	case EX_UNARY:
	case EX_BINARY:
	case EX_CAST:
	case EX_REINTERPRET:
	case EX_SELECT:
		visit_expr(v, x->u.op.a);
		visit_expr(v, x->u.op.b);
		visit_expr(v, x->u.op.c);
		return;
	case EX_LOAD:
	case EX_PTR_TO:
		visit_expr(v, x->u.access.base);
		visit_vec(v, &x->u.access.indices);
		return;
	case EX_BUILTIN:
		visit_vec(v, &x->u.call.args);
		return;
	case EX_REGION:
		visit_expr(v, x->u.region.base);
		for (int i = 0; i < x->u.region.ndims; i++) {
			visit_expr(v, x->u.region.dims[i].begin);
			visit_expr(v, x->u.region.dims[i].end);
		}
		return;
	case EX_VIEW_DTYPE:
	case EX_VIEW_RESHAPE:
		visit_expr(v, x->u.view.base);
		visit_vec(v, &x->u.view.shape);
		return;
	case EX_TUPLE:
		visit_vec(v, &x->u.tuple);
		return;
	case EX_PTX:
		visit_vec(v, &x->u.ptx.args);
		visit_expr(v, x->u.ptx.pred);
		return;
	case EX_TILE_APPLY:
		visit_vec(v, &x->u.apply.operands);
		for (size_t i = 0; i < x->u.apply.params.n; i++)
			visit_expr(v, x->u.apply.params.v[i].value);
		return;
	case EX_TILE_EWISE:
		visit_expr(v, x->u.ewise.dst);
		visit_vec(v, &x->u.ewise.inputs);
		return;
	default:
		return;
	}
}

static void
visit_block(const Visit *v, const Block *b)
{
	for (size_t i = 0; i < b->n; i++) {
		Stmt *s = b->v[i];
		switch (s->kind) {
		case ST_VAR_DECL:
		case ST_ASSIGN:
			visit_expr(v, s->u.var.value);
			break;
		case ST_STORE:
			visit_expr(v, s->u.store.base);
			visit_vec(v, &s->u.store.indices);
			visit_expr(v, s->u.store.value);
			break;
		case ST_FOR:
			visit_expr(v, s->u.loop.begin);
			visit_expr(v, s->u.loop.end);
			visit_expr(v, s->u.loop.step);
			visit_block(v, &s->u.loop.body);
			break;
		case ST_WHILE:
			visit_expr(v, s->u.whil.cond);
			visit_block(v, &s->u.whil.body);
			break;
		case ST_IF:
			visit_expr(v, s->u.cond.cond);
			visit_block(v, &s->u.cond.then);
			visit_block(v, &s->u.cond.els);
			break;
		case ST_RETURN:
		case ST_EVAL:
			visit_expr(v, s->u.value);
			break;
		default:
			break;
		}
	}
}

void
ir_visit_block(const Block *b, void (*fn)(void *ud, Expr *x), void *ud)
{
	Visit v = {fn, ud};
	visit_block(&v, b);
}

/* ---- structural equality ---- */

static bool expr_eq(const Expr *a, const Expr *b);
static bool block_eq(const Block *a, const Block *b);

static bool
str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

static bool
var_eq(const Var *a, const Var *b)
{
	if (!a || !b)
		return a == b;
	return str_eq(a->name, b->name) && a->dtype == b->dtype &&
	       a->kind == b->kind;
}

static bool
iters_eq(const LayoutIter *a, const LayoutIter *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i].extent != b[i].extent || a[i].stride != b[i].stride ||
		    a[i].axis != b[i].axis)
			return false;
	return true;
}

bool
ir_layout_equal(const Layout *a, const Layout *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind)
		return false;
	if (a->kind == LAYOUT_COMPOSE)
		return a->sw_m == b->sw_m && a->sw_b == b->sw_b &&
		       a->sw_s == b->sw_s && ir_layout_equal(a->inner, b->inner);
	if (a->nshard != b->nshard || a->nreplica != b->nreplica ||
	    a->noffset != b->noffset)
		return false;
	if (!iters_eq(a->shard, b->shard, a->nshard) ||
	    !iters_eq(a->replica, b->replica, a->nreplica))
		return false;
	for (int i = 0; i < a->noffset; i++)
		if (a->offset[i].value != b->offset[i].value ||
		    a->offset[i].axis != b->offset[i].axis)
			return false;
	return true;
}

static bool
exprs_eq(const ExprVec *a, const ExprVec *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!expr_eq(a->v[i], b->v[i]))
			return false;
	return true;
}

static bool
shape_eq(Expr *const *a, Expr *const *b, int n)
{
	for (int i = 0; i < n; i++)
		if (!expr_eq(a[i], b[i]))
			return false;
	return true;
}

/* A buffer at its definition: everything it declares. */
static bool
buf_def_eq(const Buffer *a, const Buffer *b)
{
	if (!a || !b)
		return a == b;
	return str_eq(a->name, b->name) && a->kind == b->kind &&
	       a->dtype == b->dtype && a->ndim == b->ndim &&
	       shape_eq(a->shape, b->shape, a->ndim) && a->scope == b->scope &&
	       ir_layout_equal(a->layout, b->layout) && a->align == b->align &&
	       expr_eq(a->allocated_addr, b->allocated_addr) &&
	       expr_eq(a->view, b->view);
}

/* A buffer at a use: the name, kind and dtype identify it. */
static bool
buf_ref_eq(const Buffer *a, const Buffer *b)
{
	if (!a || !b)
		return a == b;
	return str_eq(a->name, b->name) && a->kind == b->kind &&
	       a->dtype == b->dtype && a->ndim == b->ndim;
}

static bool
region_eq(const Expr *a, const Expr *b)
{
	if (a->u.region.sub != b->u.region.sub ||
	    a->u.region.ndims != b->u.region.ndims ||
	    !expr_eq(a->u.region.base, b->u.region.base))
		return false;
	for (int i = 0; i < a->u.region.ndims; i++) {
		const Slice *x = &a->u.region.dims[i], *y = &b->u.region.dims[i];
		if (x->is_slice != y->is_slice || !expr_eq(x->begin, y->begin) ||
		    !expr_eq(x->end, y->end))
			return false;
	}
	return true;
}

static bool
named_eq(const NamedArgVec *a, const NamedArgVec *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!str_eq(a->v[i].name, b->v[i].name) ||
		    !expr_eq(a->v[i].value, b->v[i].value))
			return false;
	return true;
}

static bool
float_eq(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0 || a == b;
}

static bool
expr_eq(const Expr *a, const Expr *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind || a->type != b->type || a->dtype != b->dtype)
		return false;
	switch (a->kind) {
	case EX_INT:
	case EX_BOOL:
		return a->u.ival == b->u.ival;
	case EX_FLOAT:
		return float_eq(a->u.fval, b->u.fval);
	case EX_STR:
		return str_eq(a->u.str, b->u.str);
	case EX_VAR:
		return var_eq(a->u.var, b->u.var);
	case EX_BUF:
		return buf_ref_eq(a->u.buf, b->u.buf);
	case EX_UNARY:
	case EX_BINARY:
	case EX_CAST:
	case EX_REINTERPRET:
	case EX_SELECT:
		return a->u.op.op == b->u.op.op && expr_eq(a->u.op.a, b->u.op.a) &&
		       expr_eq(a->u.op.b, b->u.op.b) &&
		       expr_eq(a->u.op.c, b->u.op.c);
	case EX_LOAD:
	case EX_PTR_TO:
		return expr_eq(a->u.access.base, b->u.access.base) &&
		       exprs_eq(&a->u.access.indices, &b->u.access.indices);
	case EX_BUILTIN:
		return a->u.call.id == b->u.call.id &&
		       exprs_eq(&a->u.call.args, &b->u.call.args);
	case EX_REGION:
		return region_eq(a, b);
	case EX_VIEW_DTYPE:
	case EX_VIEW_RESHAPE:
		return expr_eq(a->u.view.base, b->u.view.base) &&
		       exprs_eq(&a->u.view.shape, &b->u.view.shape) &&
		       ir_layout_equal(a->u.view.layout, b->u.view.layout);
	case EX_TUPLE:
		return exprs_eq(&a->u.tuple, &b->u.tuple);
	case EX_PTX:
		return str_eq(a->u.ptx.spelling, b->u.ptx.spelling) &&
		       exprs_eq(&a->u.ptx.args, &b->u.ptx.args) &&
		       expr_eq(a->u.ptx.pred, b->u.ptx.pred) &&
		       a->u.ptx.preserve_dst == b->u.ptx.preserve_dst;
	case EX_TILE_APPLY:
		return str_eq(a->u.apply.opcode, b->u.apply.opcode) &&
		       exprs_eq(&a->u.apply.operands, &b->u.apply.operands) &&
		       named_eq(&a->u.apply.params, &b->u.apply.params) &&
		       a->u.apply.scope == b->u.apply.scope;
	case EX_TILE_EWISE:
		return a->u.ewise.fn && b->u.ewise.fn &&
		       str_eq(a->u.ewise.fn->name, b->u.ewise.fn->name) &&
		       expr_eq(a->u.ewise.dst, b->u.ewise.dst) &&
		       exprs_eq(&a->u.ewise.inputs, &b->u.ewise.inputs) &&
		       a->u.ewise.scope == b->u.ewise.scope;
	}
	return false;
}

bool
ir_expr_equal(const Expr *a, const Expr *b)
{
	return expr_eq(a, b);
}

static bool
stmt_eq(const Stmt *a, const Stmt *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case ST_VAR_DECL:
	case ST_ASSIGN:
		return var_eq(a->u.var.var, b->u.var.var) &&
		       expr_eq(a->u.var.value, b->u.var.value);
	case ST_STORE:
		return expr_eq(a->u.store.base, b->u.store.base) &&
		       exprs_eq(&a->u.store.indices, &b->u.store.indices) &&
		       expr_eq(a->u.store.value, b->u.store.value);
	case ST_BUF_DEF:
		return buf_def_eq(a->u.buf, b->u.buf);
	case ST_FOR:
		return var_eq(a->u.loop.var, b->u.loop.var) &&
		       expr_eq(a->u.loop.begin, b->u.loop.begin) &&
		       expr_eq(a->u.loop.end, b->u.loop.end) &&
		       expr_eq(a->u.loop.step, b->u.loop.step) &&
		       a->u.loop.kind == b->u.loop.kind &&
		       block_eq(&a->u.loop.body, &b->u.loop.body);
	case ST_WHILE:
		return expr_eq(a->u.whil.cond, b->u.whil.cond) &&
		       block_eq(&a->u.whil.body, &b->u.whil.body);
	case ST_IF:
		return expr_eq(a->u.cond.cond, b->u.cond.cond) &&
		       block_eq(&a->u.cond.then, &b->u.cond.then) &&
		       block_eq(&a->u.cond.els, &b->u.cond.els);
	case ST_BREAK:
	case ST_CONTINUE:
		return true;
	case ST_RETURN:
	case ST_EVAL:
		return expr_eq(a->u.value, b->u.value);
	}
	return false;
}

static bool
block_eq(const Block *a, const Block *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!stmt_eq(a->v[i], b->v[i]))
			return false;
	return true;
}

static bool
param_eq(const Param *a, const Param *b)
{
	return a->kind == b->kind && var_eq(a->var, b->var) &&
	       buf_def_eq(a->buf, b->buf);
}

static bool
launch_eq(const Launch *a, const Launch *b)
{
	if (a->ngrid != b->ngrid || a->nblock != b->nblock ||
	    a->grid_tuple != b->grid_tuple || a->block_tuple != b->block_tuple ||
	    a->ncluster != b->ncluster || a->cluster_tuple != b->cluster_tuple ||
	    a->min_blocks_per_sm != b->min_blocks_per_sm ||
	    a->max_registers != b->max_registers ||
	    a->max_blocks_per_cluster != b->max_blocks_per_cluster)
		return false;
	for (int i = 0; i < a->ngrid && i < 3; i++)
		if (!expr_eq(a->grid[i], b->grid[i]))
			return false;
	for (int i = 0; i < a->nblock && i < 3; i++)
		if (!expr_eq(a->block[i], b->block[i]))
			return false;
	for (int i = 0; i < a->ncluster && i < 3; i++)
		if (a->cluster[i] != b->cluster[i])
			return false;
	return true;
}

static bool
func_eq(const Func *a, const Func *b)
{
	if (!str_eq(a->name, b->name) || a->is_kernel != b->is_kernel ||
	    a->ret != b->ret || a->params.n != b->params.n)
		return false;
	for (size_t i = 0; i < a->params.n; i++)
		if (!param_eq(&a->params.v[i], &b->params.v[i]))
			return false;
	return (!a->is_kernel || launch_eq(&a->launch, &b->launch)) &&
	       block_eq(&a->body, &b->body);
}

bool
ir_module_equal(const Module *a, const Module *b)
{
	if (!a || !b)
		return a == b;
	if (a->dyn.n != b->dyn.n || a->funcs.n != b->funcs.n)
		return false;
	for (size_t i = 0; i < a->dyn.n; i++)
		if (!var_eq(a->dyn.v[i], b->dyn.v[i]))
			return false;
	for (size_t i = 0; i < a->funcs.n; i++)
		if (!func_eq(a->funcs.v[i], b->funcs.v[i]))
			return false;
	return true;
}
