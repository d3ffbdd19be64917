/*
 * ldmatrix.c - warp matrix loads and stores between shared memory and
 * registers: ldmatrix / stmatrix .m8n8{.x1,.x2,.x4}{.trans}.b16
 * (reference "Matrix loads and stores").
 *
 * Operands, destination first: ldmatrix (registers, shared), stmatrix
 * (shared, registers).  Both end in the atom (matrix, row, word) =
 * (count, 8, 4) of 32-bit containers, after the group prefix (empty at
 * warp scope, the warp at wider scopes: the lane is inside the atom) and
 * the repeat axes.  Two maps are checked:
 *   - address providers: lane 8*matrix+row supplies the address of that
 *     shared row; a row is four consecutive words starting 16-byte
 *     aligned; rows are independent (gaps, any order);
 *   - register owners: word (matrix, row, word) is register `matrix` of
 *     lane 4*row+word, at one storage slot for every lane.
 * All 32 lanes participate; no keyword (pred included) is accepted.
 * Output: one .xN instruction per repeat; lane l passes the address of
 * row (l/8 % N, l % 8), the reference's per-lane expansion, so x1/x2
 * lanes past 8N repeat valid rows.
 */
#include <string.h>

#include "tile/tile.h"

static void
owner_map(const void *arg, int lane, int reg, int64_t *atom)
{
	(void)arg;
	atom[0] = reg;
	atom[1] = lane / 4;
	atom[2] = lane % 4;
}

static bool
check_form(TileEnv *e, TileCall *tc)
{
	if (!ptx_has(&tc->inst, PQ_M8N8) ||
	    !ptx_has(&tc->inst, PQ_B16))
		return diag_error(e->c, PT_E_LDM_FORM, tc->span,
				  "the %s tile pattern supports .m8n8 "
				  "{.x1,.x2,.x4}{.trans}.b16 only, found %s; "
				  "call other shapes as raw T.ptx",
				  tc->inst.mnemonic, tc->inst.spelling);
	int space = ptx_addr_space(&tc->inst);
	if (space != PSP_SHARED && space != PSP_SHARED_CTA)
		return diag_error(e->c, PT_E_LDM_FORM, tc->span,
				  "%s: the tile pattern needs a .shared or "
				  ".shared::cta state space in the opcode "
				  "(generic addressing is not supported)",
				  tc->inst.spelling);
	if (tc->nops != 2)
		return diag_error(e->c, PT_E_TILE_OPERAND_COUNT, tc->span,
				  "%s takes 2 tile operands (%s), found %d",
				  tc->inst.spelling,
				  tc->inst.mnem == PTXMN_LDMATRIX
					  ? "registers, shared"
					  : "shared, registers", tc->nops);
	return true;
}

static bool
is_local(const TileOperand *op)
{
	return !op->scalar && op->root->scope == MS_LOCAL;
}

static bool
check_order(TileEnv *e, TileCall *tc, TileOperand *reg, TileOperand *mem,
	    bool is_ld)
{
	if (mem->scalar || reg->scalar)
		return diag_error(e->c, PT_E_TILE_SCALAR_OPERAND,
				  (reg->scalar ? reg : mem)->span,
				  "operand %d of %s must be a tensor, found a "
				  "scalar expression",
				  (reg->scalar ? reg : mem)->index,
				  tc->inst.spelling);
	if (!is_local(reg) || is_local(mem))
		return diag_error(e->c, PT_E_LDM_ORDER, reg->span,
				  "%s takes %s; operand %d (%s) is %s memory "
				  "and operand %d (%s) is %s memory",
				  tc->inst.mnemonic,
				  is_ld ? "(registers, shared)"
					: "(shared, registers)",
				  reg->index, reg->root->name,
				  memscope_name(reg->root->scope), mem->index,
				  mem->root->name,
				  memscope_name(mem->root->scope));
	return true;
}

/* Atom suffix (count, 8, 4) of 32-bit elements. */
static bool
check_atom(TileEnv *e, TileCall *tc, TileOperand *op, int count)
{
	Ctx *c = e->c;
	const int64_t *x = op->ext + op->rank - 3;
	if (op->rank < tc->ngroup + 3 || x[0] != count || x[1] != 8 ||
	    x[2] != 4)
		return diag_error(c, PT_E_LDM_ATOM_SHAPE, op->span,
				  "operand %d (%s) has shape %s: %s needs the "
				  "atom (matrix, row, word) = (%d, 8, 4) last, "
				  "after %d group axes", op->index,
				  op->root->name,
				  tile_coord_str(&c->arena, op->ext, op->rank),
				  tc->inst.spelling, count, tc->ngroup);
	if (op->bits != 32)
		return diag_error(c, PT_E_LDM_DTYPE, op->span,
				  "operand %d (%s) has %d-bit elements (%s): "
				  "%s operands are 32-bit containers of two "
				  "16-bit values (use a .view(\"uint32\"))",
				  op->index, op->root->name, op->bits,
				  dtype_name(op->dtype), tc->inst.spelling);
	return true;
}

/* .trans transposes 16-bit elements: the storage must hold 16-bit
 * values or 32-bit containers of any 32-bit dtype (the reference's b32
 * container: uint32/int32/float32 as bits); narrower storage (8-bit
 * values seen through a 32-bit view) would be split by the transpose. */
static bool
check_trans(TileEnv *e, TileCall *tc, const TileOperand *op)
{
	DType t = op->root->dtype;
	int bits = dtype_bits(t);
	if (bits == 16 || bits == 32)
		return true;
	return diag_error(e->c, PT_E_LDM_TRANS, op->span,
			  "%s transposes 8x8 matrices of 16-bit elements, "
			  "but operand %d (%s) stores %d-bit %s values: a "
			  "transpose would split them; drop .trans or use "
			  "16-bit or 32-bit storage", tc->inst.spelling,
			  op->index, op->root->name, bits, dtype_name(t));
}

/* Register (matrix, row) of lane l: (l/8 % count, l % 8). */
static Expr *
lane_part(Ctx *c, int shift, int64_t mask, Span sp)
{
	Expr *l = tile_builtin0(c, BI_LANE_ID, sp);
	if (shift)
		l = tile_binop(c, BIN_SHR, l, tile_int(c, shift, sp),
			       DT_INT32, sp);
	return tile_binop(c, BIN_BAND, l, tile_int(c, mask, sp), DT_INT32,
			  sp);
}

/* The reference's expansion on a view codegen indexes logically:
 * &smem[group..., t..., (l // 8) % N, l % 8, 0]. */
static Expr *
logical_ptr(Ctx *c, const TileCall *tc, const TileOperand *op, int64_t t,
	    int count, Span sp)
{
	Expr *x = ir_new_expr(c, EX_PTR_TO, ET_SCALAR, DT_UINT64, sp);
	x->u.access.base = op->expr;
	ExprVec *idx = &x->u.access.indices;
	for (int i = 0; i < tc->ngroup; i++) {
		Expr *g = tc->group[i].hw;
		if (tc->group[i].lo)
			g = tile_binop(c, BIN_SUB, g,
				       tile_int(c, tc->group[i].lo, sp),
				       DT_INT32, sp);
		vec_push(&c->arena, idx, g);
	}
	int64_t rc[64];
	for (int i = tc->nrepeat - 1; i >= 0; i--) {
		rc[i] = t % tc->repeat[i];
		t /= tc->repeat[i];
	}
	for (int i = 0; i < tc->nrepeat; i++)
		vec_push(&c->arena, idx, tile_int(c, rc[i], sp));
	vec_push(&c->arena, idx, count == 1 ? tile_int(c, 0, sp)
					    : lane_part(c, 3, count - 1, sp));
	vec_push(&c->arena, idx, lane_part(c, 0, 7, sp));
	vec_push(&c->arena, idx, tile_int(c, 0, sp));
	return x;
}

static Expr *
add_term(Ctx *c, Expr *sum, Expr *part, int64_t scale, Span sp)
{
	if (scale == 0)
		return sum;
	if (scale != 1)
		part = tile_binop(c, BIN_MUL, part, tile_int(c, scale, sp),
				  DT_INT32, sp);
	return tile_binop(c, BIN_ADD, sum, part, DT_INT32, sp);
}

/* Storage offset of lane l's row at repeat t on a view codegen reaches
 * only through the m axis: row (0,0)'s start plus a per-lane delta.  The
 * deltas must be constant and a sum over the lane's bits (affine in
 * (matrix, row), or an XOR swizzle of a fixed column); rows[] holds the
 * 8*count row starts of repeat t. */
static bool
lane_offset(TileEnv *e, TileCall *tc, TileOperand *op, int64_t t,
	    int count, const Lin *rows, Expr **out, int64_t *konst)
{
	Ctx *c = e->c;
	int64_t delta[32], bit[5];
	for (int l = 0; l < 32; l++) {
		int row = (l / 8) % count * 8 + l % 8;
		Lin d = lin_sub(&e->st, rows[row], rows[0]);
		if (!lin_is_const(d))
			return diag_error(c, PT_E_LDM_ROW_ADDR, op->span,
					  "%s: row (%d, %d) of operand %d "
					  "(%s) at repeat %lld lies at a "
					  "symbolic offset %s from row (0, 0); "
					  "rows of one instruction must differ "
					  "by constants", tc->inst.spelling,
					  row / 8, row % 8, op->index,
					  op->root->name, (long long)t,
					  lin_str(&e->st, d));
		delta[l] = d.c0;
	}
	for (int b = 0; b < 5; b++)
		bit[b] = delta[1 << b];
	for (int l = 0; l < 32; l++) {
		int64_t s = 0;
		for (int b = 0; b < 5; b++)
			if (l & (1 << b))
				s += bit[b];
		if (s != delta[l])
			return diag_error(c, PT_E_LDM_ROW_ADDR, op->span,
					  "%s: the row addresses of operand %d "
					  "(%s) at repeat %lld are not a sum "
					  "over the lane's bits (lane %d row "
					  "at +%lld words, expected +%lld); "
					  "index the shared tensor without a "
					  "reshape so the layout is applied "
					  "per lane", tc->inst.spelling,
					  op->index, op->root->name,
					  (long long)t, l, (long long)delta[l],
					  (long long)s);
	}
	/* the constant part of row (0, 0) stays out of the index: the
	 * address is &storage[variable part] + constant bytes, one base
	 * register for every repeat of the call ([reg+imm]) */
	Span sp = op->span;
	Lin base = rows[0];
	*konst = base.c0;
	base.c0 = 0;
	Expr *sum = tile_lin_expr(e, base, sp);
	if (!sum)
		return diag_error(c, PT_E_LDM_ROW_ADDR, op->span,
				  "%s: the row addresses of operand %d (%s) "
				  "use a quotient the prover made and cannot "
				  "be written back as IR", tc->inst.spelling,
				  op->index, op->root->name);
	if (bit[1] == 2 * bit[0] && bit[2] == 4 * bit[0]) {
		sum = add_term(c, sum, lane_part(c, 0, 7, sp), bit[0], sp);
	} else {
		for (int b = 0; b < 3; b++)
			sum = add_term(c, sum, lane_part(c, b, 1, sp), bit[b],
				       sp);
	}
	if (bit[4] == 2 * bit[3]) {
		sum = add_term(c, sum, lane_part(c, 3, 3, sp), bit[3], sp);
	} else {
		for (int b = 3; b < 5; b++)
			sum = add_term(c, sum, lane_part(c, b, 1, sp), bit[b],
				       sp);
	}
	*out = sum;
	return true;
}

/* Rows: four consecutive 16-byte-aligned words each (checked as memory
 * atoms over the repeat axes extended by (matrix, row)); then the
 * per-lane address of every repeat. */
static bool
check_rows(TileEnv *e, TileCall *tc, TileOperand *mem, int count)
{
	Ctx *c = e->c;
	TileCall rows = *tc;
	rows.nrepeat = tc->nrepeat + 2;
	rows.repeat = NEWN(&c->arena, int64_t, rows.nrepeat + 1);
	memcpy(rows.repeat, tc->repeat, sizeof(int64_t) * tc->nrepeat);
	rows.repeat[tc->nrepeat] = count;
	rows.repeat[tc->nrepeat + 1] = 8;
	mem->natom = 4;
	mem->atom_axes = 1;
	mem->own_ptr = true;
	if (!tile_memory_atoms(e, &rows, mem, ptx_addr_space(&tc->inst)))
		return false;
	mem->atom_axes = 3;
	int64_t nrep = tile_repeat_count(tc);
	if (tile_plain_chain(mem->expr)) {
		mem->ptr_x = NEWN(&c->arena, Expr *, nrep + 1);
		for (int64_t t = 0; t < nrep; t++)
			mem->ptr_x[t] = logical_ptr(c, tc, mem, t, count,
						    mem->span);
		return true;
	}
	Expr **off = NEWN(&c->arena, Expr *, nrep + 1);
	int64_t *konst = NEWN(&c->arena, int64_t, nrep + 1);
	for (int64_t t = 0; t < nrep; t++)
		if (!lane_offset(e, tc, mem, t, count,
				 mem->addr + t * 8 * count, &off[t], &konst[t]))
			return false;
	mem->addr_x = off;
	Expr **ptr = NEWN(&c->arena, Expr *, nrep + 1);
	for (int64_t t = 0; t < nrep; t++) {
		ptr[t] = tile_mem_ptr(c, tc, mem, t, mem->span);
		if (konst[t])
			ptr[t] = tile_binop(c, BIN_ADD, ptr[t],
					    tile_int(c, konst[t] * 4, mem->span),
					    ptr[t]->dtype, mem->span);
	}
	mem->ptr_x = ptr;
	return true;
}

bool
tile_check_ldmatrix(TileEnv *e, TileCall *tc)
{
	bool is_ld = tc->inst.mnem == PTXMN_LDMATRIX;
	if (!check_form(e, tc) || !tile_select_form(e, tc, 0) ||
	    !ptx_check_target(e->c, &tc->inst, tc->span) ||
	    !tile_warp_collective(e, tc))
		return false;
	int count = tc->inst.vec;
	TileOperand *reg = &tc->ops[is_ld ? 0 : 1];
	TileOperand *mem = &tc->ops[is_ld ? 1 : 0];
	if (!check_order(e, tc, reg, mem, is_ld))
		return false;
	reg->role = ROLE_REG;
	reg->out = is_ld;
	reg->ptx_op = is_ld ? 0 : 1;
	mem->role = ROLE_MEM;
	mem->out = !is_ld;
	mem->ptx_op = is_ld ? 1 : 0;
	/* operand 0 (the destination) sets the repeat shape */
	for (int i = 0; i < 2; i++) {
		TileOperand *op = &tc->ops[i];
		op->atom_axes = 3;
		op->natom = 4;
		if (!check_atom(e, tc, op, count) ||
		    !tile_shape_operand(e, tc, op))
			return false;
		if (ptx_has(&tc->inst, PQ_TRANS) &&
		    !check_trans(e, tc, op))
			return false;
	}
	if (!tile_collective_slots(e, tc, reg, 3, count, owner_map, NULL,
				   PT_E_LDM_OWNER) ||
	    !check_rows(e, tc, mem, count))
		return false;
	tc->count = tile_repeat_count(tc);
	return tile_check_overlap(e, tc);
}
