/*
 * common.c - the contract core shared by every tile family: parameter
 * schemas, execution groups, operand views and their canonical
 * (*group, *repeat, *atom) coordinates, register ownership and static
 * slots, memory atom contiguity/alignment/address space, destination
 * overlap and preserve_dst.
 *
 * Input: a TileCall whose operands hold their IR expressions, and the
 * walk state (TileEnv) at the call.  Output: the filled TileCall, or
 * diagnostics naming the operand, the coordinate and expected versus
 * found.  Cost: linear in the number of coordinates (groups x repeats x
 * atom), each evaluated once.
 */
#include <stdlib.h>
#include <string.h>

#include "tile/tile.h"

/* What a parameter value must be (the type column of params.def). */
typedef enum ParamValue {
	PV_BOOL, PV_UINT64, PV_INT, PV_U32, PV_PTR, PV_INTS, PV_INTS2, PV_STR
} ParamValue;

static const char *const param_value_names[] = {
	"bool", "uint64", "an integer", "an integer of at most 32 bits",
	"a pointer (buf.ptr_to([...]))", "a tuple of integers",
	"a tuple of integer tuples", "a string",
};

static const struct {
	const char *name;
	bool is_static;
	ParamValue type;
} param_rows[TP_COUNT] = {
#define STATIC true
#define RUNTIME false
#define PARAM(id, name, kind, type) [TP_##id] = {name, kind, PV_##type},
#include "tile/params.def"
#undef PARAM
#undef STATIC
#undef RUNTIME
};

const char *
tile_coord_str(Arena *a, const int64_t *x, int n)
{
	StrBuf b;
	sb_init(&b, a);
	sb_putc(&b, '(');
	for (int i = 0; i < n; i++)
		sb_printf(&b, i ? ", %lld" : "%lld", (long long)x[i]);
	if (n == 1)
		sb_putc(&b, ',');
	sb_putc(&b, ')');
	return sb_cstr(&b);
}

int64_t
tile_repeat_count(const TileCall *tc)
{
	int64_t n = 1;
	for (int i = 0; i < tc->nrepeat; i++)
		n *= tc->repeat[i];
	return n;
}

/* ---- parameters ---- */

static const char *
accepted_list(Arena *a, uint64_t mask)
{
	StrBuf b;
	sb_init(&b, a);
	for (int i = 0; i < TP_COUNT; i++)
		if (mask & (UINT64_C(1) << i))
			sb_printf(&b, "%s%s", b.n ? ", " : "",
				  param_rows[i].name);
	return b.n ? sb_cstr(&b) : "none";
}

static bool
is_int_scalar(const Expr *v)
{
	return v->type == ET_SCALAR && v->dtype != DT_BOOL &&
	       dtype_kind(v->dtype) != DK_FLOAT;
}

/* A tuple whose items are integers (depth 1) or such tuples (depth 2). */
static bool
int_tuple(const Expr *v, int depth)
{
	if (v->kind != EX_TUPLE)
		return false;
	for (size_t i = 0; i < v->u.tuple.n; i++)
		if (depth > 1 ? !int_tuple(v->u.tuple.v[i], depth - 1)
			      : !is_int_scalar(v->u.tuple.v[i]))
			return false;
	return true;
}

/* A compile-time constant: an integer, a string, or a tuple of them. */
static bool
static_value(const Expr *v)
{
	int64_t k;
	if (v->kind == EX_STR)
		return true;
	if (v->kind != EX_TUPLE)
		return ir_const_int(v, &k);
	for (size_t i = 0; i < v->u.tuple.n; i++)
		if (!static_value(v->u.tuple.v[i]))
			return false;
	return true;
}

static bool
param_value_ok(ParamValue want, const Expr *v)
{
	if (want == PV_INTS || want == PV_INTS2)
		return int_tuple(v, want == PV_INTS ? 1 : 2);
	if (want == PV_STR)
		return v->kind == EX_STR;
	if (v->type != ET_SCALAR)
		return false;
	DTypeKind k = dtype_kind(v->dtype);
	bool integer = v->dtype != DT_BOOL && k != DK_FLOAT;
	switch (want) {
	case PV_BOOL: return v->dtype == DT_BOOL;
	case PV_UINT64: return integer && dtype_bits(v->dtype) == 64;
	case PV_INT: return integer;
	case PV_U32: return integer && dtype_bits(v->dtype) <= 32;
	case PV_PTR: return v->kind == EX_PTR_TO;
	default: return false;
	}
	return false;
}

bool
tile_check_params(TileEnv *e, TileCall *tc, const NamedArgVec *params)
{
	Ctx *c = e->c;
	bool ok = true;
	for (size_t i = 0; i < params->n; i++) {
		const NamedArg *p = &params->v[i];
		int id = -1;
		for (int k = 0; k < TP_COUNT; k++)
			if (strcmp(param_rows[k].name, p->name) == 0)
				id = k;
		if (id < 0) {
			ok = diag_error(c, PT_E_TILE_UNKNOWN_PARAM, p->span,
					"unknown keyword '%s' for %s (accepted: "
					"%s)", p->name, tc->fam->name,
					accepted_list(&c->arena,
						      tc->fam->params));
			continue;
		}
		if (!(tc->fam->params & (UINT64_C(1) << id))) {
			ok = diag_error(c, PT_E_TILE_PARAM_NOT_LISTED, p->span,
					"'%s' is not a parameter of %s "
					"(accepted: %s)", p->name,
					tc->fam->name,
					accepted_list(&c->arena,
						      tc->fam->params));
			continue;
		}
		int64_t k = 0;
		if (param_rows[id].is_static && !static_value(p->value)) {
			ok = diag_error(c, PT_E_TILE_PARAM_NOT_STATIC, p->span,
					"'%s' is a static parameter: expected "
					"a compile-time constant, found a "
					"runtime expression", p->name);
			continue;
		}
		if (!param_value_ok(param_rows[id].type, p->value)) {
			ok = diag_error(c, PT_E_TILE_PARAM_TYPE, p->span,
					"'%s' expects %s, found %s", p->name,
					param_value_names[param_rows[id].type],
					p->value->type == ET_SCALAR
						? dtype_name(p->value->dtype)
						: "a tensor or tuple");
			continue;
		}
		tc->param[id] = p->value;
		if (id == TP_PRED)
			tc->pred = p->value;
		else if (id == TP_PRESERVE_DST)
			tc->preserve_dst = ir_const_int(p->value, &k) && k;
		else if (id == TP_CACHE_POLICY)
			tc->cache_policy = p->value;
	}
	return ok;
}

/* ---- execution groups ---- */

static void
add_group(TileCall *tc, GroupKind k, int64_t lo, int64_t ext, int sym)
{
	tc->group[tc->ngroup++] = (GroupAxis){k, lo, ext, sym, NULL};
}

bool
tile_groups(TileEnv *e, TileCall *tc)
{
	Ctx *c = e->c;
	const Launch *L = &e->f->launch;
	tc->ngroup = 0;
	if (tc->scope == ES_THREAD)
		return true;
	if (tc->scope == ES_CLUSTER) {
		if (L->ncluster == 0)
			return diag_error(c, PT_E_TILE_SCOPE_CLUSTER, tc->span,
					  "scope=\"cluster\" needs an explicit "
					  "launch cluster (LaunchConfig(..., "
					  "cluster=...)), but %s declares none",
					  e->f->name);
		static const GroupKind ck[3] = {GK_CTA_X, GK_CTA_Y, GK_CTA_Z};
		for (int i = L->ncluster - 1; i >= 0; i--)
			add_group(tc, ck[i], 0, L->cluster[i], e->cta_sym[i]);
	}
	if (tc->scope != ES_WARP && e->nthreads <= 0)
		return diag_error(c, PT_E_TILE_SCOPE_LAUNCH, tc->span,
				  "scope=\"%s\" needs a static block size",
				  execscope_name(tc->scope));
	if (e->nthreads > 0 && e->nthreads % 32 != 0)
		return diag_error(c, PT_E_TILE_SCOPE_LAUNCH, tc->span,
				  "scope=\"%s\" needs whole warps, but the "
				  "block has %lld threads",
				  execscope_name(tc->scope),
				  (long long)e->nthreads);
	int64_t lanes = e->lane_hi - e->lane_lo + 1;
	int64_t warps = e->warp_hi - e->warp_lo + 1;
	if (tc->scope == ES_WARPGROUP) {
		if (e->nthreads % 128 != 0)
			return diag_error(c, PT_E_TILE_SCOPE_LAUNCH, tc->span,
					  "scope=\"warpgroup\" needs whole "
					  "warpgroups, but the block has %lld "
					  "threads", (long long)e->nthreads);
		int64_t lo = e->warp_lo % 4, hi = lo + warps - 1;
		if (warps > 4 || hi > 3) {
			lo = 0;
			hi = 3;
		}
		Expr *wig = tile_binop(c, BIN_MOD,
				       tile_builtin0(c, BI_WARP_ID, tc->span),
				       tile_int(c, 4, tc->span), DT_INT32,
				       tc->span);
		int s = tile_new_sym(e, "warp_in_group", lo, hi, wig);
		add_group(tc, GK_WARP_IN_WG, lo, hi - lo + 1, s);
	} else if (tc->scope == ES_CTA || tc->scope == ES_CLUSTER) {
		add_group(tc, GK_WARP, e->warp_lo, warps, e->warp_sym);
	}
	add_group(tc, GK_LANE, e->lane_lo, lanes, e->lane_sym);
	for (int i = 0; i < tc->ngroup; i++)
		tc->group[i].hw = e->sym_expr.v[tc->group[i].sym];
	return true;
}

/* Hardware ids of group coordinate g, and which axes the scope fixes. */
static AxisMask
group_ids(TileEnv *e, const TileCall *tc, const int64_t *g, PhysCoord *ids)
{
	memset(ids, 0, sizeof(*ids));
	AxisMask known = 0;
	int64_t warp = -1, wig = -1, lane = -1;
	for (int i = 0; i < tc->ngroup; i++) {
		int64_t v = tc->group[i].lo + g[i];
		switch (tc->group[i].kind) {
		case GK_CTA_X: ids->v[AX_CBX] = v; known |= AXIS_BIT(AX_CBX); break;
		case GK_CTA_Y: ids->v[AX_CBY] = v; known |= AXIS_BIT(AX_CBY); break;
		case GK_CTA_Z: ids->v[AX_CBZ] = v; known |= AXIS_BIT(AX_CBZ); break;
		case GK_WARP: warp = v; break;
		case GK_WARP_IN_WG: wig = v; break;
		case GK_LANE: lane = v; break;
		}
	}
	/* one warpgroup per block: warpid is wid_in_wg (TIRx accepts a
	 * warpid layout at warpgroup scope there) */
	if (warp < 0 && wig >= 0 && e->nthreads > 0 && e->nthreads <= 128)
		warp = wig;
	if (lane >= 0) {
		ids->v[AX_LANEID] = lane;
		known |= AXIS_BIT(AX_LANEID);
	}
	if (warp >= 0) {
		wig = warp % 4;
		ids->v[AX_WARPID] = warp;
		ids->v[AX_WGID] = warp / 4;
		known |= AXIS_BIT(AX_WARPID) | AXIS_BIT(AX_WGID);
		if (e->block[1] == 1 && e->block[2] == 1) {
			ids->v[AX_TX] = warp * 32 + lane;
			known |= AXIS_BIT(AX_TX);
		}
	}
	if (wig >= 0) {
		ids->v[AX_WID_IN_WG] = wig;
		ids->v[AX_TID_IN_WG] = wig * 32 + lane;
		known |= AXIS_BIT(AX_WID_IN_WG) | AXIS_BIT(AX_TID_IN_WG);
	}
	return known;
}

AxisMask
tile_group_ids(TileEnv *e, const TileCall *tc, const int64_t *g,
	       PhysCoord *ids)
{
	return group_ids(e, tc, g, ids);
}

/* "axis 0 = warpid, axis 1 = laneid - 4": the hardware id each group
 * axis of an operand must be owned by (group coordinate g of a guarded
 * axis is id lo + g). */
static const char *
required_owner(Arena *a, const TileCall *tc)
{
	static const char *const ids[] = {
		[GK_CTA_Z] = "cbz", [GK_CTA_Y] = "cby", [GK_CTA_X] = "cbx",
		[GK_WARP] = "warpid", [GK_WARP_IN_WG] = "wid_in_wg",
		[GK_LANE] = "laneid",
	};
	StrBuf b;
	sb_init(&b, a);
	for (int i = 0; i < tc->ngroup; i++) {
		sb_printf(&b, "%saxis %d = %s", i ? ", " : "", i,
			  ids[tc->group[i].kind]);
		if (tc->group[i].lo)
			sb_printf(&b, " - %lld", (long long)tc->group[i].lo);
	}
	return tc->ngroup ? sb_cstr(&b) : "no group axes";
}

/* ---- operand views ---- */

static bool resolve(TileEnv *e, const Expr *x, Span sp, View **out,
		    Buffer **root);

static bool
resolve_root(TileEnv *e, Buffer *b, Span sp, View **out)
{
	Ctx *c = e->c;
	int64_t *shape = NEWN(&c->arena, int64_t, b->ndim + 1);
	bool fixed = true;
	for (int d = b->ndim - 1; d >= 0; d--) {
		if (ir_const_int(b->shape[d], &shape[d]))
			continue;
		fixed = false;
		int64_t inner = 1;
		for (int k = d + 1; k < b->ndim; k++)
			inner *= shape[k];
		if (d != 0 || b->layout)
			return diag_error(c, PT_E_TILE_VIEW, sp,
					  "tensor %s has a runtime size: use "
					  "it through a region with static "
					  "extents (%s.sub[...]) of a global "
					  "tensor with the default layout",
					  b->name, b->name);
		/* the outermost symbolic extent only bounds the region;
		 * its value never enters an address */
		shape[d] = ((int64_t)1 << 40) / (inner > 0 ? inner : 1);
	}
	/* a constant-shaped buffer holds exactly its layout's span (the
	 * storage lower.c declares): reshape views are checked against it */
	int64_t len = fixed ? layout_alloc_elems(b->layout, shape, b->ndim) : 0;
	*out = view_tensor(c, sp, dtype_bits(b->dtype), shape, b->ndim,
			   b->layout, (int)b->scope, len);
	return *out != NULL;
}

static bool
resolve_region(TileEnv *e, const Expr *x, Span sp, View **out, Buffer **root)
{
	Ctx *c = e->c;
	View *base;
	const Expr *bx = x->u.region.base;
	Buffer *sym = bx->kind == EX_BUF && bx->u.buf->kind != BK_VIEW &&
			      tile_sym_shape(bx->u.buf)
		      ? bx->u.buf : NULL;
	if (sym) {
		*root = sym;
		if (!(base = tile_sym_root_view(e, sym, sp)))
			return false;
	} else if (!resolve(e, bx, sp, &base, root)) {
		return false;
	}
	int n = x->u.region.ndims;
	if (n != base->nv)
		return diag_error(c, PT_E_TILE_VIEW, sp,
				  "region has %d subscripts for a %d-axis "
				  "tensor", n, base->nv);
	Lin *start = NEWN(&c->arena, Lin, n + 1);
	int64_t *ext = NEWN(&c->arena, int64_t, n + 1);
	bool *drop = NEWN(&c->arena, bool, n + 1);
	for (int i = 0; i < n; i++) {
		const Slice *s = &x->u.region.dims[i];
		start[i] = tile_lin(e, s->begin);
		if (!s->is_slice) {
			ext[i] = 1;
			drop[i] = true;
			continue;
		}
		int64_t kv;
		if (sym && !s->end && !ir_const_int(sym->shape[i], &kv))
			return diag_error(c, PT_E_TILE_EXTENT, sp,
					  "axis %d of the region: extent %s is "
					  "not static; slice a static range",
					  i, ir_expr_text(c, sym->shape[i]));
		Lin end = s->end ? tile_lin(e, s->end)
				 : lin_const(base->vext[i]);
		Lin d = lin_sub(&e->st, end, start[i]);
		if (!lin_is_const(d) || d.c0 <= 0)
			return diag_error(c, PT_E_TILE_EXTENT, sp,
					  "axis %d of the region: extent %s is "
					  "not a positive static integer", i,
					  lin_str(&e->st, d));
		ext[i] = d.c0;
	}
	if (sym && !tile_sym_bounds(e, x, sym, start, ext, sp))
		return false;
	*out = view_slice(c, sp, &e->st, base, start, ext, drop);
	return *out != NULL;
}

static bool
resolve(TileEnv *e, const Expr *x, Span sp, View **out, Buffer **root)
{
	Ctx *c = e->c;
	View *base;
	switch (x->kind) {
	case EX_BUF:
		if (x->u.buf->kind == BK_VIEW && x->u.buf->view)
			return resolve(e, x->u.buf->view, sp, out, root);
		*root = x->u.buf;
		return resolve_root(e, x->u.buf, sp, out);
	case EX_REGION:
		return resolve_region(e, x, sp, out, root);
	case EX_VIEW_DTYPE:
		if (!resolve(e, x->u.view.base, sp, &base, root))
			return false;
		*out = view_dtype(c, sp, &e->st, base, dtype_bits(x->dtype));
		return *out != NULL;
	case EX_VIEW_RESHAPE: {
		if (!resolve(e, x->u.view.base, sp, &base, root))
			return false;
		int n = (int)x->u.view.shape.n;
		int64_t *shape = NEWN(&c->arena, int64_t, n + 1);
		for (int i = 0; i < n; i++)
			if (!ir_const_int(x->u.view.shape.v[i], &shape[i]))
				return diag_error(c, PT_E_TILE_EXTENT, sp,
						  "reshape extent %d is not a "
						  "static integer", i);
		*out = view_reshape(c, sp, base, shape, n, x->u.view.layout);
		return *out != NULL;
	}
	default:
		return diag_error(c, PT_E_TILE_VIEW, sp,
				  "operand is not a tensor, region or view");
	}
}

bool
tile_resolve_operand(TileEnv *e, TileOperand *op)
{
	if (op->expr->type == ET_SCALAR) {
		op->scalar = true;
		op->dtype = op->expr->dtype;
		op->bits = dtype_bits(op->dtype);
		return true;
	}
	if (op->expr->type != ET_TENSOR)
		return diag_error(e->c, PT_E_TILE_VIEW, op->span,
				  "operand %d is neither a tensor nor a "
				  "scalar expression", op->index);
	if (!resolve(e, op->expr, op->span, &op->view, &op->root))
		return false;
	op->dtype = op->expr->dtype;
	op->bits = op->view->elem_bits;
	op->rank = op->view->nv;
	op->ext = op->view->vext;
	return true;
}

/* ---- canonical coordinates ---- */

bool
tile_shape_operand(TileEnv *e, TileCall *tc, TileOperand *op)
{
	Ctx *c = e->c;
	if (op->scalar)
		return true;
	int need = tc->ngroup + tile_atom_axes(op);
	const char *shape = tile_coord_str(&c->arena, op->ext, op->rank);
	if (op->rank < need)
		return diag_error(c, PT_E_TILE_RANK, op->span,
				  "operand %d has shape %s, but scope=\"%s\" "
				  "and the atom need at least %d axes "
				  "(%d group + %d atom)", op->index, shape,
				  execscope_name(tc->scope), need, tc->ngroup,
				  tile_atom_axes(op));
	for (int i = 0; i < tc->ngroup; i++)
		if (op->ext[i] != tc->group[i].ext)
			return diag_error(c, PT_E_TILE_GROUP_SHAPE, op->span,
					  "operand %d has shape %s: group axis "
					  "%d must have extent %lld (active "
					  "%s range), found %lld", op->index,
					  shape, i, (long long)tc->group[i].ext,
					  execscope_name(tc->scope),
					  (long long)op->ext[i]);
	int nrep = op->rank - need;
	const int64_t *rep = op->ext + tc->ngroup;
	if (!tc->repeat) {
		tc->nrepeat = nrep;
		tc->repeat = arena_dup(&c->arena, rep,
				       sizeof(int64_t) * (nrep + 1));
		return true;
	}
	if (nrep != tc->nrepeat ||
	    memcmp(rep, tc->repeat, sizeof(int64_t) * nrep) != 0)
		return diag_error(c, PT_E_TILE_REPEAT_SHAPE, op->span,
				  "operand %d has repeat shape %s, but earlier "
				  "operands have %s", op->index,
				  tile_coord_str(&c->arena, rep, nrep),
				  tile_coord_str(&c->arena, tc->repeat,
						 tc->nrepeat));
	return true;
}

bool
tile_next_coord(int64_t *x, const int64_t *ext, int n)
{
	for (int i = n - 1; i >= 0; i--) {
		if (++x[i] < ext[i])
			return true;
		x[i] = 0;
	}
	return false;
}

const char *
tile_owner_str(Arena *a, const PhysCoord *p, AxisMask mask)
{
	StrBuf b;
	sb_init(&b, a);
	for (int ax = 0; ax < AX_COUNT; ax++)
		if (mask & AXIS_BIT(ax))
			sb_printf(&b, "%s%s %lld", b.n ? ", " : "",
				  axis_name((Axis)ax), (long long)p->v[ax]);
	return sb_cstr(&b);
}

static const char *const scope_axes_hint =
	"thread: none; warp: laneid; warpgroup: laneid, wid_in_wg, "
	"tid_in_wg; cta: laneid, warpid, wgid, wid_in_wg, tid_in_wg, tx; "
	"cluster: cta plus cbx/cby/cbz";

bool
tile_register_slots(TileEnv *e, TileCall *tc, TileOperand *op)
{
	Ctx *c = e->c;
	if (op->scalar)
		return true;
	if (op->root->scope != MS_LOCAL)
		return diag_error(c, PT_E_TILE_NOT_REGISTER, op->span,
				  "operand %d (%s) must be local registers, "
				  "but %s is %s memory", op->index,
				  op->root->name, op->root->name,
				  memscope_name(op->root->scope));
	int64_t zero[TILE_MAX_GROUP] = {0};
	PhysCoord ids;
	AxisMask known = group_ids(e, tc, zero, &ids);
	AxisMask bound = layout_thread_axes(op->view->layout);
	if (bound & ~known)
		return diag_error(c, PT_E_TILE_OWNER_AXIS, op->span,
				  "operand %d (%s): its layout binds %s, which "
				  "scope=\"%s\" does not determine (%s)",
				  op->index, op->root->name,
				  tile_owner_str(&c->arena, &ids, bound & ~known),
				  execscope_name(tc->scope), scope_axes_hint);
	int64_t nrep = tile_repeat_count(tc);
	int64_t ng = 1;
	int64_t gext[TILE_MAX_GROUP];
	for (int i = 0; i < tc->ngroup; i++) {
		gext[i] = tc->group[i].ext;
		ng *= gext[i];
	}
	if (ng * nrep * tile_atom_len(op) > TILE_MAX_COORDS)
		return diag_error(c, PT_E_TILE_TOO_LARGE, op->span,
				  "operand %d has %lld coordinates; the limit "
				  "is %d", op->index,
				  (long long)(ng * nrep * tile_atom_len(op)),
				  TILE_MAX_COORDS);
	int per = (int)(nrep * tile_atom_len(op));
	op->slot = NEWN(&c->arena, int64_t, per + 1);
	int64_t *x = NEWN(&c->arena, int64_t, op->rank + 1);
	int64_t nrepl = layout_nreplicas(op->view->layout);
	int64_t g[TILE_MAX_GROUP] = {0};
	bool first = true;
	do {
		group_ids(e, tc, g, &ids);
		memcpy(x, g, sizeof(int64_t) * tc->ngroup);
		for (int k = tc->ngroup; k < op->rank; k++)
			x[k] = 0;
		int idx = 0;
		do {
			PhysCoord p;
			int64_t r = 0;
			if (!view_phys(op->view, x, 0, &p))
				return diag_error(c, PT_E_TILE_SLOT_SYMBOLIC,
						  op->span,
						  "operand %d (%s): register "
						  "slots must be static, but "
						  "the region start is symbolic",
						  op->index, op->root->name);
			while (!layout_owned_by(&p, &ids, bound) &&
			       ++r < nrepl)
				view_phys(op->view, x, r, &p);
			if (!layout_owned_by(&p, &ids, bound)) {
				view_phys(op->view, x, 0, &p);
				return diag_error(
					c, PT_E_TILE_OWNER, op->span,
					"register %s of operand %d (%s) is "
					"issued by the thread with %s, but the "
					"layout places it at %s; scope=\"%s\" "
					"needs each register owned by the "
					"thread its group coordinates name "
					"(%s, each as 1@id in the layout)",
					tile_coord_str(&c->arena, x, op->rank),
					op->index, op->root->name,
					tile_owner_str(&c->arena, &ids, bound),
					tile_owner_str(&c->arena, &p, bound),
					execscope_name(tc->scope),
					required_owner(&c->arena, tc));
			}
			int64_t m = p.v[AX_M];
			if (first)
				op->slot[idx] = m;
			else if (op->slot[idx] != m)
				return diag_error(
					c, PT_E_TILE_SLOT_VARIES, op->span,
					"register %s of operand %d (%s) is "
					"storage slot %lld, but the same "
					"repeat/atom coordinate of group %s is "
					"slot %lld: one instruction cannot "
					"serve both threads",
					tile_coord_str(&c->arena, x, op->rank),
					op->index, op->root->name,
					(long long)m,
					tile_coord_str(&c->arena, zero,
						       tc->ngroup),
					(long long)op->slot[idx]);
			idx++;
		} while (tile_next_coord(x + tc->ngroup, op->ext + tc->ngroup,
				    op->rank - tc->ngroup));
		first = false;
	} while (tile_next_coord(g, gext, tc->ngroup));
	return true;
}

/* True when codegen resolves x's elements by logical index: buffers,
 * regions and same-width dtype views. */
bool
tile_plain_chain(const Expr *x)
{
	for (;;) {
		switch (x->kind) {
		case EX_BUF:
			if (x->u.buf->kind != BK_VIEW || !x->u.buf->view)
				return true;
			x = x->u.buf->view;
			break;
		case EX_REGION:
			x = x->u.region.base;
			break;
		case EX_VIEW_DTYPE:
			if (dtype_bits(x->dtype) !=
			    dtype_bits(x->u.view.base->dtype))
				return false;
			x = x->u.view.base;
			break;
		default:
			return false;
		}
	}
}

/* The root buffer of a tensor expression (through regions and views). */
Buffer *
tile_root_buffer(const Expr *x)
{
	for (;;) {
		switch (x->kind) {
		case EX_BUF:
			if (x->u.buf->kind != BK_VIEW || !x->u.buf->view)
				return x->u.buf;
			x = x->u.buf->view;
			break;
		case EX_REGION:
			x = x->u.region.base;
			break;
		case EX_VIEW_DTYPE:
		case EX_VIEW_RESHAPE:
			x = x->u.view.base;
			break;
		default:
			return NULL;
		}
	}
}

/* ---- memory atoms ---- */

View *
tile_thread_view(TileEnv *e, TileCall *tc, TileOperand *op)
{
	Ctx *c = e->c;
	View *v = op->view;
	if (tc->ngroup == 0)
		return v;
	int n = v->nv;
	Lin *start = NEWN(&c->arena, Lin, n + 1);
	int64_t *ext = NEWN(&c->arena, int64_t, n + 1);
	bool *drop = NEWN(&c->arena, bool, n + 1);
	for (int i = 0; i < n; i++) {
		start[i] = lin_const(0);
		ext[i] = v->vext[i];
	}
	/* group coordinate g of axis i is hardware id lo + g */
	for (int i = 0; i < tc->ngroup; i++) {
		start[i] = lin_add_const(&e->st,
					 lin_sym(&e->st, tc->group[i].sym),
					 -tc->group[i].lo);
		ext[i] = 1;
		drop[i] = true;
	}
	return view_slice(c, op->span, &e->st, v, start, ext, drop);
}

static bool
space_matches(int space, MemScope s)
{
	switch (space) {
	case PSP_GLOBAL: return s == MS_GLOBAL;
	case PSP_SHARED:
	case PSP_SHARED_CTA: return s == MS_SHARED || s == MS_SHARED_DYN;
	case PSP_LOCAL: return s == MS_LOCAL;
	default: return false;
	}
}

static bool
fits_imm(int64_t elems, int bytes)
{
	return elems <= INT32_MAX / bytes && elems >= INT32_MIN / bytes;
}

/* Splits the atom start of op at repeat r into a base and a constant
 * byte offset (tile.h: base_x, off, rel).  On the m axis the base is
 * the symbolic part, the same for every repeat (and for calls that
 * differ only by constants); a logically indexed operand keeps
 * codegen's own index at repeat 0 as the base.  A constant address,
 * or an offset outside the signed 32-bit immediate range, stays
 * whole. */
static void
split_address(TileEnv *e, TileOperand *op, int64_t r, int bytes)
{
	Lin l = op->addr[r];
	if (l.overflow)
		return;
	if (tile_plain_chain(op->expr)) {
		Lin d = lin_sub(&e->st, l, op->addr[0]);
		if (r > 0 && !d.overflow && lin_is_const(d) &&
		    fits_imm(d.c0, bytes)) {
			op->rel[r] = true;
			op->off[r] = d.c0 * bytes;
		}
		return;
	}
	if (l.n == 0 || !fits_imm(l.c0, bytes))
		return;
	op->off[r] = l.c0 * bytes;
	l.c0 = 0;
	op->base_x[r] = tile_lin_expr(e, l, op->span);
}

/* Writes op's atom start at repeat r back as IR (addr_x, then base_x,
 * off, rel); an own_ptr operand, whose family builds its pointers, only
 * learns whether that is possible.  False when it is not: every prover
 * symbol records how to write it back as IR, so that is an internal
 * limit, not a script error. */
static bool
write_back_address(TileEnv *e, TileOperand *op, int64_t r, int bytes)
{
	bool plain = tile_plain_chain(op->expr);
	if (op->own_ptr)
		return plain || tile_lin_expressible(e, op->addr[r]);
	op->addr_x[r] = tile_lin_expr(e, op->addr[r], op->span);
	if (!op->addr_x[r] && !plain)
		return false;
	split_address(e, op, r, bytes);
	return true;
}

/* True when m - m0 is the constant a: the same terms (the evaluator
 * shares one term array) and constant parts a apart.  Only answers
 * when lin_sub would give exactly that constant, so the caller may
 * skip it (and its arena copies); false means "ask lin_sub". */
static bool
offset_is(Lin m, Lin m0, int64_t a)
{
	int64_t d;
	if (m.overflow || m0.overflow || m.n != m0.n || m0.c0 == INT64_MIN ||
	    __builtin_sub_overflow(m.c0, m0.c0, &d) || d != a)
		return false;
	for (int i = 0; i < m.n && m.t != m0.t; i++)
		if (m.t[i].sym != m0.t[i].sym || m.t[i].coef != m0.t[i].coef)
			return false;
	for (int i = 0; i < m0.n; i++)
		if (m0.t[i].coef == INT64_MIN)
			return false;
	return true;
}

static int64_t
base_align(const Buffer *b)
{
	int64_t el = (dtype_bits(b->dtype) + 7) / 8;
	return b->align > el ? b->align : el;
}

bool
tile_memory_atoms(TileEnv *e, TileCall *tc, TileOperand *op, int space)
{
	Ctx *c = e->c;
	if (op->scalar)
		return diag_error(c, PT_E_TILE_SCALAR_OPERAND, op->span,
				  "operand %d must be a %s memory tensor, "
				  "found a scalar expression", op->index,
				  ptx_space_name((PtxSpace)space));
	if (!space_matches(space, op->root->scope))
		return diag_error(c, PT_E_TILE_SPACE, op->span,
				  "operand %d (%s) is %s memory, but the opcode "
				  "addresses .%s", op->index, op->root->name,
				  memscope_name(op->root->scope),
				  ptx_space_name((PtxSpace)space));
	const View *v = tile_thread_view(e, tc, op);
	if (!v)
		return false;
	int64_t nrep = tile_repeat_count(tc);
	int bytes = op->bits / 8;
	int64_t size = (int64_t)op->natom * bytes;
	int64_t need = op->align ? op->align : size;
	int64_t have = base_align(op->root);
	if (op->bits % 8 != 0)
		return diag_error(c, PT_E_TILE_DTYPE, op->span,
				  "operand %d has %d-bit elements; memory atoms "
				  "need whole bytes", op->index, op->bits);
	if (have < need && need > 1)
		return diag_error(c, PT_E_TILE_ATOM_ALIGN, op->span,
				  "operand %d: the %lld-byte atom needs a "
				  "%lld-byte aligned base, but %s is only known "
				  "to be %lld-byte aligned (declare align=%lld)",
				  op->index, (long long)size, (long long)need,
				  op->root->name, (long long)have,
				  (long long)need);
	op->addr = NEWN(&c->arena, Lin, nrep + 1);
	if (!op->own_ptr) {
		op->addr_x = NEWN(&c->arena, Expr *, nrep + 1);
		op->base_x = NEWN(&c->arena, Expr *, nrep + 1);
		op->off = NEWN(&c->arena, int64_t, nrep + 1);
		op->rel = NEWN(&c->arena, bool, nrep + 1);
	}
	int nr = tc->nrepeat;
	int64_t *x = NEWN(&c->arena, int64_t, nr + 2);
	ViewEval ev;
	view_eval_init(&ev, &e->st, v);
	bool sym = tile_sym_shape(op->root); /* runtime sizes: symshape.c */
	for (int64_t r = 0; r < nrep; r++) {
		for (int a = 0; a < op->natom; a++) {
			x[nr] = a;
			Lin m = sym ? tile_sym_m(e, op, v, x, need)
				    : view_eval_m_lin(&ev, x, 0);
			if (a == 0) {
				op->addr[r] = m;
				continue;
			}
			if (offset_is(m, op->addr[r], a))
				continue;
			Lin d = lin_sub(&e->st, m, op->addr[r]);
			if (!lin_is_const(d) || d.c0 != a)
				return diag_error(
					c, PT_E_TILE_ATOM_CONTIG, op->span,
					"memory atom of operand %d (%s) at "
					"repeat %s is not consecutive: word %d "
					"is at offset %s from word 0, expected "
					"%d", op->index, op->root->name,
					tile_coord_str(&c->arena, x, nr), a,
					lin_str(&e->st, d), a);
		}
		x[nr] = 0;
		Lin off = lin_scale(&e->st, op->addr[r], bytes);
		const char *why = NULL;
		if (lin_is_const(off) && off.c0 % need != 0)
			return diag_error(
				c, PT_E_TILE_ATOM_ALIGN, op->span,
				"memory atom of operand %d (%s) at repeat %s "
				"starts at byte %lld, which is not a multiple "
				"of the %lld-byte alignment", op->index,
				op->root->name, tile_coord_str(&c->arena, x, nr),
				(long long)off.c0, (long long)need);
		if (!lin_is_const(off) &&
		    !prove_multiple_of(&e->st, off, need, &why))
			return diag_error(
				c, PT_E_TILE_ALIGN_UNPROVEN, op->span,
				"cannot prove the memory atom of operand %d "
				"(%s) at repeat %s aligned to %lld bytes: byte "
				"offset %s; %s", op->index, op->root->name,
				tile_coord_str(&c->arena, x, nr),
				(long long)need, lin_str(&e->st, off),
				why ? why : "unknown");
		if (!write_back_address(e, op, r, bytes)) {
			ctx_fail(c, PT_E_INTERNAL,
				 "the address of operand %d (%s) at repeat %s, "
				 "element offset %s, cannot be written back as IR",
				 op->index, op->root->name,
				 tile_coord_str(&c->arena, x, nr),
				 lin_str(&e->st, op->addr[r]));
			return false;
		}
		if (nr > 0)
			tile_next_coord(x, tc->repeat, nr);
	}
	return true;
}

bool
tile_memory_shape(TileEnv *e, TileCall *tc, TileOperand *op, PtxType type,
		  int space)
{
	Ctx *c = e->c;
	if (op->scalar)
		return diag_error(c, PT_E_TILE_SCALAR_OPERAND, op->span,
				  "operand %d must be a %s memory tensor, "
				  "found a scalar expression", op->index,
				  ptx_space_name((PtxSpace)space));
	if (!tile_shape_operand(e, tc, op))
		return false;
	int last = (int)op->ext[op->rank - 1];
	if (last != op->natom)
		return diag_error(c, PT_E_TILE_ATOM_SHAPE, op->span,
				  "operand %d (%s) has shape %s: its last axis "
				  "must be the vector length %d of %s, found "
				  "%d", op->index, op->root->name,
				  tile_coord_str(&c->arena, op->ext, op->rank),
				  op->natom, tc->inst.spelling, last);
	if (op->bits != tile_ptx_type_bits(type))
		return diag_error(c, PT_E_TILE_DTYPE, op->span,
				  "operand %d (%s) has %d-bit elements (%s), "
				  "but %s moves %d-bit elements", op->index,
				  op->root->name, op->bits,
				  dtype_name(op->dtype), tc->inst.spelling,
				  tile_ptx_type_bits(type));
	return tile_memory_atoms(e, tc, op, space);
}

/* ---- destinations ---- */

typedef struct SlotRef {
	int buf;
	int64_t lo, hi; /* bit range */
	int op;
	int64_t idx;
} SlotRef;

static int
slot_cmp(const void *pa, const void *pb)
{
	const SlotRef *a = pa, *b = pb;
	if (a->buf != b->buf)
		return a->buf < b->buf ? -1 : 1;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return 0;
}

/* "(r0, .., atom)" of flat repeat/atom index idx of op. */
static const char *
slot_coord(Ctx *c, const TileCall *tc, const TileOperand *op, int64_t idx)
{
	int n = tc->nrepeat + tile_atom_axes(op);
	int64_t *x = NEWN(&c->arena, int64_t, n + 1);
	const int64_t *ext = op->ext + tc->ngroup;
	for (int i = n - 1; i >= 0; i--) {
		x[i] = idx % ext[i];
		idx /= ext[i];
	}
	return tile_coord_str(&c->arena, x, n);
}

/* A single instruction needs all its register operands at once.  The
 * kernel's register cap per thread is .maxnreg, or the 64K-register file
 * of an SM shared by min_blocks_per_sm blocks (.minnctapersm); ptxas
 * rounds the latter down further, so this bound never rejects what
 * ptxas accepts. */
bool
tile_check_register_budget(TileEnv *e, const TileCall *tc, int64_t regs)
{
	const Launch *l = &e->f->launch;
	int64_t cap = INT64_MAX;
	const char *why = NULL;
	if (l->max_registers > 0) {
		cap = l->max_registers;
		why = arena_printf(&e->c->arena, "max_registers_per_thread=%lld",
				   (long long)cap);
	}
	if (l->min_blocks_per_sm > 0 && e->nthreads > 0 &&
	    65536 / (l->min_blocks_per_sm * e->nthreads) < cap) {
		cap = 65536 / (l->min_blocks_per_sm * e->nthreads);
		why = arena_printf(&e->c->arena, "min_blocks_per_sm=%lld "
				   "blocks of %lld threads sharing an SM's 65536 "
				   "registers", (long long)l->min_blocks_per_sm,
				   (long long)e->nthreads);
	}
	if (regs <= cap)
		return true;
	return diag_error(e->c, PT_E_REG_BUDGET, tc->span,
			  "%s holds %lld registers per thread in its operands, "
			  "but %s leaves a thread at most %lld", tc->inst.spelling,
			  (long long)regs, why, (long long)cap);
}

bool
tile_check_overlap(TileEnv *e, TileCall *tc)
{
	Ctx *c = e->c;
	size_t n = 0;
	for (int i = 0; i < tc->nops; i++) {
		TileOperand *op = &tc->ops[i];
		if (!op->out || op->role != ROLE_REG)
			continue;
		if (op->scalar)
			return diag_error(c, PT_E_REG_SCALAR_DST, op->span,
					  "operand %d is written, but it is a "
					  "scalar expression, not a register "
					  "tensor", op->index);
		if (op->view->readonly)
			return diag_error(c, PT_E_TILE_BROADCAST_DST, op->span,
					  "operand %d (%s) is written, but it "
					  "is a read-only broadcast view "
					  "(zero stride)", op->index,
					  op->root->name);
		n += (size_t)(tile_repeat_count(tc) * tile_atom_len(op));
	}
	SlotRef *s = NEWN(&c->arena, SlotRef, n + 1);
	size_t k = 0;
	for (int i = 0; i < tc->nops; i++) {
		TileOperand *op = &tc->ops[i];
		if (!op->out || op->role != ROLE_REG)
			continue;
		int64_t per = tile_repeat_count(tc) * tile_atom_len(op);
		for (int64_t j = 0; j < per; j++)
			s[k++] = (SlotRef){op->root->id,
					   op->slot[j] * op->bits,
					   (op->slot[j] + 1) * op->bits, i, j};
	}
	qsort(s, n, sizeof(*s), slot_cmp);
	for (size_t j = 1; j < n; j++) {
		if (s[j].buf != s[j - 1].buf || s[j].lo >= s[j - 1].hi)
			continue;
		const SlotRef *a = &s[j - 1], *b = &s[j];
		if (a->op > b->op || (a->op == b->op && a->idx > b->idx)) {
			const SlotRef *t = a;
			a = b;
			b = t;
		}
		const TileOperand *oa = &tc->ops[a->op], *ob = &tc->ops[b->op];
		return diag_error(c, PT_E_TILE_OVERLAP, ob->span,
				  "destination slot %lld of operand %d (%s) is "
				  "written at repeat/atom %s and, by operand %d, "
				  "at %s: written slots must be distinct",
				  (long long)(b->lo / ob->bits), ob->index,
				  ob->root->name, slot_coord(c, tc, ob, b->idx),
				  oa->index, slot_coord(c, tc, oa, a->idx));
	}
	return true;
}

static bool
was_written(TileEnv *e, const Buffer *b)
{
	size_t k = tile_slot_find(e, b->id);
	return k < e->written.n && e->written.v[k];
}

bool
tile_check_preserve(TileEnv *e, TileCall *tc)
{
	if (!tc->preserve_dst)
		return true;
	Ctx *c = e->c;
	if (!tc->pred)
		return diag_error(c, PT_E_TILE_PRESERVE_NO_PRED, tc->span,
				  "preserve_dst=True keeps the destination "
				  "when pred is false, but no pred is given");
	for (int i = 0; i < tc->nops; i++) {
		TileOperand *op = &tc->ops[i];
		if (!op->out || op->role != ROLE_REG || op->scalar)
			continue;
		if (!was_written(e, op->root))
			return diag_error(c, PT_E_TILE_PRESERVE_UNINIT, op->span,
					  "preserve_dst=True keeps operand %d "
					  "(%s), but nothing writes %s before "
					  "this call: initialise it first",
					  op->index, op->root->name,
					  op->root->name);
		return true;
	}
	return diag_error(c, PT_E_TILE_PRESERVE_NO_RESULT, tc->span,
			  "preserve_dst applies to a register result; %s "
			  "writes none", tc->inst.spelling ? tc->inst.spelling
							   : "this call");
}

void
tile_mark_written(TileEnv *e, TileCall *tc)
{
	for (int i = 0; i < tc->nops; i++) {
		TileOperand *op = &tc->ops[i];
		if (!op->out || !op->root)
			continue;
		size_t k = tile_slot(e, op->root->id);
		while (e->written.n <= k)
			vec_push(&e->c->arena, &e->written, false);
		e->written.v[k] = true;
	}
}

/* ---- dtypes against PTX register types ---- */

int
tile_ptx_type_bits(PtxType p)
{
	switch (p) {
	case PTY_B8: case PTY_U8: case PTY_S8: return 8;
	default: return ptx_type_bits(p);
	}
}

bool
tile_dtype_fits(DType t, PtxType p)
{
	const char *n = ptx_type_name(p);
	if (p == PTY_PRED)
		return t == DT_BOOL;
	if (dtype_bits(t) != tile_ptx_type_bits(p))
		return false;
	DTypeKind k = dtype_kind(t);
	if (k == DK_BITS)
		return true;
	switch (n[0]) {
	case 'b':
		if (n[1] == 'f')
			break;
		return true; /* a bit type takes any equal-width value */
	case 'u':
	case 's':
		return k == DK_INT || k == DK_UINT;
	default:
		break;
	}
	if (strchr(n, 'x') || p == PTY_TF32)
		return k == DK_UINT; /* packed: raw-bits carrier */
	if (k == DK_UINT)
		return true; /* uint container of a float value */
	if (p == PTY_F16)
		return t == DT_FLOAT16;
	if (p == PTY_BF16)
		return t == DT_BFLOAT16;
	if (p == PTY_F32)
		return t == DT_FLOAT32;
	if (p == PTY_F64)
		return t == DT_FLOAT64;
	return false;
}

bool
tile_chunk_shape(TileEnv *e, TileCall *tc, TileOperand *op, int64_t chunk,
		 int code)
{
	Ctx *c = e->c;
	if (op->bits % 8 != 0 || (chunk * 8) % op->bits != 0)
		return diag_error(c, code, op->span,
				  "operand %d (%s) has %d-bit elements (%s): "
				  "a %lld-byte chunk does not hold whole "
				  "elements of it", op->index, op->root->name,
				  op->bits, dtype_name(op->dtype),
				  (long long)chunk);
	op->natom = (int)(chunk * 8 / op->bits);
	if (!tile_shape_operand(e, tc, op))
		return false;
	int64_t last = op->ext[op->rank - 1];
	if (last != op->natom)
		return diag_error(c, code, op->span,
				  "operand %d (%s) has shape %s: its final "
				  "axis must hold chunk_bytes=%lld bytes, i.e. "
				  "%d %s elements, found %lld (%lld bytes)",
				  op->index, op->root->name,
				  tile_coord_str(&c->arena, op->ext, op->rank),
				  (long long)chunk, op->natom,
				  dtype_name(op->dtype), (long long)last,
				  (long long)(last * op->bits / 8));
	return true;
}
