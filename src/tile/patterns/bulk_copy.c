/*
 * bulk_copy.c - cluster shared copies, cp.async.bulk.shared::cluster.
 * shared::cta.mbarrier::complete_tx::bytes (reference "Asynchronous
 * cluster shared copies").
 *
 * Operands: dst_shared, src_shared, each (*group, *repeat, element) whose
 * final axis holds exactly chunk_bytes (a positive multiple of 16) bytes
 * of whole elements; each chunk is one run of consecutive bytes starting
 * 16-byte aligned on its own side (outer strides may differ).  A chunk
 * that crosses a physical gap is rejected, never split.  mbar is the
 * local shared address of the destination CTA's barrier, remote_cta_id
 * the destination rank in the launch cluster; both are required, and so
 * is an explicit launch cluster.
 *
 * Output (lower hook): mapa of mbar to the remote CTA once, then per
 * row-major repeat a mapa of the destination atom pointer and one bulk
 * copy [mapped dst], [local src], chunk_bytes, [mapped mbar].  Barrier
 * initialisation, expected-transaction accounting, fences, issuer
 * election and cluster synchronisation stay with the caller.
 */
#include <string.h>

#include "tile/tile.h"

enum { BK_DST, BK_SRC };

static bool
is_shared(MemScope s)
{
	return s == MS_SHARED || s == MS_SHARED_DYN;
}

static int64_t
cluster_ctas(const Func *f)
{
	int64_t n = 1;
	for (int i = 0; i < f->launch.ncluster; i++)
		n *= f->launch.cluster[i];
	return n;
}

static bool
check_params(TileEnv *e, TileCall *tc, int64_t *chunk)
{
	Ctx *c = e->c;
	static const struct {
		int id;
		const char *what;
	} req[] = {
		{TP_CHUNK_BYTES, "chunk_bytes=<multiple of 16>"},
		{TP_MBAR, "mbar=<barrier>.ptr_to([...]) (the local address "
			  "of the destination CTA's barrier)"},
		{TP_REMOTE_CTA_ID, "remote_cta_id=<rank in the cluster>"},
	};
	for (size_t i = 0; i < countof(req); i++)
		if (!tc->param[req[i].id])
			return diag_error(c, PT_E_TILE_PARAM_REQUIRED, tc->span,
					  "%s needs %s", tc->inst.spelling,
					  req[i].what);
	Expr *x = tc->param[TP_CHUNK_BYTES];
	ir_const_int(x, chunk);
	if (*chunk <= 0 || *chunk % 16 != 0)
		return diag_error(c, PT_E_BULK_CHUNK_BYTES, x->span,
				  "chunk_bytes=%lld: a bulk copy moves a "
				  "positive multiple of 16 bytes",
				  (long long)*chunk);
	return true;
}

/* mbar: a ptr_to into a 64-bit shared allocation (never an address
 * already mapped into the cluster window). */
static bool
check_mbar(TileEnv *e, TileCall *tc)
{
	Ctx *c = e->c;
	Expr *m = tc->param[TP_MBAR];
	const Expr *b = m->u.access.base;
	while (b && (b->kind == EX_REGION || b->kind == EX_VIEW_DTYPE ||
		     b->kind == EX_VIEW_RESHAPE))
		b = b->kind == EX_REGION ? b->u.region.base : b->u.view.base;
	const Buffer *buf = b && b->kind == EX_BUF ? b->u.buf : NULL;
	if (!buf || !is_shared(buf->scope))
		return diag_error(c, PT_E_BULK_MBAR, m->span,
				  "mbar must point into a local shared "
				  "allocation (the barrier's counterpart in "
				  "the destination CTA), found %s",
				  buf ? memscope_name(buf->scope)
				      : "another expression");
	if (dtype_bits(buf->dtype) != 64 || dtype_bits(m->dtype) == 0)
		return diag_error(c, PT_E_BULK_MBAR, m->span,
				  "mbar points into %s, a %s allocation; an "
				  "mbarrier is one 64-bit (uint64) word",
				  buf->name, dtype_name(buf->dtype));
	return true;
}

static bool
check_cluster(TileEnv *e, TileCall *tc)
{
	Ctx *c = e->c;
	if (e->f->launch.ncluster == 0)
		return diag_error(c, PT_E_BULK_NO_CLUSTER, tc->span,
				  "%s copies to another CTA of the launch "
				  "cluster, but %s declares no cluster "
				  "(LaunchConfig(..., cluster=...))",
				  tc->inst.spelling, e->f->name);
	int64_t k, n = cluster_ctas(e->f);
	Expr *r = tc->param[TP_REMOTE_CTA_ID];
	if (ir_const_int(r, &k) && (k < 0 || k >= n))
		return diag_error(c, PT_E_BULK_REMOTE_RANK, r->span,
				  "remote_cta_id=%lld, but the launch cluster "
				  "has %lld CTAs (ranks 0..%lld)", (long long)k,
				  (long long)n, (long long)(n - 1));
	return true;
}

static bool
check_spaces(TileEnv *e, TileCall *tc)
{
	for (int i = 0; i < 2; i++) {
		TileOperand *op = &tc->ops[i];
		if (op->scalar)
			return diag_error(e->c, PT_E_TILE_SCALAR_OPERAND,
					  op->span,
					  "operand %d of %s must be a shared "
					  "tensor, found a scalar expression",
					  i, tc->inst.spelling);
		if (!is_shared(op->root->scope))
			return diag_error(e->c, PT_E_BULK_SPACE, op->span,
					  "operand %d (%s) is %s memory, but "
					  "%s copies shared to shared memory "
					  "(operands dst_shared, src_shared; "
					  "global tensors go through TMA)",
					  i, op->root->name,
					  memscope_name(op->root->scope),
					  tc->inst.spelling);
	}
	return true;
}

static bool
select_form(TileEnv *e, TileCall *tc, int64_t chunk)
{
	PtxArg a[4];
	memset(a, 0, sizeof(a));
	a[0].kind = PTXOP_ADDR;
	a[1].kind = PTXOP_ADDR;
	a[2] = (PtxArg){.kind = PTXOP_IMM, .bits = 32, .has_value = true,
			.value = chunk};
	a[3].kind = PTXOP_ADDR;
	return tile_select_form_args(e, tc, a, 4);
}

/* Each chunk must be one run of consecutive storage elements: report
 * the first break (a gap inside the chunk) with the run length, which
 * is the largest chunk the layout allows there. */
static bool
check_runs(TileEnv *e, TileCall *tc, TileOperand *op, int64_t chunk)
{
	Ctx *c = e->c;
	int nr = tc->nrepeat, ng = tc->ngroup;
	int64_t *x = NEWN(&c->arena, int64_t, op->rank + 1);
	int64_t nrep = tile_repeat_count(tc);
	Lin ax[AX_COUNT];
	for (int64_t r = 0; r < nrep; r++) {
		int64_t q = r;
		for (int i = nr - 1; i >= 0; i--) {
			x[ng + i] = q % tc->repeat[i];
			q /= tc->repeat[i];
		}
		x[ng + nr] = 0;
		view_phys_lin(&e->st, op->view, x, 0, ax);
		Lin m0 = ax[AX_M];
		for (int a = 1; a < op->natom; a++) {
			x[ng + nr] = a;
			view_phys_lin(&e->st, op->view, x, 0, ax);
			Lin d = lin_sub(&e->st, ax[AX_M], m0);
			if (lin_is_const(d) && d.c0 == a)
				continue;
			return diag_error(
				c, PT_E_BULK_GAP, op->span,
				"the %lld-byte chunk of operand %d (%s) at "
				"repeat %s is not one contiguous run: element "
				"%d is at storage offset %s from element 0, "
				"expected %d.  One bulk copy moves consecutive "
				"bytes; chunks are never flattened across a gap "
				"or split (here a run holds %lld bytes: make "
				"each run a repeat)", (long long)chunk,
				op->index, op->root->name,
				tile_coord_str(&c->arena, x + ng, nr), a,
				lin_str(&e->st, d), a,
				(long long)a * op->bits / 8);
		}
	}
	return true;
}

static bool
check_side(TileEnv *e, TileCall *tc, TileOperand *op, int64_t chunk)
{
	op->role = ROLE_MEM;
	op->out = op->index == BK_DST;
	op->ptx_op = op->index;
	op->align = 16;
	if (!tile_chunk_shape(e, tc, op, chunk, PT_E_BULK_ATOM_BYTES))
		return false;
	return check_runs(e, tc, op, chunk) &&
	       tile_memory_atoms(e, tc, op, PSP_SHARED);
}

static Expr *
var_ref(Ctx *c, Var *v, Span sp)
{
	Expr *x = ir_new_expr(c, EX_VAR, ET_SCALAR, v->dtype, sp);
	x->u.var = v;
	return x;
}

/* mapa.shared::cluster.u32 v, addr, rank (addr: a local shared ptr_to,
 * emitted as its 32-bit shared-window address). */
static Expr *
mapa(Ctx *c, const TileCall *tc, const char *name, Expr *addr, Block *out)
{
	Span sp = tc->span;
	Var *v = tile_lower_var(c, tc, name, DT_UINT32, out, sp);
	ExprVec a = {0};
	vec_push(&c->arena, &a, var_ref(c, v, sp));
	vec_push(&c->arena, &a, addr);
	vec_push(&c->arena, &a, tc->param[TP_REMOTE_CTA_ID]);
	const PtxInst *row = tile_helper(c, TH_MAPA_SHARED_U32);
	Expr *p = ir_ptx_issue(c, row, a, NULL, sp);
	Stmt *s = ir_new_stmt(c, ST_EVAL, sp);
	s->u.value = p;
	vec_push(&c->arena, out, s);
	return var_ref(c, v, sp);
}

static void
lower_bulk(Ctx *c, const TileCall *tc, Block *out)
{
	Expr *over[PTX_MAX_OPS] = {0};
	over[3] = mapa(c, tc, "bulk_mbar", tc->param[TP_MBAR], out);
	int64_t nrep = tile_repeat_count(tc);
	for (int64_t r = 0; r < nrep; r++) {
		Expr *dst = tile_mem_ptr(c, tc, &tc->ops[BK_DST], r, tc->span);
		over[0] = mapa(c, tc, "bulk_dst", dst, out);
		Stmt *s = ir_new_stmt(c, ST_EVAL, tc->span);
		s->u.value = tile_lower_issue(c, tc, r, over);
		vec_push(&c->arena, out, s);
	}
}

bool
tile_check_bulk_copy(TileEnv *e, TileCall *tc)
{
	Ctx *c = e->c;
	int64_t chunk = 0;
	if (!check_params(e, tc, &chunk) || !check_mbar(e, tc) ||
	    !check_cluster(e, tc))
		return false;
	if (tc->nops != 2)
		return diag_error(c, PT_E_TILE_OPERAND_COUNT, tc->span,
				  "%s takes 2 tile operands (dst_shared, "
				  "src_shared), found %d", tc->inst.spelling,
				  tc->nops);
	if (!check_spaces(e, tc) || !select_form(e, tc, chunk))
		return false;
	/* the destination sets the repeat shape */
	if (!check_side(e, tc, &tc->ops[BK_DST], chunk) ||
	    !check_side(e, tc, &tc->ops[BK_SRC], chunk))
		return false;
	tc->fixed[2] = ir_int(c, chunk, DT_INT32, tc->span);
	tc->count = tile_repeat_count(tc);
	tc->lower = lower_bulk;
	return true;
}
