/*
 * Unit tests of the tcgen05.ld/st tile family: a host model of the
 * documented TMEM <-> register data movement, independent of the
 * lowering.  Each script moves one warpgroup's tile with one shape; the
 * test lowers it, evaluates every issue's TMEM address for each warp,
 * and, per thread and register of the issued instruction, computes the
 * TMEM (lane, column) the hardware touches from the PTX ISA's fragment
 * description (ptx_facts §3.5, written per repetition: g = t/4, c = t%4,
 * .xN repeats the x1 pattern N times to the right) and the encoded
 * address (lane in bits 31..16, column in 15..0).  That cell must be
 * where the script's TMEM layout puts the logical element that the
 * register layout puts in that thread's register slot.
 */
#include <stdio.h>
#include <string.h>

#include "tile/program.h"
#include "ir/ir.h"
#include "tile/tile.h"
#include "test.h"

#define HEAD                                                                 \
	"from tvm_tirx.script import tirx as T\n"                           \
	"from tvm_tirx.tirx.layout import S, TileLayout, TLane, TCol\n"     \
	"from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg\n"        \
	"@T.function\n"                                                     \
	"def k():\n"                                                        \
	"    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))\n" \
	"    slot = T.alloc_shared((1,), \"uint32\", align=4)\n"            \
	"    taddr = slot[0]\n"                                             \
	"    R = T.alloc_local((16,), \"uint32\", layout=\"default\")\n"

/* ---- the host model: (thread, register) -> TMEM cell ---- */

enum { SH_32X32B, SH_16X64B, SH_16X128B, SH_16X256B, SH_16X32BX2 };

/* Cell (lane, column) relative to the address that register `reg` of
 * lane t touches; *second: the 16x32bx2 access at address + imm. */
static void
model_cell(int shape, int t, int reg, int *lane, int *col, bool *second)
{
	int g = t / 4, c = t % 4;
	*second = false;
	switch (shape) {
	case SH_32X32B: /* one register per repetition, 1 column wide */
		*lane = t;
		*col = reg;
		break;
	case SH_16X64B: { /* 1 register, 2 columns per repetition */
		int rep = reg;
		*lane = g + ((t & 1) ? 8 : 0);
		*col = 2 * rep + ((t >> 1) & 1);
		break;
	}
	case SH_16X128B: { /* 2 registers, 4 columns per repetition */
		int rep = reg / 2, k = reg % 2;
		*lane = k == 0 ? g : g + 8;
		*col = 4 * rep + c;
		break;
	}
	case SH_16X256B: { /* 4 registers, 8 columns per repetition */
		int rep = reg / 4, k = reg % 4;
		*lane = k < 2 ? g : g + 8;
		*col = 8 * rep + 2 * c + (k & 1);
		break;
	}
	default: /* 16x32bx2: two 16-lane accesses of 1 column */
		*second = t >= 16;
		*lane = t % 16;
		*col = reg;
		break;
	}
}

/* ---- evaluating a lowered address for one thread ---- */

static bool
eval(const Expr *x, int warp, int lane, int64_t *v)
{
	int64_t a, b;
	switch (x->kind) {
	case EX_INT:
		return ir_const_int(x, v);
	case EX_VAR: /* the TMEM base (allocated_addr): lane 0, column 0 */
		*v = 0;
		return strcmp(x->u.var->name, "taddr") == 0;
	case EX_CAST:
		return eval(x->u.op.a, warp, lane, v);
	case EX_BUILTIN:
		if (x->u.call.id == BI_WARP_ID)
			*v = warp;
		else if (x->u.call.id == BI_LANE_ID)
			*v = lane;
		else
			return false;
		return true;
	case EX_BINARY:
		if (!eval(x->u.op.a, warp, lane, &a) ||
		    !eval(x->u.op.b, warp, lane, &b))
			return false;
		switch (x->u.op.op) {
		case BIN_ADD: *v = a + b; return true;
		case BIN_SUB: *v = a - b; return true;
		case BIN_MUL: *v = a * b; return true;
		case BIN_FLOORDIV: *v = a / b; return true;
		case BIN_MOD: *v = a % b; return true;
		case BIN_SHL: *v = a << b; return true;
		case BIN_SHR: *v = a >> b; return true;
		case BIN_BAND: *v = a & b; return true;
		default: return false;
		}
	default:
		return false;
	}
}

/* ---- the script's intent: layouts of the operands ---- */

typedef struct Side {
	const Layout *l;
	int64_t shape[8];
	int ndim;
	int64_t n; /* elements */
} Side;

static bool
side_of(const Expr *x, Side *s)
{
	const ExprVec *sh;
	while (x->kind == EX_BUF && x->u.buf->kind == BK_VIEW && x->u.buf->view)
		x = x->u.buf->view;
	if (x->kind == EX_VIEW_RESHAPE) {
		s->l = x->u.view.layout;
		sh = &x->u.view.shape;
	} else if (x->kind == EX_BUF) {
		s->l = x->u.buf->layout;
		s->ndim = x->u.buf->ndim;
		s->n = 1;
		for (int i = 0; i < s->ndim; i++)
			if (!ir_const_int(x->u.buf->shape[i], &s->shape[i]))
				return false;
		for (int i = 0; i < s->ndim; i++)
			s->n *= s->shape[i];
		return true;
	} else {
		return false;
	}
	s->ndim = (int)sh->n;
	s->n = 1;
	for (int i = 0; i < s->ndim; i++) {
		if (!ir_const_int(sh->v[i], &s->shape[i]))
			return false;
		s->n *= s->shape[i];
	}
	return true;
}

/* The cell (lane, 32-bit column) of TMEM element `flat`; 16-bit
 * elements count TCol in halves and must sit in a cell's low half. */
static void
tmem_cell(const Side *s, int64_t flat, int bits, int64_t *lane,
	  int64_t *col, bool *low)
{
	PhysCoord p;
	layout_eval_flat(s->l, flat, 0, &p);
	*lane = p.v[AX_TLANE];
	*col = bits == 16 ? p.v[AX_TCOL] / 2 : p.v[AX_TCOL];
	*low = bits == 32 || p.v[AX_TCOL] % 2 == 0;
}

typedef struct Case {
	const char *body;   /* statements after HEAD */
	int shape;
	int n;              /* .xN */
	bool pack, is_ld, split;
	int64_t imm;
	int issues;         /* expected instructions */
} Case;

/* Compiles c's script, then checks every (issue, warp, lane, register)
 * against the model.  Returns the number of register words checked. */
static int64_t
run_case(TestCtx *t, const Case *k)
{
	Ctx *c = pt_ctx_new(NULL);
	c->target = TGT_SM_100A;
	const char *src = arena_printf(&c->arena, "%s%s", HEAD, k->body);
	Module *m = frontend_load(c, "k.py", src, strlen(src));
	CHECK(m != NULL && c->nerrors == 0);
	if (!m || c->nerrors) {
		pt_ctx_free(c);
		return 0;
	}
	TileProgram *prog = check_module(c, m);
	CHECK_INT((int)c->nerrors, 0);
	CHECK_INT((int)prog->calls.n, 1);
	if (c->nerrors || prog->calls.n != 1) {
		pt_ctx_free(c);
		return 0;
	}
	const TileCall *tc = prog->calls.v[0];
	int nmem = k->split ? 2 : 1;
	const TileOperand *rop = &tc->ops[k->is_ld ? 0 : nmem];
	Side reg, mem[2];
	CHECK(side_of(rop->expr, &reg));
	for (int i = 0; i < nmem; i++)
		CHECK(side_of(tc->ops[k->is_ld ? 1 + i : i].expr, &mem[i]));
	int mbits = k->pack ? 16 : 32;
	/* owner[(w*32 + l) * 16 + slot] = logical register element */
	int64_t owner[128 * 16];
	for (int i = 0; i < 128 * 16; i++)
		owner[i] = -1;
	for (int64_t f = 0; f < reg.n; f++) {
		PhysCoord p;
		layout_eval_flat(reg.l, f, 0, &p);
		int64_t th = p.v[AX_WID_IN_WG] * 32 + p.v[AX_LANEID];
		owner[th * 16 + p.v[AX_M]] = f;
	}
	tile_lower_module(c, m, prog);
	CHECK_INT((int)c->nerrors, 0);
	const Block *b = &m->funcs.v[0]->body;
	int issues = 0;
	int64_t checked = 0;
	const char *mn = k->is_ld ? "tcgen05.ld" : "tcgen05.st";
	for (size_t si = 0; si < b->n; si++) {
		const Stmt *s = b->v[si];
		if (s->kind != ST_EVAL || s->u.value->kind != EX_PTX ||
		    strncmp(s->u.value->u.ptx.spelling, mn, 10) != 0)
			continue;
		const ExprVec *args = &s->u.value->u.ptx.args;
		const Expr *tup = args->v[k->is_ld ? 0 : args->n - 1];
		const Expr *addr = args->v[k->is_ld ? 1 : 0];
		CHECK(tup->kind == EX_TUPLE);
		if (k->split) {
			int64_t imm = -1;
			CHECK(ir_const_int(args->v[k->is_ld ? 2 : 1], &imm));
			CHECK_INT(imm, k->imm);
		}
		for (int w = 0; w < 4; w++) {
			for (int l = 0; l < 32; l++) {
				int64_t a = 0;
				CHECK(eval(addr, w, l, &a));
				for (size_t r = 0; r < tup->u.tuple.n; r++) {
					const Expr *x = tup->u.tuple.v[r];
					int64_t slot = -1;
					CHECK(x->kind == EX_LOAD &&
					      x->u.access.indices.n == 1 &&
					      ir_const_int(x->u.access.indices.v[0],
							   &slot));
					int ml, mc;
					bool second;
					model_cell(k->shape, l, (int)r, &ml, &mc,
						   &second);
					int64_t ea = a + (second ? k->imm : 0);
					int64_t hl = (ea >> 16) + ml;
					int64_t hc = (ea & 0xffff) +
						     (k->pack ? 2 * mc : mc);
					int64_t f = owner[(w * 32 + l) * 16 + slot];
					CHECK(f >= 0);
					if (f < 0)
						continue;
					/* the TMEM element: for split forms the
					 * access axis picks the half; packed
					 * words hold elements 2f and 2f + 1 */
					const Side *ms = &mem[0];
					int64_t per = reg.n / (k->split ? 2 : 1);
					if (k->split) {
						int64_t acc = f / (per / 4) % 2;
						ms = &mem[acc];
						f = f / (2 * (per / 4)) * (per / 4) +
						    f % (per / 4);
					}
					for (int h = 0; h < (k->pack ? 2 : 1); h++) {
						int64_t el, ec;
						bool low;
						tmem_cell(ms, k->pack ? 2 * f + h : f,
							  mbits, &el, &ec, &low);
						CHECK(low);
						CHECK_INT(hl, el);
						CHECK_INT(hc + h, ec);
						checked++;
					}
				}
			}
		}
		issues++;
	}
	CHECK_INT(issues, k->issues);
	pt_ctx_free(c);
	return checked;
}

TEST(tcgen05_32x32b_x2_repeats_permuted_slots)
{
	/* slot = repeat + 2*column; repeats step 2 columns from column 4 */
	Case k = {
		"    mem = T.decl_buffer((4, 2, 32, 2), \"uint32\", scope=\"tmem\", allocated_addr=taddr, layout=TileLayout(S[(4, 2, 32, 2):(32@TLane, 2@TCol, 1@TLane, 1@TCol)] + 4@TCol))\n"
		"    T.cuda.tile.apply(T.ptx[\"tcgen05.ld.sync.aligned.32x32b.x2.b32\"], R.view(4, 2, 32, 2, layout=TileLayout(S[(4, 2, 32, 2):(1@wid_in_wg, 1, 1@laneid, 2)])), mem, scope=\"warpgroup\")\n",
		SH_32X32B, 2, false, true, false, 0, 2};
	CHECK_INT(run_case(t, &k), 2 * 128 * 2);
}

TEST(tcgen05_16x64b_x2_upper_half)
{
	Case k = {
		"    mem = T.decl_buffer((4, 16, 4), \"uint32\", scope=\"tmem\", allocated_addr=taddr, layout=TileLayout(S[(4, 16, 4):(32@TLane, 1@TLane, 1@TCol)] + 16@TLane + 8@TCol))\n"
		"    T.cuda.tile.apply(T.ptx[\"tcgen05.ld.sync.aligned.16x64b.x2.b32\"], R.view(4, 16, 4, layout=TileLayout(S[(4, 2, 8, 2, 2):(1@wid_in_wg, 1@laneid, 4@laneid, 1, 2@laneid)])), mem, scope=\"warpgroup\")\n",
		SH_16X64B, 2, false, true, false, 0, 1};
	CHECK_INT(run_case(t, &k), 128 * 2);
}

TEST(tcgen05_16x128b_x2_store)
{
	/* lane 4*rl + c4 holds rows 8*rh + rl, columns 4*cq + c4 at slot
	 * 2*rh + cq */
	Case k = {
		"    mem = T.decl_buffer((4, 16, 8), \"uint32\", scope=\"tmem\", allocated_addr=taddr, layout=TileLayout(S[(4, 16, 8):(32@TLane, 1@TLane, 1@TCol)] + 2@TCol))\n"
		"    T.cuda.tile.apply(T.ptx[\"tcgen05.st.sync.aligned.16x128b.x2.b32\"], mem, R.view(4, 16, 8, layout=TileLayout(S[(4, 2, 8, 2, 4):(1@wid_in_wg, 2, 4@laneid, 1, 1@laneid)])), scope=\"warpgroup\")\n",
		SH_16X128B, 2, false, false, false, 0, 1};
	CHECK_INT(run_case(t, &k), 128 * 4);
}

TEST(tcgen05_16x256b_x2_permuted_slots)
{
	Case k = {
		"    mem = T.decl_buffer((4, 16, 16), \"uint32\", scope=\"tmem\", allocated_addr=taddr, layout=TileLayout(S[(4, 16, 16):(32@TLane, 1@TLane, 1@TCol)] + 16@TLane))\n"
		"    T.cuda.tile.apply(T.ptx[\"tcgen05.ld.sync.aligned.16x256b.x2.b32\"], R.view(4, 16, 16, layout=TileLayout(S[(4, 2, 8, 2, 4, 2):(1@wid_in_wg, 1, 4@laneid, 2, 1@laneid, 4)])), mem, scope=\"warpgroup\")\n",
		SH_16X256B, 2, false, true, false, 0, 1};
	CHECK_INT(run_case(t, &k), 128 * 8);
}

TEST(tcgen05_32x32b_x2_pack_16b)
{
	/* 16-bit view: column c, half h at TCol unit 4*c + 2*h, from cell 4 */
	Case k = {
		"    mem = T.decl_buffer((4, 32, 2, 2), \"uint16\", scope=\"tmem\", allocated_addr=taddr, layout=TileLayout(S[(4, 32, 2, 2):(32@TLane, 1@TLane, 4@TCol, 2@TCol)] + 8@TCol))\n"
		"    T.cuda.tile.apply(T.ptx[\"tcgen05.ld.sync.aligned.32x32b.x2.pack::16b.b32\"], R.view(4, 32, 2, layout=TileLayout(S[(4, 32, 2):(1@wid_in_wg, 1@laneid, 1)])), mem, scope=\"warpgroup\")\n",
		SH_32X32B, 2, true, true, false, 0, 1};
	CHECK_INT(run_case(t, &k), 128 * 2 * 2);
}

TEST(tcgen05_16x32bx2_x2_split_load_and_store)
{
	const char *decl =
		"    lo = T.decl_buffer((4, 16, 2), \"uint32\", scope=\"tmem\", allocated_addr=taddr, layout=TileLayout(S[(4, 16, 2):(32@TLane, 1@TLane, 1@TCol)]))\n"
		"    hi = T.decl_buffer((4, 16, 2), \"uint32\", scope=\"tmem\", allocated_addr=taddr, layout=TileLayout(S[(4, 16, 2):(32@TLane, 1@TLane, 1@TCol)] + 16@TLane + 8@TCol))\n"
		"    regs = R.view(4, 2, 16, 2, layout=TileLayout(S[(4, 2, 16, 2):(1@wid_in_wg, 16@laneid, 1@laneid, 1)]))\n";
	Case ld = {NULL, SH_16X32BX2, 2, false, true, true, (16 << 16) + 8, 1};
	Case st = ld;
	char buf[2048];
	snprintf(buf, sizeof buf, "%s%s", decl,
		 "    T.cuda.tile.apply(T.ptx[\"tcgen05.ld.sync.aligned.16x32bx2.x2.b32\"], regs, lo, hi, imm_half_splitoff=(16 << 16) + 8, scope=\"warpgroup\")\n");
	ld.body = buf;
	CHECK_INT(run_case(t, &ld), 128 * 2);
	char buf2[2048];
	snprintf(buf2, sizeof buf2, "%s%s", decl,
		 "    T.cuda.tile.apply(T.ptx[\"tcgen05.st.sync.aligned.16x32bx2.x2.b32\"], lo, hi, regs, imm_half_splitoff=(16 << 16) + 8, scope=\"warpgroup\")\n");
	st.body = buf2;
	st.is_ld = false;
	CHECK_INT(run_case(t, &st), 128 * 2);
}

/* The model itself against the reference's table (two rows by hand):
 * 16x256b lane 5 (g 1, c 1) register 3 is (g + 8, 2c + 1) = (9, 3);
 * 16x64b lane 3 register 1 is (0 + 8, 2 + 1) = (8, 3). */
TEST(tcgen05_model_spot_values)
{
	int l, c;
	bool second;
	model_cell(SH_16X256B, 5, 3, &l, &c, &second);
	CHECK_INT(l, 9);
	CHECK_INT(c, 3);
	model_cell(SH_16X64B, 3, 1, &l, &c, &second);
	CHECK_INT(l, 8);
	CHECK_INT(c, 3);
	model_cell(SH_16X32BX2, 20, 1, &l, &c, &second);
	CHECK(second);
	CHECK_INT(l, 4);
	CHECK_INT(c, 1);
}
