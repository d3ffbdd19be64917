/*
 * run.c - the ptem API, the thread scheduler and operand access.
 *
 * Clusters run one after another.  Within a cluster every thread has its
 * own PC and runs until it blocks or exits; then the scheduler resolves
 * what blocked threads wait for: a warp collective executes when every
 * live lane of the warp (or of the instruction's member mask) has reached
 * it, bar.sync releases when every live thread of the CTA arrived, an
 * mbarrier wait when its phase completed.  When nothing can move, one
 * pending asynchronous copy completes (late mode); when none is left
 * either, the run is a deadlock, reported with where threads wait.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"

enum { SPEC_COUNT = 0
#define S(name) +1
#include "emu/emu_specials.def"
#undef S
};
enum {
	SP_TID = 0, SP_NTID = 3, SP_CTAID = 6, SP_NCTAID = 9, SP_LANEID = 12,
	SP_WARPID, SP_NWARPID, SP_CLUSTERID, SP_NCLUSTERID = 18,
	SP_CLUSTER_CTAID = 21, SP_CLUSTER_NCTAID = 24, SP_CLUSTER_CTARANK = 27,
	SP_CLUSTER_NCTARANK, SP_IS_EXPLICIT_CLUSTER, SP_LANEMASK_EQ,
	SP_LANEMASK_LT, SP_LANEMASK_LE, SP_LANEMASK_GT, SP_LANEMASK_GE,
	SP_CLOCK, SP_CLOCK64, SP_GLOBALTIMER, SP_SMID, SP_NSMID,
	SP_DYNAMIC_SMEM_SIZE, SP_TOTAL_SMEM_SIZE, SP_END
};
_Static_assert((int)SP_END == (int)SPEC_COUNT, "emu_specials.def order");

/* ---- errors ---- */

void
emu_fail(Run *r, int code, const Thread *t, const Insn *in, const char *fmt,
	 ...)
{
	char *b = r->e->err;
	size_t cap = sizeof(r->e->err);
	int n = 0;
	if (t) {
		const Cta *c = cta_of_thread(r, t);
		n = snprintf(b, cap, "CTA (%u,%u,%u) thread (%u,%u,%u)",
			     c->id[0], c->id[1], c->id[2], t->tid[0],
			     t->tid[1], t->tid[2]);
	}
	if (in && n >= 0 && (size_t)n < cap)
		n += snprintf(b + n, cap - (size_t)n, "%sPTX line %d (%s)",
			      n ? ", " : "", in->line, in->name);
	if (in && in->sfile && n >= 0 && (size_t)n < cap)
		n += snprintf(b + n, cap - (size_t)n, " at %s:%d",
			      r->e->m->files[in->sfile], in->sline);
	if (n >= 0 && (size_t)n < cap)
		n += snprintf(b + n, cap - (size_t)n, "%s", n ? ": " : "");
	va_list ap;
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < cap)
		vsnprintf(b + n, cap - (size_t)n, fmt, ap);
	va_end(ap);
	r->status = code;
	longjmp(r->fail, 1);
}

const char *
emu_where(const Run *r, int line, char *buf, size_t cap)
{
	const Insn *in = NULL;
	for (uint32_t i = 0; i < r->k->ncode && !in; i++)
		if (r->k->code[i].line == line)
			in = &r->k->code[i];
	if (in && in->sfile)
		snprintf(buf, cap, "PTX line %d (%s) at %s:%d", line, in->name,
			 r->e->m->files[in->sfile], in->sline);
	else
		snprintf(buf, cap, "PTX line %d%s%s%s", line, in ? " (" : "",
			 in ? in->name : "", in ? ")" : "");
	return buf;
}

Cta *
cta_of_thread(Run *r, const Thread *t)
{
	for (uint32_t i = 0; i < r->nctas; i++) {
		Cta *c = &r->ctas[i];
		if (t >= c->th && t < c->th + c->nth)
			return c;
	}
	return &r->ctas[0];
}

Cta *
cta_of_rank(Run *r, const Thread *t, const Insn *in, uint32_t rank)
{
	if (rank >= r->nctas)
		emu_fail(r, PT_E_EMU_OOB, t, in,
			 "CTA rank %u outside the cluster of %u CTAs", rank,
			 r->nctas);
	return &r->ctas[rank];
}

/* ---- operands ---- */

const Opnd *
vec_elem(const Run *r, const Opnd *o, unsigned i)
{
	return &r->k->pool[o->vec + i];
}

static uint64_t
special_value(Run *r, Cta *c, Thread *t, uint32_t id)
{
	if (id < SP_NTID)
		return t->tid[id - SP_TID];
	if (id < SP_CTAID)
		return r->block[id - SP_NTID];
	if (id < SP_NCTAID)
		return c->id[id - SP_CTAID];
	if (id < SP_LANEID)
		return r->grid[id - SP_NCTAID];
	if (id >= SP_CLUSTERID && id < SP_NCLUSTERID)
		return r->clusterid[id - SP_CLUSTERID];
	if (id >= SP_NCLUSTERID && id < SP_CLUSTER_CTAID)
		return r->ncluster[id - SP_NCLUSTERID];
	if (id >= SP_CLUSTER_CTAID && id < SP_CLUSTER_NCTAID)
		return c->cid[id - SP_CLUSTER_CTAID];
	if (id >= SP_CLUSTER_NCTAID && id < SP_CLUSTER_CTARANK)
		return r->cluster[id - SP_CLUSTER_NCTAID];
	uint32_t lane = t->lane;
	switch (id) {
	case SP_LANEID: return lane;
	case SP_WARPID: return t->warp;
	case SP_NWARPID: return c->nwarps;
	case SP_CLUSTER_CTARANK: return c->rank;
	case SP_CLUSTER_NCTARANK: return r->nctas;
	case SP_IS_EXPLICIT_CLUSTER:
		return r->nctas > 1 || r->k->reqcluster[0];
	case SP_LANEMASK_EQ: return 1u << lane;
	case SP_LANEMASK_LT: return (1u << lane) - 1;
	case SP_LANEMASK_LE: return (uint32_t)((2ull << lane) - 1);
	case SP_LANEMASK_GT: return ~(uint32_t)((2ull << lane) - 1);
	case SP_LANEMASK_GE: return ~((1u << lane) - 1);
	case SP_CLOCK: return (uint32_t)r->steps;
	case SP_CLOCK64: case SP_GLOBALTIMER: return r->steps;
	case SP_SMID: return c->rank;
	case SP_NSMID: return 132;
	case SP_DYNAMIC_SMEM_SIZE: return r->l->dynamic_smem;
	case SP_TOTAL_SMEM_SIZE: return c->smem_size;
	default: return 0;
	}
}

uint64_t
opnd_get(Run *r, Cta *c, Thread *t, const Opnd *o)
{
	switch (o->kind) {
	case K_REG: {
		uint64_t v = t->r[o->reg];
		return o->neg ? !v : v;
	}
	case K_IMM:
		return (uint64_t)o->imm +
		       (o->smem ? (uint64_t)c->rank << SMEM_RANK_SHIFT : 0);
	case K_SPEC:
		return special_value(r, c, t, o->reg);
	case K_SINK:
		return 0;
	default:
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, NULL,
			 "operand kind %d used as a value", o->kind);
	}
}

uint64_t
emu_mask(PtxType ty)
{
	unsigned b = emu_ty[ty].bytes;
	return b >= 8 ? ~0ull : (1ull << (8 * b)) - 1;
}

/* Writes v (of type ty) to a register operand: signed types are kept
 * sign-extended, so a narrow load into a wide register reads back right
 * at any width; a predicate keeps 0 or 1. */
void
reg_set(Thread *t, const Opnd *o, uint64_t v, PtxType ty)
{
	if (o->kind != K_REG) /* a sink, or malformed PTX ptxas rejects */
		return;
	if (ty == PTY_PRED) {
		t->r[o->reg] = v != 0;
		return;
	}
	unsigned bits = 8u * emu_ty[ty].bytes;
	if (bits < 64) {
		v &= (1ull << bits) - 1;
		if (emu_ty[ty].cls == TC_S && (v >> (bits - 1)) & 1)
			v |= ~0ull << bits;
	}
	t->r[o->reg] = v;
}

/* ---- one thread ---- */

void
exec_ctrl(Run *r, Cta *c, Thread *t, const Insn *in)
{
	switch (in->op) {
	case PTXMN_BRA:
		if (in->nop != 1 || in->o[0].kind != K_LABEL)
			emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
				 "indirect branch");
		t->pc = (uint32_t)in->o[0].imm;
		return;
	case PTXMN_TRAP:
		emu_fail(r, PT_E_EMU_TRAP, t, in,
			 "trap executed (a failed assert prints its line "
			 "first)");
	default: /* ret, exit */
		t->st = TS_EXIT;
		r->progress = true;
		return;
	}
}

/* The thread executor of a family whose instructions are all warp
 * collectives, and the warp executor of one that has none: the
 * collective column keeps them from being reached. */
void
exec_no_thread(Run *r, Cta *c, Thread *t, const Insn *in)
{
	emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "not run by one thread");
}

void
exec_no_warp(Run *r, Cta *c, Thread **lanes, uint32_t mask, const Insn *in)
{
	emu_fail(r, PT_E_EMU_UNSUPPORTED, lanes[__builtin_ctz(mask)], in,
		 "not a warp collective");
}

/* MISC (src/ptx/families.def) holds forms of several kinds: fns and
 * add.f32.{f16,bf16} are arithmetic; st.bulk, prefetch.tensormap and mov
 * of %clock64 go to the memory executor; movmatrix, its one .sync form,
 * is a warp collective like ldmatrix (exec_warp, its table row). */
void
exec_misc(Run *r, Cta *c, Thread *t, const Insn *in)
{
	if (in->op == PTXMN_FNS || in->op == PTXMN_ADD)
		exec_alu(r, c, t, in);
	else
		exec_mem(r, c, t, in);
}

/* The executors by family (emu_families.def): the loader selected each
 * instruction's family; collectives run through .warp. */
static const struct {
	void (*run)(Run *, Cta *, Thread *, const Insn *);
	void (*warp)(Run *, Cta *, Thread **, uint32_t, const Insn *);
} fam_exec[PTXF_COUNT] = {
#define EFAM(fam, run, warp, coll, mask, decode)                   \
	[PTXF_##fam] = {run, warp},
#include "emu/emu_families.def"
#undef EFAM
};

/* Runs t until it blocks, exits or has run a quantum. */
static void
run_thread(Run *r, Cta *c, Thread *t)
{
	const Kernel *k = r->k;
	for (int q = 0; q < 4096 && t->st == TS_RUN; q++) {
		if (t->pc >= k->ncode) {
			t->st = TS_EXIT;
			r->progress = true;
			return;
		}
		if (++r->steps > r->max_steps)
			emu_fail(r, PT_E_EMU_STEP_LIMIT, t, &k->code[t->pc],
				 "more than %llu instructions executed",
				 (unsigned long long)r->max_steps);
		const Insn *in = &k->code[t->pc];
		if (in->guard != NOREG && (t->r[in->guard] != 0) == in->guard_neg) {
			t->pc++;
			continue;
		}
		if (in->coll) {
			t->st = TS_COLL;
			return;
		}
		uint32_t pc = t->pc++;
		if (r->order &&
		    (in->op == PTXMN_FENCE || in->op == PTXMN_MEMBAR))
			emu_order_fence(r, in);
		fam_exec[in->fam].run(r, c, t, in);
		if (t->st == TS_MBAR)
			t->pc = pc; /* the wait is re-executed when released */
		else
			r->progress = true;
		if (in->quiet) {
			r->quiet++;
			r->quiet_t = t;
			r->quiet_in = in;
		} else {
			r->quiet = 0;
		}
	}
}

/* ---- blocked threads ---- */

/* A warp collective synchronises its member lanes and nothing else (PTX
 * memory model: shfl/vote/redux/bar.warp order a warp, not the CTA): the
 * race check's clocks of the members join and take the collective's
 * number; other warps and the CTA epoch are untouched. */
static void
warp_clock(Cta *c, Thread **lanes, uint32_t n, uint32_t need)
{
	if (!need)
		return;
	uint32_t w = lanes[__builtin_ctz(need)]->warp;
	uint32_t v = ++c->wseq[w & 31], j[32] = {0};
	for (uint32_t l = 0; l < n; l++)
		if (need & (1u << l))
			for (int q = 0; q < 32; q++)
				if (lanes[l]->wvc[q] > j[q])
					j[q] = lanes[l]->wvc[q];
	for (uint32_t l = 0; l < n; l++)
		if (need & (1u << l))
			j[l] = v;
	for (uint32_t l = 0; l < n; l++)
		if (need & (1u << l))
			memcpy(lanes[l]->wvc, j, sizeof(j));
}

/* Runs the collective at pc once every lane that must take part (the
 * live lanes, or the member mask of a .sync instruction) waits at it. */
static bool
resolve_collective(Run *r, Cta *c, Thread **lanes, uint32_t n, uint32_t live,
		   uint32_t pc)
{
	uint32_t mask = 0;
	for (uint32_t l = 0; l < n; l++)
		if (lanes[l]->st == TS_COLL && lanes[l]->pc == pc)
			mask |= 1u << l;
	const Insn *in = &r->k->code[pc];
	uint32_t need = live;
	if (in->member_mask) {
		Thread *t0 = lanes[__builtin_ctz(mask)];
		if (!in->nop) /* the member mask is the last operand */
			emu_fail(r, PT_E_EMU_UNSUPPORTED, t0, in,
				 "malformed (no member mask)");
		const Opnd *m = &in->o[in->nop - 1];
		uint32_t member = (uint32_t)opnd_get(r, c, t0, m);
		if (!(member & (1u << t0->lane)))
			emu_fail(r, PT_E_EMU_COLLECTIVE, t0, in,
				 "the member mask 0x%08x leaves out the "
				 "executing lane %u", member, t0->lane);
		need = member & ((n == 32) ? ~0u : (1u << n) - 1);
		if (need & ~live)
			emu_fail(r, PT_E_EMU_COLLECTIVE, t0, in,
				 "member mask 0x%08x names exited lanes "
				 "(live 0x%08x)", member, live);
	}
	if ((mask & need) != need)
		return false;
	fam_exec[in->fam].warp(r, c, lanes, need, in);
	for (uint32_t l = 0; l < n; l++)
		if (need & (1u << l)) {
			lanes[l]->st = TS_RUN;
			lanes[l]->pc = pc + 1;
		}
	warp_clock(c, lanes, n, need);
	return true;
}

static bool
resolve_warp(Run *r, Cta *c, uint32_t w)
{
	Thread *lanes[32] = {0};
	uint32_t live = 0, waiting = 0;
	uint32_t first = w * 32, n = c->nth - first < 32 ? c->nth - first : 32;
	for (uint32_t l = 0; l < n; l++) {
		Thread *t = &c->th[first + l];
		lanes[l] = t;
		live |= (uint32_t)(t->st != TS_EXIT) << l;
		waiting |= (uint32_t)(t->st == TS_COLL) << l;
	}
	bool moved = false;
	/* every distinct collective the lanes wait at */
	while (waiting) {
		uint32_t l = (uint32_t)__builtin_ctz(waiting);
		uint32_t pc = lanes[l]->pc;
		for (uint32_t j = l; j < n; j++)
			if (lanes[j]->st == TS_COLL && lanes[j]->pc == pc)
				waiting &= ~(1u << j);
		moved |= resolve_collective(r, c, lanes, n, live, pc);
	}
	return moved;
}

static bool
resolve_cta(Run *r, Cta *c)
{
	bool moved = false;
	for (uint32_t w = 0; w < c->nwarps; w++)
		moved |= resolve_warp(r, c, w);
	/* bar.sync: all live threads (or the stated count) arrived */
	uint32_t live = 0;
	for (uint32_t i = 0; i < c->nth; i++)
		live += c->th[i].st != TS_EXIT;
	for (int b = 0; b < 16; b++) {
		if (!c->bar_arrived[b])
			continue;
		uint32_t need = c->bar_count[b] ? c->bar_count[b] : live;
		if (c->bar_arrived[b] < need)
			continue;
		for (uint32_t i = 0; i < c->nth; i++)
			if (c->th[i].st == TS_BAR && c->th[i].bar_id == b)
				c->th[i].st = TS_RUN;
		c->bar_arrived[b] = 0;
		c->bar_count[b] = 0;
		c->epoch++;
		moved = true;
	}
	for (uint32_t i = 0; i < c->nth; i++) {
		Thread *t = &c->th[i];
		if (t->st == TS_MBAR &&
		    mbar_phase_done(r, c, t->wait_addr, t->wait_parity)) {
			t->st = TS_RUN;
			moved = true;
		} else if (t->st == TS_CBAR && r->cbar_phase > t->cbar_phase) {
			t->st = TS_RUN;
			moved = true;
		}
	}
	return moved;
}

static bool
resolve_cluster_barrier(Run *r)
{
	uint32_t live = 0;
	for (uint32_t i = 0; i < r->nctas; i++)
		for (uint32_t j = 0; j < r->ctas[i].nth; j++)
			live += r->ctas[i].th[j].st != TS_EXIT;
	if (!r->cbar_arrived || r->cbar_arrived < live)
		return false;
	r->cbar_phase++;
	r->cbar_arrived = 0;
	for (uint32_t i = 0; i < r->nctas; i++)
		r->ctas[i].epoch++;
	return true;
}

static const char *const state_names[] = {
	"runs", "waits at a CTA barrier", "waits for its warp at a collective",
	"waits on an mbarrier phase", "waits at the cluster barrier", "exited",
};

static _Noreturn void
deadlock(Run *r)
{
	/* name the first blocked thread, and count the others */
	Thread *first = NULL;
	uint32_t blocked = 0;
	for (uint32_t i = 0; i < r->nctas; i++)
		for (uint32_t j = 0; j < r->ctas[i].nth; j++) {
			Thread *t = &r->ctas[i].th[j];
			if (t->st == TS_EXIT)
				continue;
			blocked++;
			if (!first)
				first = t;
		}
	/* a barrier has already advanced the PC; the others re-execute */
	uint32_t pc = first->pc - (first->st == TS_BAR || first->st == TS_CBAR);
	const Insn *in = &r->k->code[pc < r->k->ncode ? pc : 0];
	int code = first->st == TS_COLL ? PT_E_EMU_COLLECTIVE
					: PT_E_EMU_DEADLOCK;
	emu_fail(r, code, first, in,
		 "deadlock: this thread %s and can never continue (%u threads "
		 "blocked%s)", state_names[first->st], blocked,
		 first->st == TS_COLL ? "; the rest of its warp exited or "
					"waits elsewhere" : "");
}

/* One round of the cluster: every runnable thread runs, then what blocked
 * threads wait for is resolved; true once every thread has exited. */
static bool
run_round(Run *r)
{
	r->progress = false;
	bool alive = false;
	for (uint32_t i = 0; i < r->nctas; i++) {
		Cta *c = &r->ctas[i];
		for (uint32_t j = 0; j < c->nth; j++) {
			Thread *t = &c->th[j];
			if (t->st == TS_RUN)
				run_thread(r, c, t);
			alive |= t->st != TS_EXIT;
		}
	}
	bool moved = resolve_cluster_barrier(r);
	for (uint32_t i = 0; i < r->nctas; i++)
		moved |= resolve_cta(r, &r->ctas[i]);
	if (!alive)
		return true;
	if (!r->progress && !moved && !async_complete_one(r))
		deadlock(r);
	return false;
}

/* ---- launch ---- */

/* Builds the CTAs of a cluster the first time and resets them for every
 * further cluster (so a large grid reuses one cluster's memory). */
static void
setup_cluster(Run *r, const unsigned cl[3])
{
	const Kernel *k = r->k;
	uint32_t nth = r->block[0] * r->block[1] * r->block[2];
	uint64_t smem = ((uint64_t)k->smem_static + k->dyn_align - 1) &
			~(uint64_t)(k->dyn_align - 1);
	smem += r->l->dynamic_smem;
	bool fresh = r->ctas == NULL;
	r->nctas = r->cluster[0] * r->cluster[1] * r->cluster[2];
	if (fresh)
		r->ctas = NEWN(r->arena, Cta, r->nctas);
	r->cbar_phase = 0;
	r->cbar_arrived = 0;
	for (int d = 0; d < 3; d++)
		r->clusterid[d] = cl[d];
	for (uint32_t i = 0; i < r->nctas; i++) {
		Cta *c = &r->ctas[i];
		if (fresh) {
			c->smem = NEWN(r->arena, uint8_t, smem ? smem : 1);
			c->th = NEWN(r->arena, Thread, nth);
		} else {
			memset(c->smem, 0, smem ? smem : 1);
		}
		c->rank = i;
		c->cid[0] = i % r->cluster[0];
		c->cid[1] = i / r->cluster[0] % r->cluster[1];
		c->cid[2] = i / (r->cluster[0] * r->cluster[1]);
		for (int d = 0; d < 3; d++)
			c->id[d] = cl[d] * r->cluster[d] + c->cid[d];
		c->smem_size = (uint32_t)smem;
		c->nth = nth;
		c->nwarps = (nth + 31) / 32;
		memset(c->bar_arrived, 0, sizeof(c->bar_arrived));
		memset(c->bar_count, 0, sizeof(c->bar_count));
		c->nmbar = 0;
		c->tmem_used = 0;
		c->epoch++;
		memset(c->wseq, 0, sizeof(c->wseq));
		for (uint32_t j = 0; j < nth; j++) {
			Thread *t = &c->th[j];
			uint64_t *regs = t->r;
			uint8_t *local = t->local;
			memset(t, 0, sizeof(*t));
			size_t nr = k->nregs ? k->nregs : 1;
			size_t nl = k->local_size ? k->local_size : 1;
			if (fresh) {
				regs = NEWN(r->arena, uint64_t, nr);
				local = NEWN(r->arena, uint8_t, nl);
			} else {
				memset(regs, 0, nr * sizeof(*regs));
				memset(local, 0, nl);
			}
			t->r = regs;
			t->local = local;
			t->lin = j;
			t->tid[0] = j % r->block[0];
			t->tid[1] = j / r->block[0] % r->block[1];
			t->tid[2] = j / (r->block[0] * r->block[1]);
			t->lane = (uint16_t)(j % 32);
			t->warp = j / 32;
		}
	}
}

static int
check_launch(ptem *e, const Kernel *k, const ptem_launch *l, Run *r)
{
	uint64_t threads = 1, ctas = 1;
	for (int d = 0; d < 3; d++) {
		r->grid[d] = l->grid[d] ? l->grid[d] : 1;
		r->block[d] = l->block[d] ? l->block[d] : 1;
		r->cluster[d] = l->cluster[d] ? l->cluster[d]
				: k->reqcluster[0] ? k->reqcluster[d] : 1;
		if (k->reqcluster[0] && r->cluster[d] != k->reqcluster[d])
			break;
		if (r->grid[d] % r->cluster[d])
			break;
		r->ncluster[d] = r->grid[d] / r->cluster[d];
		threads *= r->block[d];
		ctas *= r->cluster[d];
		if (k->reqntid[0] && r->block[d] != (k->reqntid[d] ? k->reqntid[d] : 1))
			threads = 0;
		if (d == 2) {
			if (threads == 0 || threads > 1024 || ctas > 16 ||
			    l->dynamic_smem > (1u << 24) - k->smem_static - 4096)
				break;
			return PT_OK;
		}
	}
	snprintf(e->err, sizeof(e->err),
		 "launch of %s: grid, block (.reqntid %u,%u,%u), cluster "
		 "(.reqnctapercluster %u,%u,%u) or shared memory do not fit "
		 "the kernel or the limits (1024 threads, 16 CTAs a cluster, "
		 "grid a multiple of the cluster)",
		 k->name, k->reqntid[0], k->reqntid[1], k->reqntid[2],
		 k->reqcluster[0], k->reqcluster[1], k->reqcluster[2]);
	return PT_E_EMU_ARGS;
}

static int
pack_params(ptem *e, const Kernel *k, const ptem_arg *args, size_t nargs,
	    Run *r)
{
	if (nargs != k->nparams) {
		snprintf(e->err, sizeof(e->err),
			 "%s takes %u parameters, %zu given", k->name,
			 k->nparams, nargs);
		return PT_E_EMU_ARGS;
	}
	r->param = NEWN(r->arena, uint8_t, k->param_size ? k->param_size : 1);
	for (uint32_t i = 0; i < k->nparams; i++) {
		const Param *p = &k->params[i];
		if (args[i].size != p->size || !args[i].data) {
			snprintf(e->err, sizeof(e->err),
				 "parameter %s of %s is %u bytes, %zu given",
				 p->name, k->name, p->size, args[i].size);
			return PT_E_EMU_ARGS;
		}
		memcpy(r->param + p->off, args[i].data, p->size);
	}
	return PT_OK;
}

/* ---- API ---- */

ptem *
ptem_new(void)
{
	ptem *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	arena_init(&e->arena, NULL);
	arena_init(&e->run_arena, NULL);
	e->next_addr = WIN_GLOBAL;
	return e;
}

void
ptem_free(ptem *e)
{
	/* a group's device is freed with its group (ptem_group_free) */
	if (!e || e->group)
		return;
	arena_free(&e->run_arena);
	arena_free(&e->arena);
	free(e);
}

int
ptem_load(ptem *e, const char *ptx, size_t len)
{
	if (!e || !ptx)
		return PT_E_EMU_ARGS;
	return emu_load(e, ptx, len); /* its own out-of-memory guard */
}

int
ptem_alloc(ptem *e, size_t bytes, uint64_t *addr)
{
	if (!e || !addr || bytes == 0 || bytes > (1ull << 36))
		return PT_E_EMU_ARGS;
	/* a device of a group stays inside its address window */
	uint64_t win_end = WIN_GLOBAL + (e->dev + 1ull) * DEV_WINDOW;
	if (e->group && e->next_addr + bytes > win_end) {
		snprintf(e->err, sizeof(e->err),
			 "device %u's address window is full", e->dev);
		return PT_E_EMU_NOMEM;
	}
	e->arena.oom = NULL;
	uint8_t *mem = arena_alloc(&e->arena, bytes);
	if (!mem) {
		snprintf(e->err, sizeof(e->err), "out of memory");
		return PT_E_EMU_NOMEM;
	}
	if (e->nallocs == e->capallocs) {
		size_t cap = e->capallocs ? 2 * e->capallocs : 16;
		Alloc *a = arena_alloc(&e->arena, cap * sizeof(Alloc));
		if (!a)
			return PT_E_EMU_NOMEM;
		if (e->nallocs)
			memcpy(a, e->allocs, e->nallocs * sizeof(Alloc));
		e->allocs = a;
		e->capallocs = cap;
	}
	/* 256-byte aligned, with a gap so that running off the end of one
	 * buffer never lands in the next */
	Alloc *a = &e->allocs[e->nallocs++];
	a->addr = e->next_addr;
	a->size = bytes;
	a->mem = mem;
	e->next_addr += (bytes + 4096 + 255) & ~255ull;
	*addr = a->addr;
	return PT_OK;
}

void *
ptem_host(ptem *e, uint64_t addr, size_t bytes)
{
	if (!e)
		return NULL;
	size_t lo = 0, hi = e->nallocs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const Alloc *a = &e->allocs[mid];
		if (addr < a->addr)
			hi = mid;
		else if (addr >= a->addr + a->size)
			lo = mid + 1;
		else
			return bytes <= a->size - (addr - a->addr)
				       ? a->mem + (addr - a->addr)
				       : NULL;
	}
	return e->group ? emu_peer_host(e, addr, bytes) : NULL;
}

/* Checks the launch and binds the parameters; *out is the run to slice
 * (freed by emu_run_end, also after a failure here). */
int
emu_run_begin(ptem *e, const char *kernel, const ptem_launch *l,
	      const ptem_arg *args, size_t nargs, Run **out)
{
	*out = NULL;
	if (!e || !l || (nargs && !args))
		return PT_E_EMU_ARGS;
	e->err[0] = 0;
	e->steps = 0;
	const Kernel *k = emu_find_kernel(e->m, kernel);
	if (!k) {
		snprintf(e->err, sizeof(e->err), "no kernel %s in the module",
			 kernel ? kernel : "(any)");
		return PT_E_EMU_NO_KERNEL;
	}
	arena_free(&e->run_arena);
	arena_init(&e->run_arena, NULL);
	Run *r = calloc(1, sizeof(*r));
	if (!r)
		return PT_E_EMU_NOMEM;
	*out = r;
	r->e = e;
	r->k = k;
	r->l = l;
	r->arena = &e->run_arena;
	r->dev = e->dev;
	r->late = (l->flags & PTEM_LATE_COMPLETION) != 0;
	r->races = (l->flags & PTEM_CHECK_RACES) != 0;
	r->max_steps = l->max_steps ? l->max_steps : 1ull << 32;
	e->run_arena.oom = &e->oom;
	int st = check_launch(e, k, l, r);
	if (st)
		return st;
	r->nclusters = (uint64_t)r->ncluster[0] * r->ncluster[1] *
		       r->ncluster[2];
	if (setjmp(e->oom)) {
		snprintf(e->err, sizeof(e->err), "out of memory");
		return PT_E_EMU_NOMEM;
	}
	return pack_params(e, k, args, nargs, r);
}

bool
emu_run_slice(Run *r)
{
	if (!r->in_cluster) {
		if (r->next_cluster == r->nclusters)
			return true;
		/* the x index runs fastest, as in the grid */
		uint64_t i = r->next_cluster;
		unsigned cl[3] = {
			(unsigned)(i % r->ncluster[0]),
			(unsigned)(i / r->ncluster[0] % r->ncluster[1]),
			(unsigned)(i / ((uint64_t)r->ncluster[0] *
					r->ncluster[1]))};
		setup_cluster(r, cl);
		r->in_cluster = true;
	}
	if (run_round(r)) {
		async_complete_all(r);
		for (uint32_t i = 0; i < r->nctas; i++)
			tmem_check_exit(r, &r->ctas[i]);
		r->in_cluster = false;
		r->next_cluster++;
	}
	return false;
}

void
emu_run_end(ptem *e, Run *r)
{
	if (!e)
		return;
	e->steps = r ? r->steps : 0;
	e->run_arena.oom = NULL;
	free(r);
}

int
ptem_run(ptem *e, const char *kernel, const ptem_launch *l,
	 const ptem_arg *args, size_t nargs)
{
	Run *r;
	int st = emu_run_begin(e, kernel, l, args, nargs, &r);
	if (st)
		goto out;
	if (setjmp(e->oom)) {
		snprintf(e->err, sizeof(e->err), "out of memory");
		st = PT_E_EMU_NOMEM;
		goto out;
	}
	if (setjmp(r->fail)) {
		st = r->status;
		goto out;
	}
	while (!emu_run_slice(r))
		;
	st = PT_OK;
out:
	emu_run_end(e, r);
	return st;
}

const char *
ptem_errmsg(const ptem *e)
{
	return e ? e->err : "no emulator";
}

uint64_t
ptem_steps(const ptem *e)
{
	return e ? e->steps : 0;
}
