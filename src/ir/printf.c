/*
 * printf.c - the argument check of T.cuda.printf, shared by the lowering
 * (script input) and code generation (IR JSON input, which no lowering
 * checked).  What each conversion reads is pf_scan's (base/printf_fmt.c);
 * an argument fits it when C's default promotion would give that type:
 * integers of at most 32 bits (and bool) for %d %u %x %c, 64-bit integers
 * for the l/ll/z forms, any float dtype for %f %e %g %a (promoted to
 * double).  Signedness is not checked, as C compilers warn but accept.
 */
#include "ir/ir.h"

static bool
fits(PfArg want, DType t)
{
	DTypeKind k = dtype_kind(t);
	int bits = dtype_bits(t);
	bool intlike = t == DT_BOOL || k == DK_INT || k == DK_UINT ||
		       k == DK_BITS;
	switch (want) {
	case PF_INT:
	case PF_UINT: return intlike && bits <= 32;
	case PF_INT64:
	case PF_UINT64: return intlike && bits == 64;
	case PF_DOUBLE:
		return t == DT_FLOAT16 || t == DT_BFLOAT16 ||
		       t == DT_FLOAT32 || t == DT_FLOAT64 || t == DT_TF32;
	default: return false;
	}
}

static const char *
wants(PfArg a)
{
	switch (a) {
	case PF_INT:
	case PF_UINT: return "an integer of at most 32 bits";
	case PF_INT64:
	case PF_UINT64: return "a 64-bit integer";
	default: return "a float";
	}
}

bool
ir_printf_check(Ctx *c, const Expr *call)
{
	const ExprVec *a = &call->u.call.args;
	if (a->n == 0 || a->v[0]->kind != EX_STR)
		return diag_error(c, PT_E_PRINTF_FORMAT, call->span,
				  "T.cuda.printf needs a constant format "
				  "string first");
	const char *f = a->v[0]->u.str;
	size_t next = 1;
	for (size_t i = 0; f[i];) {
		if (f[i] != '%') {
			i++;
			continue;
		}
		PfSpec sp;
		const char *why;
		size_t n = pf_scan(f + i, &sp, &why);
		if (!n)
			return diag_error(c, PT_E_PRINTF_FORMAT, a->v[0]->span,
					  "conversion %zu of the format: %s is "
					  "not supported", next, why);
		i += n;
		if (sp.arg == PF_NONE)
			continue;
		if (next >= a->n)
			return diag_error(c, PT_E_PRINTF_FORMAT, call->span,
					  "the format has more conversions than "
					  "the %zu argument%s given", a->n - 1,
					  a->n == 2 ? "" : "s");
		const Expr *x = a->v[next];
		if (x->type != ET_SCALAR || !fits(sp.arg, x->dtype))
			return diag_error(c, PT_E_PRINTF_FORMAT, x->span,
					  "%%%s%c reads %s, found %s",
					  sp.head + 1, sp.conv, wants(sp.arg),
					  x->type != ET_SCALAR ? "a non-scalar"
							       : dtype_name(x->dtype));
		next++;
	}
	if (next < a->n)
		return diag_error(c, PT_E_PRINTF_FORMAT, a->v[next]->span,
				  "argument %zu has no conversion in the format",
				  next);
	return true;
}
