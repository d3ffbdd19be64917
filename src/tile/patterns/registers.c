/*
 * registers.c - the register instruction families: mov, add/sub/mul,
 * div/rcp/sqrt, min/max, fma, cvt, ex2/lg2, abs/neg (reference "Register
 * instructions").
 *
 * Every operand is a local register tensor owned by the issuing thread,
 * ending in the PTX operand's register count ((1,) for a scalar register,
 * (n,) for a mov vector group), or a scalar expression for a
 * single-register input, reused at every repeat.  Operand order is the
 * PTX order of the selected form (dst first; sub and div keep a scalar on
 * the left where it was written; packed cvt takes the high source
 * first).  One instruction per row-major repeat coordinate.
 */
#include <string.h>

#include "tile/tile.h"

static bool
scalar_fits(const Expr *x, PtxType p)
{
	if (tile_dtype_fits(x->dtype, p))
		return true;
	/* untyped-looking literals: an integer constant for an integer or
	 * bit type, a float constant for a float type */
	const char *n = ptx_type_name(p);
	if (x->kind == EX_INT)
		return n[0] == 'u' || n[0] == 's' ||
		       (n[0] == 'b' && n[1] != 'f');
	if (x->kind == EX_FLOAT)
		return n[0] == 'f' && !strchr(n, 'x');
	return false;
}

bool
tile_register_operand(TileEnv *e, TileCall *tc, TileOperand *op,
		      const PtxOperand *o)
{
	Ctx *c = e->c;
	op->role = ROLE_REG;
	op->out = o->out;
	op->natom = o->kind == PTXOP_VEC ? o->vec : 1;
	if (op->scalar) {
		if (o->out)
			return diag_error(c, PT_E_REG_SCALAR_DST, op->span,
					  "operand %d of %s is written, but it "
					  "is a scalar expression, not a "
					  "register tensor", op->index,
					  tc->inst.spelling);
		if (op->natom != 1)
			return diag_error(c, PT_E_TILE_SCALAR_OPERAND, op->span,
					  "operand %d of %s is a group of %d "
					  "registers; a scalar expression "
					  "fills one", op->index,
					  tc->inst.spelling, op->natom);
		if (!scalar_fits(op->expr, o->type))
			return diag_error(c, PT_E_TILE_DTYPE, op->span,
					  "operand %d of %s must be %s (or an "
					  "equal-width container), found a "
					  "%s scalar", op->index,
					  tc->inst.spelling,
					  ptx_type_name(o->type),
					  dtype_name(op->dtype));
		return true;
	}
	if (!tile_shape_operand(e, tc, op))
		return false;
	int last = (int)op->ext[op->rank - 1];
	if (last != op->natom)
		return diag_error(c, PT_E_TILE_ATOM_SHAPE, op->span,
				  "operand %d of %s has shape %s: its last "
				  "axis must be the %d register%s of the "
				  "form, found %d", op->index,
				  tc->inst.spelling,
				  tile_coord_str(&c->arena, op->ext, op->rank),
				  op->natom, op->natom == 1 ? "" : "s", last);
	if (!tile_dtype_fits(op->dtype, o->type)) {
		int code = o->out && dtype_bits(op->dtype) !=
						 tile_ptx_type_bits(o->type)
				   ? PT_E_REG_WIDTH : PT_E_TILE_DTYPE;
		return diag_error(c, code, op->span,
				  "operand %d of %s must be %s (%d-bit, or an "
				  "equal-width bit container), found %s "
				  "(%d-bit)", op->index, tc->inst.spelling,
				  ptx_type_name(o->type),
				  tile_ptx_type_bits(o->type),
				  dtype_name(op->dtype),
				  dtype_bits(op->dtype));
	}
	return tile_register_slots(e, tc, op);
}

bool
tile_check_registers(TileEnv *e, TileCall *tc)
{
	if (!tile_select_form(e, tc, 0) ||
	    !ptx_check_target(e->c, &tc->inst, tc->span))
		return false;
	/* shapes first from the first tensor operand in operand order */
	for (int i = 0; i < tc->nops; i++)
		if (!tile_register_operand(e, tc, &tc->ops[i],
					   &tc->inst.ops[i]))
			return false;
	for (int i = 0; i < tc->nops; i++)
		tc->ops[i].ptx_op = i;
	tc->count = tile_repeat_count(tc);
	return tile_check_overlap(e, tc) && tile_check_preserve(e, tc);
}
