/*
 * print.c - IR -> canonical script text.
 *
 * Input: a Module.  Output: script text that parses and lowers back to a
 * structurally equal module, and that is a fixed point of print(parse()).
 * Canonical choices: the header `from tvm_tirx.script import tirx as T`;
 * symbolic sizes, then scalar functions, then kernels (source order
 * within each group), two blank lines between functions; every builtin
 * spelled with the `T.` prefix; declarations as `x: T.dtype = e`; raw PTX
 * as `T.ptx["spelling"](...)`; layouts as T.TileLayout(T.S[...] + T.R[...]
 * + offsets) with axes `k@T.Axis.name`; the minimal parentheses that
 * Python precedence needs; int32/float32 constants as plain literals and
 * other dtypes as typed literals (`T.uint32(5)`); floats in the shortest
 * form that reads back as the same double, always with '.' or 'e'.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

/* Python precedence levels, loosest first. */
enum {
	PREC_LOWEST,
	PREC_OR,
	PREC_AND,
	PREC_NOT,
	PREC_CMP,
	PREC_BOR,
	PREC_BXOR,
	PREC_BAND,
	PREC_SHIFT,
	PREC_ARITH,
	PREC_TERM,
	PREC_UNARY,
	PREC_PRIMARY,
};

typedef struct Printer {
	StrBuf b;
} Printer;

static void put_expr(Printer *P, const Expr *e, int min_prec);
static void put_block(Printer *P, const Block *b, int indent);

static void
put_indent(Printer *P, int n)
{
	for (int i = 0; i < n; i++)
		sb_puts(&P->b, "    ");
}

static void
put_string(Printer *P, const char *s)
{
	sb_putc(&P->b, '"');
	for (const unsigned char *p = (const unsigned char *)(s ? s : "");
	     *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_printf(&P->b, "\\%c", *p);
		else if (*p == '\n')
			sb_puts(&P->b, "\\n");
		else if (*p == '\t')
			sb_puts(&P->b, "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			sb_printf(&P->b, "\\x%02x", *p);
		else
			sb_putc(&P->b, (char)*p);
	}
	sb_putc(&P->b, '"');
}

/* Shortest %g form that reads back as v, with a '.' or an exponent. */
static void
put_double(Printer *P, double v)
{
	char buf[64];
	if (!isfinite(v)) {
		/* not produced by lowering; keep the text parseable */
		sb_puts(&P->b, v != v ? "T.float64(0.0)" : "T.float64(1e308)");
		return;
	}
	if (v == trunc(v) && fabs(v) < 1e15) {
		snprintf(buf, sizeof(buf), "%.1f", v);
		sb_puts(&P->b, buf);
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	sb_puts(&P->b, buf);
	if (!strpbrk(buf, ".e"))
		sb_puts(&P->b, ".0");
}

static bool
is_negative_literal(const Expr *e)
{
	/* weak literals (DT_NONE: constant tuple elements) print plain too */
	if (e->kind == EX_INT)
		return (e->dtype == DT_INT32 || e->dtype == DT_NONE) &&
		       e->u.ival < 0;
	if (e->kind == EX_FLOAT)
		return (e->dtype == DT_FLOAT32 || e->dtype == DT_NONE) &&
		       signbit(e->u.fval);
	return false;
}

static void
put_int(Printer *P, const Expr *e)
{
	/* a weak literal (DT_NONE) is a signed Python int: -2 stays -2 */
	bool u = e->dtype != DT_NONE && (dtype_kind(e->dtype) == DK_UINT ||
					 dtype_kind(e->dtype) == DK_BITS);
	bool plain = e->dtype == DT_INT32 || e->dtype == DT_NONE;
	if (!plain)
		sb_printf(&P->b, "T.%s(", dtype_name(e->dtype));
	if (u)
		sb_printf(&P->b, "%llu", (unsigned long long)e->u.ival);
	else
		sb_printf(&P->b, "%lld", (long long)e->u.ival);
	if (!plain)
		sb_putc(&P->b, ')');
}

static void
put_float(Printer *P, const Expr *e)
{
	if (!isfinite(e->u.fval)) { /* T.float32("inf"), the way it was written */
		DType t = e->dtype == DT_NONE ? DT_FLOAT32 : e->dtype;
		sb_printf(&P->b, "T.%s(\"%s\")", dtype_name(t),
			  e->u.fval != e->u.fval ? "nan"
			  : e->u.fval < 0	 ? "-inf"
						 : "inf");
		return;
	}
	bool plain = e->dtype == DT_FLOAT32 || e->dtype == DT_NONE;
	if (!plain)
		sb_printf(&P->b, "T.%s(", dtype_name(e->dtype));
	put_double(P, e->u.fval);
	if (!plain)
		sb_putc(&P->b, ')');
}

static void
put_list(Printer *P, const ExprVec *v, bool lead_comma)
{
	for (size_t i = 0; i < v->n; i++) {
		if (i > 0 || lead_comma)
			sb_puts(&P->b, ", ");
		put_expr(P, v->v[i], PREC_LOWEST);
	}
}

/* ---- layouts ---- */

static void
put_stride(Printer *P, int64_t v, Axis ax)
{
	if (ax == AX_M)
		sb_printf(&P->b, "%lld", (long long)v);
	else
		sb_printf(&P->b, "%lld@T.cuda.Axis.%s", (long long)v, axis_name(ax));
}

static void
put_iters(Printer *P, const char *name, const LayoutIter *it, int n)
{
	sb_printf(&P->b, "T.%s[", name);
	if (n == 1) {
		sb_printf(&P->b, "%lld:", (long long)it[0].extent);
		put_stride(P, it[0].stride, it[0].axis);
		sb_putc(&P->b, ']');
		return;
	}
	sb_putc(&P->b, '(');
	for (int i = 0; i < n; i++)
		sb_printf(&P->b, "%s%lld", i ? ", " : "", (long long)it[i].extent);
	sb_puts(&P->b, "):(");
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(&P->b, ", ");
		put_stride(P, it[i].stride, it[i].axis);
	}
	sb_puts(&P->b, ")]");
}

static void
put_layout(Printer *P, const Layout *l)
{
	if (!l) {
		sb_puts(&P->b, "\"default\"");
		return;
	}
	if (l->kind == LAYOUT_COMPOSE) {
		sb_printf(&P->b, "T.ComposeLayout(%d, %d, %d, ", l->sw_m, l->sw_b,
			  l->sw_s);
		put_layout(P, l->inner);
		sb_putc(&P->b, ')');
		return;
	}
	sb_puts(&P->b, "T.TileLayout(");
	put_iters(P, "S", l->shard, l->nshard);
	if (l->nreplica) {
		sb_puts(&P->b, " + ");
		put_iters(P, "R", l->replica, l->nreplica);
	}
	for (int i = 0; i < l->noffset; i++) {
		sb_puts(&P->b, " + ");
		put_stride(P, l->offset[i].value, l->offset[i].axis);
	}
	sb_putc(&P->b, ')');
}

/* ---- expressions ---- */

static const char *
binop_spelling(int op, int *prec)
{
	static const struct {
		const char *s;
		int prec;
	} t[] = {
		[BIN_ADD] = {"+", PREC_ARITH}, [BIN_SUB] = {"-", PREC_ARITH},
		[BIN_MUL] = {"*", PREC_TERM}, [BIN_DIV] = {"/", PREC_TERM},
		[BIN_FLOORDIV] = {"//", PREC_TERM}, [BIN_MOD] = {"%", PREC_TERM},
		[BIN_SHL] = {"<<", PREC_SHIFT}, [BIN_SHR] = {">>", PREC_SHIFT},
		[BIN_BAND] = {"&", PREC_BAND}, [BIN_BOR] = {"|", PREC_BOR},
		[BIN_BXOR] = {"^", PREC_BXOR}, [BIN_LT] = {"<", PREC_CMP},
		[BIN_LE] = {"<=", PREC_CMP}, [BIN_GT] = {">", PREC_CMP},
		[BIN_GE] = {">=", PREC_CMP}, [BIN_EQ] = {"==", PREC_CMP},
		[BIN_NE] = {"!=", PREC_CMP}, [BIN_LAND] = {"and", PREC_AND},
		[BIN_LOR] = {"or", PREC_OR},
	};
	if (op < 0 || (size_t)op >= countof(t) || !t[op].s) {
		*prec = PREC_ARITH;
		return "?";
	}
	*prec = t[op].prec;
	return t[op].s;
}

static int
expr_prec(const Expr *e)
{
	int p;
	switch (e->kind) {
	case EX_INT:
	case EX_FLOAT:
		return is_negative_literal(e) ? PREC_UNARY : PREC_PRIMARY;
	case EX_UNARY:
		return e->u.op.op == UN_LNOT ? PREC_NOT : PREC_UNARY;
	case EX_BINARY:
		binop_spelling(e->u.op.op, &p);
		return p;
	default:
		return PREC_PRIMARY;
	}
}

static void
put_binary(Printer *P, const Expr *e)
{
	int p;
	const char *s = binop_spelling(e->u.op.op, &p);
	bool cmp = p == PREC_CMP;
	put_expr(P, e->u.op.a, cmp ? p + 1 : p);
	sb_printf(&P->b, " %s ", s);
	put_expr(P, e->u.op.b, p + 1);
}

static void
put_unary(Printer *P, const Expr *e)
{
	switch (e->u.op.op) {
	case UN_NEG:
		sb_putc(&P->b, '-');
		put_expr(P, e->u.op.a, PREC_UNARY);
		break;
	case UN_BNOT:
		sb_putc(&P->b, '~');
		put_expr(P, e->u.op.a, PREC_UNARY);
		break;
	default:
		sb_puts(&P->b, "not ");
		put_expr(P, e->u.op.a, PREC_NOT);
		break;
	}
}

/* i:i + 1 in X[...], which the front end makes of an index i. */
static bool
is_kept_index(const Expr *region, const Slice *d)
{
	int64_t one;
	return !region->u.region.sub && d->is_slice && d->begin && d->end &&
	       d->end->kind == EX_BINARY && d->end->u.op.op == BIN_ADD &&
	       ir_expr_equal(d->end->u.op.a, d->begin) &&
	       ir_const_int(d->end->u.op.b, &one) && one == 1;
}

static void
put_region(Printer *P, const Expr *e)
{
	put_expr(P, e->u.region.base, PREC_PRIMARY);
	sb_puts(&P->b, e->u.region.sub ? ".sub[" : "[");
	bool all_kept = true; /* then X[i, j] would be a load: print i:i + 1 */
	for (int i = 0; i < e->u.region.ndims; i++)
		all_kept &= is_kept_index(e, &e->u.region.dims[i]);
	for (int i = 0; i < e->u.region.ndims; i++) {
		const Slice *d = &e->u.region.dims[i];
		if (i)
			sb_puts(&P->b, ", ");
		if (d->begin)
			put_expr(P, d->begin, PREC_LOWEST);
		if (!d->is_slice || (!all_kept && is_kept_index(e, d)))
			continue;
		sb_putc(&P->b, ':');
		if (d->end)
			put_expr(P, d->end, PREC_LOWEST);
	}
	sb_putc(&P->b, ']');
}

static void
put_access(Printer *P, const Expr *e)
{
	put_expr(P, e->u.access.base, PREC_PRIMARY);
	bool ptr = e->kind == EX_PTR_TO;
	sb_puts(&P->b, ptr ? ".ptr_to([" : "[");
	put_list(P, &e->u.access.indices, false);
	sb_puts(&P->b, ptr ? "])" : "]");
}

static void
put_view(Printer *P, const Expr *e)
{
	put_expr(P, e->u.view.base, PREC_PRIMARY);
	sb_puts(&P->b, ".view(");
	if (e->kind == EX_VIEW_DTYPE) {
		put_string(P, dtype_name(e->dtype));
	} else {
		put_list(P, &e->u.view.shape, false);
		if (e->u.view.layout) {
			sb_puts(&P->b, ", layout=");
			put_layout(P, e->u.view.layout);
		}
	}
	sb_putc(&P->b, ')');
}

/* A tuple's plain literals are weak (DT_NONE) when read back, so an
 * int32 one keeps its type in the text: coords=(T.int32(16), 0). */
static void
put_tuple(Printer *P, const ExprVec *v)
{
	sb_putc(&P->b, '(');
	for (size_t i = 0; i < v->n; i++) {
		const Expr *x = v->v[i];
		if (i > 0)
			sb_puts(&P->b, ", ");
		if (x && x->kind == EX_INT && x->dtype == DT_INT32)
			sb_printf(&P->b, "T.int32(%lld)", (long long)x->u.ival);
		else
			put_expr(P, x, PREC_LOWEST);
	}
	if (v->n == 1)
		sb_putc(&P->b, ',');
	sb_putc(&P->b, ')');
}

static void
put_ptx(Printer *P, const Expr *e)
{
	sb_puts(&P->b, "T.ptx[");
	put_string(P, e->u.ptx.spelling);
	sb_puts(&P->b, "](");
	put_list(P, &e->u.ptx.args, false);
	bool more = e->u.ptx.args.n > 0;
	if (e->u.ptx.pred) {
		sb_puts(&P->b, more ? ", pred=" : "pred=");
		put_expr(P, e->u.ptx.pred, PREC_LOWEST);
		more = true;
	}
	if (e->u.ptx.preserve_dst)
		sb_puts(&P->b, more ? ", preserve_dst=True" : "preserve_dst=True");
	sb_putc(&P->b, ')');
}

static void
put_scope(Printer *P, ExecScope s)
{
	if (s == ES_THREAD)
		return;
	sb_puts(&P->b, ", scope=");
	put_string(P, execscope_name(s));
}

static void
put_apply(Printer *P, const Expr *e)
{
	sb_puts(&P->b, "T.cuda.tile.apply(T.ptx[");
	put_string(P, e->u.apply.opcode);
	sb_puts(&P->b, "]");
	put_list(P, &e->u.apply.operands, true);
	for (size_t i = 0; i < e->u.apply.params.n; i++) {
		sb_printf(&P->b, ", %s=", e->u.apply.params.v[i].name);
		put_expr(P, e->u.apply.params.v[i].value, PREC_LOWEST);
	}
	put_scope(P, e->u.apply.scope);
	sb_putc(&P->b, ')');
}

static void
put_ewise(Printer *P, const Expr *e)
{
	sb_printf(&P->b, "T.cuda.tile.ewise(%s, ",
		  e->u.ewise.fn ? e->u.ewise.fn->name : "?");
	put_expr(P, e->u.ewise.dst, PREC_LOWEST);
	put_list(P, &e->u.ewise.inputs, true);
	put_scope(P, e->u.ewise.scope);
	sb_putc(&P->b, ')');
}

static void
put_call_like(Printer *P, const Expr *e)
{
	switch (e->kind) {
	case EX_CAST:
		sb_puts(&P->b, "T.cast(");
		put_expr(P, e->u.op.a, PREC_LOWEST);
		sb_puts(&P->b, ", ");
		put_string(P, dtype_name(e->dtype));
		sb_putc(&P->b, ')');
		break;
	case EX_REINTERPRET:
		sb_puts(&P->b, "T.reinterpret(");
		put_string(P, dtype_name(e->dtype));
		sb_puts(&P->b, ", ");
		put_expr(P, e->u.op.a, PREC_LOWEST);
		sb_putc(&P->b, ')');
		break;
	case EX_SELECT:
		sb_puts(&P->b, "T.if_then_else(");
		put_expr(P, e->u.op.a, PREC_LOWEST);
		sb_puts(&P->b, ", ");
		put_expr(P, e->u.op.b, PREC_LOWEST);
		sb_puts(&P->b, ", ");
		put_expr(P, e->u.op.c, PREC_LOWEST);
		sb_putc(&P->b, ')');
		break;
	case EX_BUILTIN:
		sb_printf(&P->b, "%s(", builtin_spelling(e->u.call.id));
		put_list(P, &e->u.call.args, false);
		sb_putc(&P->b, ')');
		break;
	default:
		break;
	}
}

static void
put_expr_inner(Printer *P, const Expr *e)
{
	switch (e->kind) {
	case EX_INT: put_int(P, e); break;
	case EX_FLOAT: put_float(P, e); break;
	case EX_BOOL: sb_puts(&P->b, e->u.ival ? "True" : "False"); break;
	case EX_STR: put_string(P, e->u.str); break;
	case EX_VAR: sb_puts(&P->b, e->u.var->name); break;
	case EX_BUF: sb_puts(&P->b, e->u.buf->name); break;
	case EX_UNARY: put_unary(P, e); break;
	case EX_BINARY: put_binary(P, e); break;
	case EX_CAST:
	case EX_REINTERPRET:
	case EX_SELECT:
	case EX_BUILTIN:
		put_call_like(P, e);
		break;
	case EX_LOAD:
	case EX_PTR_TO:
		put_access(P, e);
		break;
	case EX_REGION: put_region(P, e); break;
	case EX_VIEW_DTYPE:
	case EX_VIEW_RESHAPE:
		put_view(P, e);
		break;
	case EX_TUPLE: put_tuple(P, &e->u.tuple); break;
	case EX_PTX: put_ptx(P, e); break;
	case EX_TILE_APPLY: put_apply(P, e); break;
	case EX_TILE_EWISE: put_ewise(P, e); break;
	}
}

static void
put_expr(Printer *P, const Expr *e, int min_prec)
{
	if (!e) {
		sb_puts(&P->b, "None");
		return;
	}
	bool paren = expr_prec(e) < min_prec;
	if (paren)
		sb_putc(&P->b, '(');
	put_expr_inner(P, e);
	if (paren)
		sb_putc(&P->b, ')');
}

/* ---- statements ---- */

static void
put_shape(Printer *P, const Buffer *b)
{
	sb_putc(&P->b, '(');
	for (int i = 0; i < b->ndim; i++) {
		if (i)
			sb_puts(&P->b, ", ");
		put_expr(P, b->shape[i], PREC_LOWEST);
	}
	sb_puts(&P->b, b->ndim == 1 ? ",)" : ")");
}

/* shape, "dtype"[, extras] as T.Tensor and the allocators take them. */
static void
put_buffer_args(Printer *P, const Buffer *b, bool with_scope)
{
	put_shape(P, b);
	sb_puts(&P->b, ", ");
	put_string(P, dtype_name(b->dtype));
	if (with_scope) {
		sb_puts(&P->b, ", scope=");
		put_string(P, memscope_name(b->scope));
	}
	if (b->allocated_addr) {
		sb_puts(&P->b, ", allocated_addr=");
		put_expr(P, b->allocated_addr, PREC_LOWEST);
	}
	if (b->layout) {
		sb_puts(&P->b, ", layout=");
		put_layout(P, b->layout);
	}
	if (b->align)
		sb_printf(&P->b, ", align=%lld", (long long)b->align);
}

static void
put_buf_def(Printer *P, const Buffer *b)
{
	sb_printf(&P->b, "%s = ", b->name);
	if (b->kind == BK_VIEW) {
		put_expr(P, b->view, PREC_LOWEST);
		return;
	}
	switch (b->scope) {
	case MS_SHARED:
		sb_puts(&P->b, "T.alloc_shared(");
		put_buffer_args(P, b, false);
		break;
	case MS_LOCAL:
		sb_puts(&P->b, "T.alloc_local(");
		put_buffer_args(P, b, false);
		break;
	case MS_SHARED_DYN: /* TIRx 0.1.0a4 has no alloc_buffer */
		sb_puts(&P->b, "T.alloc_shared(");
		put_buffer_args(P, b, true);
		break;
	case MS_TMEM:
		sb_puts(&P->b, "T.tmem(");
		put_buffer_args(P, b, true);
		break;
	default:
		sb_puts(&P->b, "T.alloc_buffer(");
		put_buffer_args(P, b, true);
		break;
	}
	sb_putc(&P->b, ')');
}

static bool
is_const_value(const Expr *e, int64_t want)
{
	int64_t v;
	return ir_const_int(e, &v) && v == want;
}

static void
put_for(Printer *P, const Stmt *s, int indent)
{
	const Expr *b = s->u.loop.begin, *e = s->u.loop.end,
		   *st = s->u.loop.step;
	sb_printf(&P->b, "for %s in %s(", s->u.loop.var->name,
		  s->u.loop.kind == FOR_UNROLL ? "T.unroll" : "range");
	if (is_const_value(st, 1) && is_const_value(b, 0) &&
	    (!e || e->dtype == b->dtype)) {
		put_expr(P, e, PREC_LOWEST);
	} else {
		put_expr(P, b, PREC_LOWEST);
		sb_puts(&P->b, ", ");
		put_expr(P, e, PREC_LOWEST);
		if (!is_const_value(st, 1)) {
			sb_puts(&P->b, ", ");
			put_expr(P, st, PREC_LOWEST);
		}
	}
	sb_puts(&P->b, "):\n");
	put_block(P, &s->u.loop.body, indent + 1);
}

static void
put_if(Printer *P, const Stmt *s, int indent, bool elif)
{
	sb_puts(&P->b, elif ? "elif " : "if ");
	put_expr(P, s->u.cond.cond, PREC_LOWEST);
	sb_puts(&P->b, ":\n");
	put_block(P, &s->u.cond.then, indent + 1);
	const Block *els = &s->u.cond.els;
	if (els->n == 0)
		return;
	put_indent(P, indent);
	if (els->n == 1 && els->v[0]->kind == ST_IF) {
		put_if(P, els->v[0], indent, true);
		return;
	}
	sb_puts(&P->b, "else:\n");
	put_block(P, els, indent + 1);
}

static void
put_stmt(Printer *P, const Stmt *s, int indent)
{
	put_indent(P, indent);
	switch (s->kind) {
	case ST_VAR_DECL:
		sb_printf(&P->b, "%s: T.%s", s->u.var.var->name,
			  dtype_name(s->u.var.var->dtype));
		if (s->u.var.value) {
			sb_puts(&P->b, " = ");
			put_expr(P, s->u.var.value, PREC_LOWEST);
		}
		break;
	case ST_ASSIGN:
		sb_printf(&P->b, "%s = ", s->u.var.var->name);
		put_expr(P, s->u.var.value, PREC_LOWEST);
		break;
	case ST_STORE:
		put_expr(P, s->u.store.base, PREC_PRIMARY);
		sb_putc(&P->b, '[');
		put_list(P, &s->u.store.indices, false);
		sb_puts(&P->b, "] = ");
		put_expr(P, s->u.store.value, PREC_LOWEST);
		break;
	case ST_BUF_DEF: put_buf_def(P, s->u.buf); break;
	case ST_FOR: put_for(P, s, indent); return;
	case ST_WHILE:
		sb_puts(&P->b, "while ");
		put_expr(P, s->u.whil.cond, PREC_LOWEST);
		sb_puts(&P->b, ":\n");
		put_block(P, &s->u.whil.body, indent + 1);
		return;
	case ST_IF: put_if(P, s, indent, false); return;
	case ST_BREAK: sb_puts(&P->b, "break"); break;
	case ST_CONTINUE: sb_puts(&P->b, "continue"); break;
	case ST_RETURN: /* a kernel's early exit has no value */
		sb_puts(&P->b, s->u.value ? "return " : "return");
		if (s->u.value)
			put_expr(P, s->u.value, PREC_LOWEST);
		break;
	case ST_EVAL: put_expr(P, s->u.value, PREC_LOWEST); break;
	}
	sb_putc(&P->b, '\n');
}

static void
put_block(Printer *P, const Block *b, int indent)
{
	if (b->n == 0) {
		put_indent(P, indent);
		sb_puts(&P->b, "pass\n");
		return;
	}
	for (size_t i = 0; i < b->n; i++)
		put_stmt(P, b->v[i], indent);
}

/* ---- functions ---- */

static void
put_param(Printer *P, const Param *p)
{
	switch (p->kind) {
	case PK_TENSOR: {
		const Buffer *b = p->buf;
		sb_printf(&P->b, "%s: T.Tensor(", b->name);
		put_shape(P, b);
		sb_puts(&P->b, ", ");
		put_string(P, dtype_name(b->dtype));
		if (b->align)
			sb_printf(&P->b, ", align=%lld", (long long)b->align);
		if (b->layout) {
			sb_puts(&P->b, ", layout=");
			put_layout(P, b->layout);
		}
		if (b->scope != MS_GLOBAL) {
			sb_puts(&P->b, ", scope=");
			put_string(P, memscope_name(b->scope));
		}
		sb_putc(&P->b, ')');
		break;
	}
	case PK_SCALAR:
		sb_printf(&P->b, "%s: T.%s", p->var->name,
			  dtype_name(p->var->dtype));
		break;
	case PK_TENSORMAP:
		sb_printf(&P->b, "%s: T.TensorMap()", p->var->name);
		break;
	}
}

static void
put_dims(Printer *P, Expr *const *d, int n, bool tuple)
{
	if (!tuple && n == 1) {
		put_expr(P, d[0], PREC_LOWEST);
		return;
	}
	sb_putc(&P->b, '(');
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(&P->b, ", ");
		put_expr(P, d[i], PREC_LOWEST);
	}
	sb_puts(&P->b, n == 1 ? ",)" : ")");
}

/* `, kernel_attrs=T.cuda.KernelAttributes(...)` when any is set. */
static void
put_kernel_attrs(Printer *P, const Launch *l)
{
	const struct {
		const char *name;
		int64_t v;
	} attrs[] = {
		{"min_blocks_per_sm", l->min_blocks_per_sm},
		{"max_blocks_per_cluster", l->max_blocks_per_cluster},
		{"max_registers_per_thread", l->max_registers},
	};
	bool any = false;
	for (size_t i = 0; i < countof(attrs); i++) {
		if (!attrs[i].v)
			continue;
		sb_puts(&P->b, any ? ", " : ", kernel_attrs=T.cuda.KernelAttributes(");
		sb_printf(&P->b, "%s=%lld", attrs[i].name, (long long)attrs[i].v);
		any = true;
	}
	if (any)
		sb_putc(&P->b, ')');
}

static void
put_launch(Printer *P, const Launch *l)
{
	sb_puts(&P->b, "    T.device_entry(launch=T.cuda.LaunchConfig(grid=");
	put_dims(P, l->grid, l->ngrid, l->grid_tuple);
	sb_puts(&P->b, ", block=");
	put_dims(P, l->block, l->nblock, l->block_tuple);
	if (l->ncluster > 0) {
		sb_puts(&P->b, ", cluster=");
		if (l->ncluster == 1 && !l->cluster_tuple) {
			sb_printf(&P->b, "%lld", (long long)l->cluster[0]);
		} else {
			sb_putc(&P->b, '(');
			for (int i = 0; i < l->ncluster; i++)
				sb_printf(&P->b, "%s%lld", i ? ", " : "",
					  (long long)l->cluster[i]);
			sb_puts(&P->b, l->ncluster == 1 ? ",)" : ")");
		}
	}
	sb_putc(&P->b, ')');
	put_kernel_attrs(P, l);
	sb_puts(&P->b, ")\n");
}

static void
put_func(Printer *P, const Func *f)
{
	sb_printf(&P->b, "\n\n@T.function\ndef %s(", f->name);
	for (size_t i = 0; i < f->params.n; i++) {
		if (i)
			sb_puts(&P->b, ", ");
		put_param(P, &f->params.v[i]);
	}
	sb_putc(&P->b, ')');
	if (!f->is_kernel)
		sb_printf(&P->b, " -> T.%s", dtype_name(f->ret));
	sb_puts(&P->b, ":\n");
	if (f->is_kernel) {
		put_launch(P, &f->launch);
		for (size_t i = 0; i < f->body.n; i++)
			put_stmt(P, f->body.v[i], 1);
	} else {
		put_block(P, &f->body, 1);
	}
}

const char *
ir_print_module(Ctx *c, const Module *m)
{
	Printer P;
	sb_init(&P.b, &c->arena);
	sb_puts(&P.b, "from tvm_tirx.script import tirx as T\n");
	if (m->dyn.n)
		sb_putc(&P.b, '\n');
	for (size_t i = 0; i < m->dyn.n; i++)
		sb_printf(&P.b, "%s = T.dynamic(\"%s\")\n", m->dyn.v[i]->name,
			  m->dyn.v[i]->name);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < m->funcs.n; i++)
			if (m->funcs.v[i]->is_kernel == (pass == 1))
				put_func(&P, m->funcs.v[i]);
	return sb_cstr(&P.b);
}

const char *
ir_expr_text(Ctx *c, const Expr *e)
{
	Printer P;
	sb_init(&P.b, &c->arena);
	put_expr(&P, e, PREC_LOWEST);
	return sb_cstr(&P.b);
}
