/*
 * collective.c - warp-collective atoms: instructions that consume the
 * lane axis inside their atom (ldmatrix/stmatrix, mma.sync).
 *
 * Input: a TileCall after tile_groups (its last group axis is the lane)
 * and a register operand with a documented (lane, register) -> atom
 * coordinate map.  Output: the call without its lane group (the prefix
 * keeps cluster CTAs and warps), and the operand's per-repeat register
 * slots (op->slot, op->by_slot).
 *
 * Invariants: all 32 lanes are active; every register of every lane is
 * held by that lane under the layout, and names the same storage slot
 * in every lane and warp, because one instruction text serves the whole
 * warp.  Cost: warps x 32 lanes x repeats x registers, each evaluated
 * once, as a sum of per-dim table entries when the layout allows
 * (SlotEval) and by view_eval_phys otherwise.
 */
#include <string.h>

#include "tile/tile.h"

bool
tile_warp_collective(TileEnv *e, TileCall *tc)
{
	Ctx *c = e->c;
	if (tc->scope == ES_THREAD || tc->ngroup == 0)
		return diag_error(c, PT_E_COLL_SCOPE, tc->span,
				  "%s is a warp-collective instruction: use "
				  "scope=\"warp\" (or warpgroup/cta/cluster), "
				  "not scope=\"thread\"", tc->inst.spelling);
	const GroupAxis *lane = &tc->group[tc->ngroup - 1];
	PT_ASSERT(lane->kind == GK_LANE);
	if (e->lane_inexact)
		return diag_error(c, PT_E_COLL_PARTIAL_WARP, tc->span,
				  "%s needs all 32 lanes of the warp, but it "
				  "is under a condition on the lane or thread "
				  "id that may leave some lanes out (write it "
				  "as a comparison of T.cuda.lane_id() with a "
				  "constant)", tc->inst.spelling);
	if (lane->lo != 0 || lane->ext != 32)
		return diag_error(c, PT_E_COLL_PARTIAL_WARP, tc->span,
				  "%s needs all 32 lanes of the warp, but "
				  "only lanes %lld..%lld are active here",
				  tc->inst.spelling, (long long)lane->lo,
				  (long long)(lane->lo + lane->ext - 1));
	tc->ngroup--;
	return true;
}

static bool
check_prefix(TileEnv *e, TileCall *tc, TileOperand *op, int atom_axes)
{
	Ctx *c = e->c;
	int need = tc->ngroup + atom_axes;
	if (op->root->scope != MS_LOCAL)
		return diag_error(c, PT_E_TILE_NOT_REGISTER, op->span,
				  "operand %d (%s) must be local registers, "
				  "but %s is %s memory", op->index,
				  op->root->name, op->root->name,
				  memscope_name(op->root->scope));
	if (op->rank < need)
		return diag_error(c, PT_E_TILE_RANK, op->span,
				  "operand %d has shape %s, but scope=\"%s\" "
				  "and the atom need at least %d axes "
				  "(%d group + %d atom)", op->index,
				  tile_coord_str(&c->arena, op->ext, op->rank),
				  execscope_name(tc->scope), need, tc->ngroup,
				  atom_axes);
	for (int i = 0; i < tc->ngroup; i++)
		if (op->ext[i] != tc->group[i].ext)
			return diag_error(c, PT_E_TILE_GROUP_SHAPE, op->span,
					  "operand %d has shape %s: group axis "
					  "%d must have extent %lld (active "
					  "%s range), found %lld", op->index,
					  tile_coord_str(&c->arena, op->ext,
							 op->rank),
					  i, (long long)tc->group[i].ext,
					  execscope_name(tc->scope),
					  (long long)op->ext[i]);
	return true;
}

/* Replica-0 physical coordinates of a register view by table lookup.
 * With a constant origin the flat index is base + sum x[i] * vstride[i];
 * when every view dim's multiples x * vstride[i] fill their own run of
 * the tile layout's shard digits (vstride[i] is a digit weight) and the
 * base's nonzero digits fall outside all those runs, adding the terms
 * never carries, so the unswizzled coordinate is the base's plus each
 * dim's own contribution.  Any other case (symbolic origin, no tile
 * layout, a stride that is not a digit weight, overlapping runs) keeps
 * view_eval_phys. */
typedef struct SlotEval {
	bool fast;
	int nv;
	const int64_t *ext; /* view dim extents (table sizes) */
	const Layout *l;
	int nax;            /* the axes filled: the owner axes and m */
	int ax[AX_COUNT];
	int64_t base[AX_COUNT]; /* base's coordinate, offsets included */
	int64_t **dimtab;   /* per view dim: [x * nax + j] contribution,
			     * NULL when the dim contributes nothing */
} SlotEval;

/* Marks digits lo..hi (lo most significant) as taken; false if any was. */
static bool
take_digits(bool *taken, int lo, int hi)
{
	for (int k = lo; k <= hi; k++) {
		if (taken[k])
			return false;
		taken[k] = true;
	}
	return true;
}

/* The run of digits x * s covers for x < e, s == w[hi]; -1 when s is no
 * digit weight. */
static int
digit_run(const int64_t *w, int n, int64_t s, int64_t e, int *hi)
{
	int k = n - 1;
	while (k >= 0 && w[k] < s)
		k--;
	if (k < 0 || w[k] != s)
		return -1;
	*hi = k;
	int64_t top = (e - 1) * s;
	int lo = k;
	while (lo > 0 && w[lo - 1] <= top)
		lo--;
	return lo;
}

static void
slot_eval_init(SlotEval *se, Arena *a, const ViewEval *ev,
	       const int64_t *ext, AxisMask want)
{
	const View *v = ev->v;
	const Layout *t = ev->t;
	se->fast = false;
	if (!ev->konst || !t || ev->base < 0 || t->nshard < 1)
		return;
	int n = t->nshard;
	int64_t *w = NEWN(a, int64_t, n);
	bool *taken = NEWN(a, bool, n);
	w[n - 1] = 1;
	for (int k = n - 2; k >= 0; k--) {
		if (t->shard[k + 1].extent <= 0 ||
		    __builtin_mul_overflow(w[k + 1], t->shard[k + 1].extent,
					   &w[k]))
			return;
	}
	/* keep every flat index far from wrapping */
	int64_t hi_flat = ev->base, x;
	for (int i = 0; i < v->nv; i++) {
		int64_t s = ev->vstride[i];
		if (ext[i] < 1 || s < 0)
			return;
		if (ext[i] == 1 || s == 0)
			continue;
		int hi, lo = digit_run(w, n, s, ext[i], &hi);
		if (lo < 0 || !take_digits(taken, lo, hi) ||
		    __builtin_mul_overflow(ext[i] - 1, s, &x) ||
		    __builtin_add_overflow(hi_flat, x, &hi_flat) ||
		    hi_flat > ((int64_t)1 << 60))
			return;
	}
	/* the base's digits, most significant (unbounded) digit included */
	int64_t b = ev->base;
	for (int k = n - 1; k >= 0; k--) {
		int64_t d = k > 0 ? b % t->shard[k].extent : b;
		if (d != 0 && taken[k])
			return;
		if (k > 0)
			b /= t->shard[k].extent;
	}
	PhysCoord zero, p;
	for (AxisMask m = want | AXIS_BIT(AX_M); m; m &= m - 1)
		se->ax[se->nax++] = __builtin_ctz((unsigned)m);
	layout_eval_flat(t, 0, 0, &zero);
	layout_eval_flat(t, ev->base, 0, &p);
	for (int j = 0; j < se->nax; j++)
		se->base[j] = p.v[se->ax[j]];
	se->dimtab = NEWN(a, int64_t *, v->nv + 1);
	for (int i = 0; i < v->nv; i++) {
		if (ext[i] == 1 || ev->vstride[i] == 0)
			continue;
		int64_t *tab = NEWN(a, int64_t, ext[i] * se->nax);
		for (int64_t xi = 0; xi < ext[i]; xi++) {
			layout_eval_flat(t, xi * ev->vstride[i], 0, &p);
			for (int j = 0; j < se->nax; j++)
				tab[xi * se->nax + j] =
					p.v[se->ax[j]] - zero.v[se->ax[j]];
		}
		se->dimtab[i] = tab;
	}
	se->nv = v->nv;
	se->ext = ext;
	se->l = v->layout;
	se->fast = true;
}

/* acc += the contributions of view dims lo..hi-1 at x[lo..hi-1];
 * false when a coordinate is outside its dim. */
static bool
slot_add(const SlotEval *se, int lo, int hi, const int64_t *x,
	 int64_t *acc)
{
	for (int i = lo; i < hi; i++) {
		if (x[i] < 0 || x[i] >= se->ext[i])
			return false;
		if (!se->dimtab[i])
			continue;
		const int64_t *d = se->dimtab[i] + x[i] * se->nax;
		for (int j = 0; j < se->nax; j++)
			acc[j] += d[j];
	}
	return true;
}

/* The atom dims' part for every (lane, register): at[(lane * nregs +
 * reg) * nax + j]; turns the tables off when a map leaves the shape. */
static int64_t *
slot_atoms(SlotEval *se, Arena *a, int first, int nregs, TileLaneMap map,
	   const void *arg)
{
	int64_t *at = NEWN(a, int64_t, 32 * nregs * se->nax + 1);
	int64_t *x = NEWN(a, int64_t, se->nv + 1);
	for (int lane = 0; lane < 32; lane++)
		for (int r = 0; r < nregs; r++) {
			map(arg, lane, r, x + first);
			if (!slot_add(se, first, se->nv, x,
				      at + (lane * nregs + r) * se->nax))
				se->fast = false;
		}
	return at;
}

/* Replica 0's coordinate from the three parts; only the axes in se->ax
 * are filled (all the caller reads: it re-evaluates with view_eval_phys
 * before reporting a coordinate). */
static void
slot_sum(const SlotEval *se, const int64_t *g, const int64_t *rep,
	 const int64_t *atom, PhysCoord *p)
{
	for (int j = 0; j < se->nax; j++)
		p->v[se->ax[j]] = g[j] + rep[j] + atom[j];
	if (se->l->kind == LAYOUT_COMPOSE)
		p->v[AX_M] = layout_swizzle(se->l->sw_m, se->l->sw_b,
					    se->l->sw_s, p->v[AX_M]);
}

/* The call's groups with the lane axis put back, for hardware ids. */
static TileCall
with_lane(const TileEnv *e, const TileCall *tc)
{
	TileCall t = *tc;
	t.group[t.ngroup++] = (GroupAxis){GK_LANE, 0, 32, e->lane_sym, NULL};
	return t;
}

/* The documented lane map the owner diagnostic states. */
static const char *
owner_rule(const TileCall *tc, const TileOperand *op, int owner_code)
{
	static const char *const mma[] = {
		"the documented map puts D register r of lane l at (row l/4 + "
		"8*(r/2), column 2*(l%4) + r%2)",
		"the documented map puts A register r of lane l at (row l/4 + "
		"8*(r%2), b32 word l%4 + 4*(r/2))",
		"the documented map puts B register r of lane l at (row l/4, "
		"b32 word l%4 + 4*r)",
		"the documented map puts C register r of lane l at (row l/4 + "
		"8*(r/2), column 2*(l%4) + r%2)",
	};
	if (owner_code == PT_E_LDM_OWNER)
		return "the documented map puts word w of row r of matrix i in "
		       "register i of lane 4*r + w";
	if (owner_code == PT_E_MMA_OWNER && op->index >= 0 && op->index < 4)
		return mma[op->index];
	(void)tc;
	return "the layout must place each element on the lane the "
	       "instruction's lane map gives";
}

bool
tile_collective_slots(TileEnv *e, TileCall *tc, TileOperand *op,
		      int atom_axes, int nregs, TileLaneMap map,
		      const void *arg, int owner_code)
{
	Ctx *c = e->c;
	op->atom_axes = atom_axes;
	if (!check_prefix(e, tc, op, atom_axes))
		return false;
	TileCall full = with_lane(e, tc);
	int ng = tc->ngroup, rank = op->rank;
	int nrdim = rank - ng - atom_axes;
	const int64_t *rext = op->ext + ng;
	int64_t nrep = 1, nthr = 32;
	for (int i = 0; i < nrdim; i++)
		nrep *= rext[i];
	int64_t gext[TILE_MAX_GROUP + 1];
	for (int i = 0; i < ng; i++) {
		gext[i] = tc->group[i].ext;
		nthr *= gext[i];
	}
	if (nthr * nrep * nregs > TILE_MAX_COORDS)
		return diag_error(c, PT_E_TILE_TOO_LARGE, op->span,
				  "operand %d has %lld coordinates; the limit "
				  "is %d", op->index,
				  (long long)(nthr * nrep * nregs),
				  TILE_MAX_COORDS);
	int64_t g[TILE_MAX_GROUP + 1] = {0};
	PhysCoord ids;
	AxisMask known = tile_group_ids(e, &full, g, &ids);
	AxisMask bound = layout_thread_axes(op->view->layout);
	if (bound & ~known)
		return diag_error(c, PT_E_TILE_OWNER_AXIS, op->span,
				  "operand %d (%s): its layout binds %s, which "
				  "scope=\"%s\" does not determine",
				  op->index, op->root->name,
				  tile_owner_str(&c->arena, &ids, bound & ~known),
				  execscope_name(tc->scope));
	op->slot = NEWN(&c->arena, int64_t, nrep * nregs + 1);
	int64_t *x = NEWN(&c->arena, int64_t, rank + 1);
	int64_t nrepl = layout_nreplicas(op->view->layout);
	ViewEval ev;
	view_eval_init(&ev, &e->st, op->view);
	SlotEval se = {0};
	if (op->view->nv == rank)
		slot_eval_init(&se, &c->arena, &ev, op->ext, bound);
	int64_t *atom = NULL, gsum[AX_COUNT], rsum[AX_COUNT];
	if (se.fast)
		atom = slot_atoms(&se, &c->arena, ng + nrdim, nregs, map, arg);
	bool first = true;
	do {
		memcpy(gsum, se.base, sizeof(gsum));
		bool gfast = se.fast && slot_add(&se, 0, ng, g, gsum);
		for (int lane = 0; lane < 32; lane++) {
			g[ng] = lane;
			tile_group_ids(e, &full, g, &ids);
			memcpy(x, g, sizeof(int64_t) * ng);
			for (int k = ng; k < ng + nrdim; k++)
				x[k] = 0;
			int64_t r = 0;
			do {
				memset(rsum, 0, sizeof(rsum));
				bool fast = gfast &&
					    slot_add(&se, ng, ng + nrdim, x, rsum);
				for (int a = 0; a < nregs; a++) {
					map(arg, lane, a, x + ng + nrdim);
					PhysCoord p;
					int64_t rr = 0;
					if (fast)
						slot_sum(&se, gsum, rsum,
							 atom + (lane * nregs + a)
								* se.nax, &p);
					else if (!view_eval_phys(&ev, x, 0, &p))
						return diag_error(
							c, PT_E_TILE_SLOT_SYMBOLIC,
							op->span,
							"operand %d (%s): register "
							"slots must be static, but "
							"the region start is "
							"symbolic", op->index,
							op->root->name);
					while (!layout_owned_by(&p, &ids, bound) &&
					       ++rr < nrepl)
						view_eval_phys(&ev, x, rr, &p);
					if (!layout_owned_by(&p, &ids, bound)) {
						view_eval_phys(&ev, x, 0, &p);
						return diag_error(
							c, owner_code, op->span,
							"%s: element %s of operand "
							"%d (%s) is register %d of "
							"the thread with %s, but the "
							"layout places it at %s; %s",
							tc->inst.spelling,
							tile_coord_str(&c->arena,
								       x, rank),
							op->index, op->root->name,
							a,
							tile_owner_str(&c->arena, &ids,
								  bound
								  | AXIS_BIT(AX_LANEID)),
							tile_owner_str(&c->arena, &p,
								  bound),
							owner_rule(tc, op,
								   owner_code));
					}
					int64_t *s = &op->slot[r * nregs + a];
					if (first) {
						*s = p.v[AX_M];
					} else if (*s != p.v[AX_M]) {
						return diag_error(
							c, PT_E_TILE_SLOT_VARIES,
							op->span,
							"%s: register %d of "
							"operand %d (%s) at repeat "
							"%lld is storage slot %lld "
							"for the thread with %s but "
							"slot %lld for lane 0 of "
							"the first group: one "
							"instruction names one "
							"slot", tc->inst.spelling,
							a, op->index,
							op->root->name, (long long)r,
							(long long)p.v[AX_M],
							tile_owner_str(&c->arena, &ids,
								  bound
								  | AXIS_BIT(AX_LANEID)),
							(long long)*s);
					}
				}
				r++;
			} while (tile_next_coord(x + ng, rext, nrdim));
			first = false;
		}
	} while (tile_next_coord(g, gext, ng));
	op->natom = nregs;
	op->by_slot = true;
	return true;
}
