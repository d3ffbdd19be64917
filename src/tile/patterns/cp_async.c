/*
 * cp_async.c - asynchronous global-to-shared copies, cp.async.ca/.cg
 * (reference "Asynchronous global-to-shared copies").
 *
 * Operands: dst_shared, src_global, each (*group, *repeat, element) whose
 * final axis holds exactly chunk_bytes bytes of whole elements of that
 * operand's own storage dtype (a byte copy: float16 dst and b32 src may
 * meet).  chunk_bytes is a required constant 4, 8 or 16 (.cg: 16); each
 * atom is contiguous and aligned to chunk_bytes on both sides (symbolic
 * starts proved).  Zero fill is an operand form: src_size (0..chunk_bytes)
 * or ignore_src, never both; pred instead suppresses the issue.
 * cache_policy fills the operand of a .L2::cache_hint form.
 *
 * Output: one cp.async per repeat with the atom pointers, the cp-size
 * immediate, the zero-fill operand and the cache policy, in PTX order.
 * No commit_group, wait_group, barrier or election is added.
 */
#include <string.h>

#include "tile/tile.h"

enum { CP_DST, CP_SRC };

static bool
check_chunk(TileEnv *e, TileCall *tc, int64_t *chunk)
{
	Ctx *c = e->c;
	Expr *x = tc->param[TP_CHUNK_BYTES];
	if (!x)
		return diag_error(c, PT_E_TILE_PARAM_REQUIRED, tc->span,
				  "%s needs chunk_bytes=4, 8 or 16: the copy "
				  "width is never inferred from the layout",
				  tc->inst.spelling);
	ir_const_int(x, chunk);
	if (*chunk != 4 && *chunk != 8 && *chunk != 16)
		return diag_error(c, PT_E_CPASYNC_CHUNK_BYTES, x->span,
				  "chunk_bytes=%lld: cp.async copies 4, 8 or 16 "
				  "bytes per instruction", (long long)*chunk);
	if (ptx_has(&tc->inst, PQ_CG) && *chunk != 16)
		return diag_error(c, PT_E_CPASYNC_CHUNK_QUALIFIER, x->span,
				  "chunk_bytes=%lld, but %s copies 16 bytes "
				  "(.cg supports only 16; .ca supports 4, 8 and "
				  "16)", (long long)*chunk, tc->inst.spelling);
	return true;
}

static bool
check_zero_fill(TileEnv *e, TileCall *tc, int64_t chunk)
{
	Ctx *c = e->c;
	Expr *size = tc->param[TP_SRC_SIZE];
	int64_t k;
	if (size && tc->param[TP_IGNORE_SRC])
		return diag_error(c, PT_E_CPASYNC_ZERO_FILL_BOTH,
				  tc->param[TP_IGNORE_SRC]->span,
				  "src_size and ignore_src are alternative "
				  "zero-fill operands; give one (src_size=0 "
				  "also zero-fills the whole chunk)");
	if (size && ir_const_int(size, &k) && (k < 0 || k > chunk))
		return diag_error(c, PT_E_CPASYNC_SRC_SIZE_RANGE, size->span,
				  "src_size=%lld is outside 0..%lld: it is "
				  "the prefix of the %lld-byte chunk read "
				  "from global memory", (long long)k,
				  (long long)chunk, (long long)chunk);
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
		return diag_error(e->c, PT_E_CPASYNC_CACHE_POLICY,
				  tc->cache_policy->span,
				  "cache_policy is given, but %s has no "
				  ".L2::cache_hint qualifier and so no "
				  "cache-policy operand", tc->inst.spelling);
	return true;
}

static bool
is_shared(MemScope s)
{
	return s == MS_SHARED || s == MS_SHARED_DYN;
}

/* Direction first: a shared-to-global request is named as such. */
static bool
check_spaces(TileEnv *e, TileCall *tc)
{
	Ctx *c = e->c;
	TileOperand *dst = &tc->ops[CP_DST], *src = &tc->ops[CP_SRC];
	for (int i = 0; i < 2; i++)
		if (tc->ops[i].scalar)
			return diag_error(c, PT_E_TILE_SCALAR_OPERAND,
					  tc->ops[i].span,
					  "operand %d of %s must be a %s "
					  "tensor, found a scalar expression",
					  i, tc->inst.spelling,
					  i == CP_DST ? "shared" : "global");
	if (dst->root->scope == MS_GLOBAL && is_shared(src->root->scope))
		return diag_error(c, PT_E_CPASYNC_SRC_SPACE, src->span,
				  "cp.async copies global to shared memory "
				  "only, with operands (dst_shared, "
				  "src_global); this call copies shared %s to "
				  "global %s", src->root->name, dst->root->name);
	if (!is_shared(dst->root->scope))
		return diag_error(c, PT_E_CPASYNC_DST_SPACE, dst->span,
				  "operand 0 (%s) is %s memory, but the "
				  "cp.async destination must be shared or "
				  "shared.dyn", dst->root->name,
				  memscope_name(dst->root->scope));
	if (src->root->scope != MS_GLOBAL)
		return diag_error(c, PT_E_CPASYNC_SRC_SPACE, src->span,
				  "operand 1 (%s) is %s memory, but the "
				  "cp.async source must be global",
				  src->root->name,
				  memscope_name(src->root->scope));
	return true;
}

/* Lets the PTX table pick the row for the operands actually given:
 * the src-size row or the ignore-src row, with or without the cache
 * policy.  This also fills the target gate. */
static bool
select_form(TileEnv *e, TileCall *tc, int64_t chunk)
{
	PtxArg a[5];
	int n = 0;
	int64_t k;
	memset(a, 0, sizeof(a));
	a[n++].kind = PTXOP_ADDR;
	a[n++].kind = PTXOP_ADDR;
	a[n] = (PtxArg){.kind = PTXOP_IMM, .bits = 32, .has_value = true,
			.value = chunk};
	n++;
	if (tc->param[TP_SRC_SIZE]) {
		if (ir_const_int(tc->param[TP_SRC_SIZE], &k))
			a[n] = (PtxArg){.kind = PTXOP_IMM, .bits = 32,
					.has_value = true, .value = k};
		else
			a[n] = (PtxArg){.kind = PTXOP_REG, .bits = 32};
		n++;
	} else if (tc->param[TP_IGNORE_SRC]) {
		a[n++] = (PtxArg){.kind = PTXOP_PRED, .bits = 1};
	}
	if (tc->cache_policy)
		a[n++] = (PtxArg){.kind = PTXOP_REG, .bits = 64};
	return tile_select_form_args(e, tc, a, n);
}

/* Shape and memory image of one side: the final axis is the chunk in
 * this operand's own elements. */
static bool
check_side(TileEnv *e, TileCall *tc, TileOperand *op, int64_t chunk,
	   int space)
{
	op->role = ROLE_MEM;
	op->out = op->index == CP_DST;
	op->ptx_op = op->index;
	if (!tile_chunk_shape(e, tc, op, chunk, PT_E_CPASYNC_ATOM_BYTES))
		return false;
	return tile_memory_atoms(e, tc, op, space);
}

bool
tile_check_cp_async(TileEnv *e, TileCall *tc)
{
	Ctx *c = e->c;
	int64_t chunk = 0;
	if (!check_chunk(e, tc, &chunk) || !check_zero_fill(e, tc, chunk) ||
	    !check_cache_policy(e, tc))
		return false;
	if (tc->nops != 2)
		return diag_error(c, PT_E_TILE_OPERAND_COUNT, tc->span,
				  "%s takes 2 tile operands (dst_shared, "
				  "src_global), found %d", tc->inst.spelling,
				  tc->nops);
	if (!check_spaces(e, tc) || !select_form(e, tc, chunk))
		return false;
	/* the destination sets the repeat shape */
	if (!check_side(e, tc, &tc->ops[CP_DST], chunk, PSP_SHARED) ||
	    !check_side(e, tc, &tc->ops[CP_SRC], chunk, PSP_GLOBAL))
		return false;
	tc->fixed[2] = ir_int(c, chunk, DT_INT32, tc->span);
	if (tc->param[TP_SRC_SIZE])
		tc->fixed[3] = tc->param[TP_SRC_SIZE];
	else if (tc->param[TP_IGNORE_SRC])
		tc->fixed[3] = tc->param[TP_IGNORE_SRC];
	tc->count = tile_repeat_count(tc);
	return true;
}
