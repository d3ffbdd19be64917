/*
 * setmaxnreg_lint.c - a setmaxnreg.dec that ptxas 13.0 refuses whatever
 * it allocates (C7406: "setmaxnreg.dec has register count (N) which is
 * larger than the largest temporal register count in the program"):
 *   PT_E_PTX_SETMAXNREG_DEC_ABOVE  the count of a setmaxnreg.dec (256
 *                                  reads as 255, the per-thread limit)
 *                                  is above both every setmaxnreg.inc
 *                                  count of the kernel and the most
 *                                  registers the kernel can start with.
 * The start count is ptxas's choice; what bounds it (measured with
 * ptxas 13.0 on sm_90a): .maxnreg when given; otherwise the share of one
 * SM sub-partition (16384 registers, a quarter of the SM) for the warps
 * min_blocks_per_sm blocks put there, in steps of 8; at most 255.  With
 * .maxnreg and .minnctapersm both given ptxas takes the smaller, and
 * with a setmaxnreg.inc it compares with the largest inc count alone;
 * this check uses the larger bound each time, so it never refuses what
 * ptxas accepts and leaves those cases to ptxas.
 */
#include "tile/tile.h"

typedef struct NregUse {
	int64_t max_inc;   /* largest setmaxnreg.inc count, 0: none */
	const Expr *worst; /* the setmaxnreg.dec with the largest count */
	int64_t worst_n;   /* its count as ptxas reads it */
} NregUse;

/* The count of a setmaxnreg call, read as ptxas does (256 is 255);
 * false when it is not a literal (codegen judges that). */
static bool
count_of(const Expr *x, int64_t *n)
{
	if (x->u.ptx.args.n != 1 || x->u.ptx.args.v[0]->kind != EX_INT)
		return false;
	*n = x->u.ptx.args.v[0]->u.ival;
	if (*n > 255)
		*n = 255;
	return true;
}

static void
visit_expr(NregUse *u, const Expr *x)
{
	int64_t n;
	if (!x || x->kind != EX_PTX || !count_of(x, &n))
		return;
	const PtxInst *in = ir_ptx_form(x);
	if (!in || in->mnem != PTXMN_SETMAXNREG)
		return;
	if (ptx_has(in, PQ_INC) && n > u->max_inc)
		u->max_inc = n;
	if (ptx_has(in, PQ_DEC) && (!u->worst || n > u->worst_n)) {
		u->worst = x;
		u->worst_n = n;
	}
}

static void
visit_block(NregUse *u, const Block *b)
{
	for (size_t i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];
		switch (s->kind) {
		case ST_EVAL:
			visit_expr(u, s->u.value);
			break;
		case ST_FOR:
			visit_block(u, &s->u.loop.body);
			break;
		case ST_WHILE:
			visit_block(u, &s->u.whil.body);
			break;
		case ST_IF:
			visit_block(u, &s->u.cond.then);
			visit_block(u, &s->u.cond.els);
			break;
		default:
			break;
		}
	}
}

/* The most registers per thread the kernel can start with, and why. */
static int64_t
start_cap(const TileEnv *e, const char **why)
{
	const Launch *l = &e->f->launch;
	if (l->max_registers > 0) {
		*why = "max_registers_per_thread";
		return l->max_registers < 255 ? l->max_registers : 255;
	}
	*why = "the per-thread limit";
	if (e->nthreads <= 0)
		return 255;
	int64_t blocks = l->min_blocks_per_sm > 0 ? l->min_blocks_per_sm : 1;
	int64_t warps = (e->nthreads + 31) / 32;
	if (warps > INT64_MAX / blocks)
		return 8;
	/* the warps of the resident blocks spread over 4 sub-partitions */
	int64_t per_part = (warps * blocks + 3) / 4;
	int64_t cap = 16384 / (32 * per_part) / 8 * 8;
	if (cap >= 255)
		return 255;
	*why = "the block size and min_blocks_per_sm";
	return cap;
}

void
tile_setmaxnreg_lint(TileEnv *e, const Func *f)
{
	NregUse u = {0};
	visit_block(&u, &f->body);
	if (!u.worst)
		return;
	const char *why = "";
	int64_t cap = start_cap(e, &why);
	if (u.worst_n <= cap || u.worst_n <= u.max_inc)
		return;
	diag_error(e->c, PT_E_PTX_SETMAXNREG_DEC_ABOVE, u.worst->span,
		   "setmaxnreg.dec to %lld registers per thread (%lld to "
		   "ptxas), but the kernel starts with at most %lld (%s) and "
		   "no setmaxnreg.inc raises it that far: ptxas refuses a "
		   "decrease above the largest register count of the program",
		   (long long)u.worst->u.ptx.args.v[0]->u.ival,
		   (long long)u.worst_n, (long long)cap, why);
}
