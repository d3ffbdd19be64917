/*
 * ld_st.c - ordinary loads and stores between registers and global,
 * shared, shared::cta or local memory (reference "Memory loads and
 * stores").
 *
 * Operands, destination first: ld takes (registers, memory), st takes
 * (memory, registers).  Both have shape (*group, *repeat, V) with V the
 * opcode's vector length (1 for a scalar form) and elements of the
 * opcode's width.  Each memory atom is V consecutive elements whose start
 * is aligned to V * element bytes (symbolic starts proved); register
 * slots belong to the issuing thread and loaded slots do not overlap.
 * cache_policy fills the operand of .L2::cache_hint forms.  One ld/st per
 * repeat; group axes bind hardware ids in the address.
 */
#include <string.h>

#include "tile/tile.h"

static int
addr_op(const PtxInst *in)
{
	for (int i = 0; i < in->nops; i++)
		if (in->ops[i].kind == PTXOP_ADDR)
			return i;
	return -1;
}

static bool
is_memory(const TileOperand *op)
{
	return !op->scalar && op->root && op->root->scope != MS_LOCAL;
}

static bool
check_order(TileEnv *e, TileCall *tc, bool is_ld)
{
	TileOperand *reg = &tc->ops[is_ld ? 0 : 1];
	TileOperand *mem = &tc->ops[is_ld ? 1 : 0];
	if (is_memory(reg) || (!mem->scalar && mem->root &&
			       mem->root->scope == MS_LOCAL &&
			       ptx_addr_space(&tc->inst) != PSP_LOCAL))
		return diag_error(e->c, PT_E_LDST_ORDER, reg->span,
				  "%s takes %s; operand %d (%s) is %s memory "
				  "and operand %d is %s", tc->inst.mnemonic,
				  is_ld ? "(registers, memory): destination "
					  "first"
					: "(memory, registers): destination "
					  "first",
				  reg->index,
				  reg->root ? reg->root->name : "?",
				  reg->root ? memscope_name(reg->root->scope)
					    : "scalar",
				  mem->index,
				  mem->scalar ? "a scalar expression"
					      : memscope_name(mem->root->scope));
	return true;
}

static bool
check_cache_policy(TileEnv *e, TileCall *tc)
{
	bool hint = ptx_has(&tc->inst, PQ_L2_CACHE_HINT);
	if (hint && !tc->cache_policy)
		return diag_error(e->c, PT_E_TILE_PARAM_REQUIRED, tc->span,
				  "%s has a cache-policy operand: pass "
				  "cache_policy=<uint64>", tc->inst.spelling);
	if (!hint && tc->cache_policy)
		return diag_error(e->c, PT_E_LDST_CACHE_POLICY, tc->span,
				  "cache_policy is given, but %s has no "
				  ".L2::cache_hint qualifier and so no "
				  "cache-policy operand", tc->inst.spelling);
	return true;
}

bool
tile_check_ld_st(TileEnv *e, TileCall *tc)
{
	Ctx *c = e->c;
	bool is_ld = tc->inst.mnem == PTXMN_LD;
	int from_params = ptx_has(&tc->inst, PQ_L2_CACHE_HINT) ? 1 : 0;
	if (!check_cache_policy(e, tc))
		return false;
	if (tc->nops != 2)
		return diag_error(c, PT_E_TILE_OPERAND_COUNT, tc->span,
				  "%s takes 2 tile operands (%s), found %d",
				  tc->inst.spelling,
				  is_ld ? "registers, memory"
					: "memory, registers", tc->nops);
	if (!check_order(e, tc, is_ld) || !tile_select_form(e, tc, from_params) ||
	    !ptx_check_target(c, &tc->inst, tc->span))
		return false;
	int a = addr_op(&tc->inst);
	int space = ptx_addr_space(&tc->inst);
	if (space != PSP_GLOBAL && space != PSP_SHARED &&
	    space != PSP_SHARED_CTA && space != PSP_LOCAL)
		return diag_error(c, PT_E_TILE_SPACE, tc->span,
				  "%s: tile ld/st supports the global, shared, "
				  "shared::cta and local spaces, found %s",
				  tc->inst.spelling,
				  space == PSP_GENERIC ? "generic addressing"
					: ptx_space_name((PtxSpace)space));
	int regi = is_ld ? 0 : 1, memi = is_ld ? 1 : 0;
	const PtxOperand *ro = &tc->inst.ops[is_ld ? 0 : 1];
	TileOperand *reg = &tc->ops[regi], *mem = &tc->ops[memi];
	int v = ro->kind == PTXOP_VEC ? ro->vec : 1;
	/* operand 0 (the destination) sets the repeat shape */
	mem->role = ROLE_MEM;
	mem->out = !is_ld;
	mem->natom = v;
	if (!is_ld && !tile_memory_shape(e, tc, mem, ro->type, space))
		return false;
	if (!tile_register_operand(e, tc, reg, ro))
		return false;
	if (is_ld && !tile_memory_shape(e, tc, mem, ro->type, space))
		return false;
	reg->ptx_op = is_ld ? 0 : 1;
	mem->ptx_op = a;
	tc->count = tile_repeat_count(tc);
	return tile_check_overlap(e, tc) && tile_check_preserve(e, tc);
}
