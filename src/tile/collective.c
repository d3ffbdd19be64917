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
 * once.
 */
#include <string.h>

#include "tile.h"

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

/* The call's groups with the lane axis put back, for hardware ids. */
static TileCall
with_lane(const TileEnv *e, const TileCall *tc)
{
	TileCall t = *tc;
	t.group[t.ngroup++] = (GroupAxis){GK_LANE, 0, 32, e->lane_sym, NULL};
	return t;
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
	bool first = true;
	do {
		for (int lane = 0; lane < 32; lane++) {
			g[ng] = lane;
			tile_group_ids(e, &full, g, &ids);
			memcpy(x, g, sizeof(int64_t) * ng);
			for (int k = ng; k < ng + nrdim; k++)
				x[k] = 0;
			int64_t r = 0;
			do {
				for (int a = 0; a < nregs; a++) {
					map(arg, lane, a, x + ng + nrdim);
					PhysCoord p;
					int64_t rr = 0;
					if (!view_eval_phys(&ev, x, 0, &p))
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
							"layout places it at %s",
							tc->inst.spelling,
							tile_coord_str(&c->arena,
								       x, rank),
							op->index, op->root->name,
							a,
							tile_owner_str(&c->arena, &ids,
								  bound
								  | AXIS_BIT(AX_LANEID)),
							tile_owner_str(&c->arena, &p,
								  bound));
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
