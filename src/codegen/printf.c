/*
 * printf.c - T.cuda.printf and T.cuda.trap_when_assert_failed.
 *
 * printf follows the CUDA ABI of device printf: the format is a
 * NUL-terminated `.global .align 1 .b8 $strN[]` array of the module, the
 * arguments are stored, each with C's default promotion (integers of at
 * most 32 bits to a 4-byte int, 64-bit integers as 8 bytes, floats to an
 * 8-byte double) at its natural alignment, into a `.local .align 8
 * $printf_bufN` array of the entry, and
 *   .extern .func (.param .b32 r) vprintf(.param .b64 fmt, .param .b64 args)
 * is called with the generic addresses of the two (args 0 when there are
 * none).  The '$' names cannot collide with a script name.  The argument
 * classes are pf_scan's, checked again here (ir_printf_check) because IR
 * JSON input was never lowered.
 *
 * trap_when_assert_failed(c) is `@!p trap;` (nothing when c is the
 * constant true, `trap;` when it is the constant false).
 */
#include <string.h>

#include "codegen/codegen.h"

typedef struct Slot {
	DType dt;         /* the promoted dtype stored */
	const char *st;   /* st.local type */
	int64_t off;
} Slot;

/* The promoted dtype of a conversion's argument of dtype t. */
static Slot
slot_of(PfArg a, DType t)
{
	Slot s = {0};
	switch (a) {
	case PF_DOUBLE: s.dt = DT_FLOAT64, s.st = "f64"; break;
	case PF_INT64:
	case PF_UINT64:
		s.dt = dtype_is_signed(t) ? DT_INT64 : DT_UINT64, s.st = "b64";
		break;
	default:
		s.dt = dtype_is_signed(t) ? DT_INT32 : DT_UINT32, s.st = "b32";
		break;
	}
	return s;
}

/* Slots of the arguments in order, at aligned offsets; the total size. */
static int64_t
layout(Gen *g, const Expr *e, Slot *slots)
{
	const char *f = e->u.call.args.v[0]->u.str;
	int64_t off = 0;
	size_t k = 0;
	for (size_t i = 0; f[i];) {
		PfSpec sp;
		const char *why;
		size_t n = f[i] == '%' ? pf_scan(f + i, &sp, &why) : 0;
		i += n ? n : 1;
		if (!n || sp.arg == PF_NONE)
			continue;
		Slot s = slot_of(sp.arg, e->u.call.args.v[k + 1]->dtype);
		int64_t size = dtype_bits(s.dt) / 8;
		off = (off + size - 1) / size * size;
		s.off = off;
		off += size;
		slots[k++] = s;
	}
	return off;
}

/* The format as a module array; its symbol. */
static const char *
format_array(Gen *g, const char *f)
{
	const char *sym = arena_printf(&g->c->arena, "$str%d", g->mod->nstr++);
	size_t n = strlen(f) + 1;
	sb_printf(&g->mod->decl, ".global .align 1 .b8 %s[%zu] = {", sym, n);
	for (size_t i = 0; i < n; i++)
		sb_printf(&g->mod->decl, "%s%u", i ? ", " : "",
			  (unsigned)(unsigned char)f[i]);
	sb_puts(&g->mod->decl, "};\n");
	return sym;
}

/* The call block; its .param names are numbered like the format (one
 * name per call in the entry, which keeps the emulator's symbol table
 * flat).  Its st.param and call.uni are the CALL rows of
 * src/ptx/forms_call.def, ld.param a PARAM row (tests/suites/vocab.sh). */
static void
call_vprintf(Gen *g, Val fmt, Val args, int k)
{
	Val r = gen_reg(g, DT_INT32);
	gen_emit(g, "{");
	gen_emit(g, ".param .b64 $printf_fmt%d;", k);
	gen_emit(g, ".param .b64 $printf_args%d;", k);
	gen_emit(g, ".param .b32 $printf_ret%d;", k);
	gen_emit(g, "st.param.b64 [$printf_fmt%d], %s;", k, fmt.s);
	gen_emit(g, "st.param.b64 [$printf_args%d], %s;", k, args.s);
	gen_emit(g, "call.uni ($printf_ret%d), vprintf, ($printf_fmt%d, "
		 "$printf_args%d);", k, k, k);
	gen_emit(g, "ld.param.b32 %s, [$printf_ret%d];", r.s, k);
	gen_emit(g, "}");
}

Val
gen_printf(Gen *g, const Expr *e)
{
	Val none = {0};
	if (!ir_printf_check(g->c, e)) {
		g->failed = true;
		return none;
	}
	size_t nargs = e->u.call.args.n - 1;
	Slot *slots = NEWN(&g->c->arena, Slot, nargs + 1);
	int64_t size = layout(g, e, slots);
	Val args = val_int(g, 0, DT_UINT64);
	if (nargs) {
		const char *buf = arena_printf(&g->c->arena, "$printf_buf%d",
					       g->mod->nstr);
		sb_printf(&g->decl, "\t.local .align 8 .b8 %s[%lld];\n", buf,
			  (long long)size);
		for (size_t i = 0; i < nargs; i++) {
			const Expr *x = e->u.call.args.v[i + 1];
			Val v = gen_in_reg(g, gen_convert(g, gen_expr(g, x),
							  slots[i].dt, x->span));
			gen_emit(g, "st.local.%s [%s+%lld], %s;", slots[i].st,
				 buf, (long long)slots[i].off, v.s);
		}
		Val l = gen_reg(g, DT_UINT64);
		args = gen_reg(g, DT_UINT64);
		gen_emit(g, "mov.u64 %s, %s;", l.s, buf);
		gen_emit(g, "cvta.local.u64 %s, %s;", args.s, l.s);
	} else {
		args = gen_in_reg(g, args);
	}
	int k = g->mod->nstr;
	const char *sym = format_array(g, e->u.call.args.v[0]->u.str);
	Val f = gen_reg(g, DT_UINT64), fg = gen_reg(g, DT_UINT64);
	gen_emit(g, "mov.u64 %s, %s;", f.s, sym);
	gen_emit(g, "cvta.global.u64 %s, %s;", fg.s, f.s);
	g->mod->vprintf = true;
	call_vprintf(g, fg, args, k);
	return none;
}

Val
gen_trap_assert(Gen *g, const Expr *e)
{
	Val c = gen_cond(g, e->u.call.args.v[0]);
	if (!c.imm)
		gen_emit(g, "@!%s trap;", c.s);
	else if (!c.i)
		gen_emit(g, "trap;");
	return (Val){0};
}
