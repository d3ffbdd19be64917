/*
 * sync.c - barriers, mbarriers (PTX §9.7.13.15), and the asynchronous
 * copy engine: cp.async (§9.7.9.25.3), cp.async.bulk (§9.7.9.25.4) and
 * their completion mechanisms (async-groups, mbarrier complete_tx).
 *
 * An mbarrier's state lives in a side table keyed by its shared address
 * (the 8 bytes in shared memory are not used: their encoding is opaque),
 * with the ISA's fields: expected arrivals, pending arrivals, tx-count and
 * the phase.  A copy is a Pending record; without PTEM_LATE_COMPLETION it
 * completes at issue, with it only when the program must observe it (a
 * wait_group, or an mbarrier wait that nothing else can satisfy), and any
 * access to its memory before then is an EMU_ASYNC error.
 */
#include <string.h>

#include "emu/emu.h"
#include "emu/emu_async.h"

/* ---- barriers ---- */

static void
exec_bar(Run *r, Cta *c, Thread *t, const Insn *in)
{
	uint64_t id = in->nop ? opnd_get(r, c, t, &in->o[0]) : 0;
	uint64_t n = in->nop > 1 ? opnd_get(r, c, t, &in->o[1]) : 0;
	if (id >= 16 || (n && (n % 32 || n > c->nth)))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "barrier %llu with count %llu", (unsigned long long)id,
			 (unsigned long long)n);
	if (c->bar_arrived[id] && c->bar_count[id] != n)
		emu_fail(r, PT_E_EMU_DEADLOCK, t, in,
			 "barrier %llu used with two thread counts",
			 (unsigned long long)id);
	bool arrive = ptx_has(in->sel, PQ_ARRIVE);
	if (arrive && !n)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "bar.arrive needs a thread count");
	c->bar_arrived[id]++;
	c->bar_count[id] = (uint32_t)n;
	if (arrive) /* counts, does not wait */
		return;
	t->bar_id = (uint8_t)id;
	t->st = TS_BAR;
}

/* ---- mbarrier ---- */

static Mbar *
mbar_find(Run *r, Cta *c, uint32_t addr)
{
	for (uint32_t i = 0; i < c->nmbar; i++)
		if (c->mbar[i].addr == addr)
			return &c->mbar[i];
	return NULL;
}

static Mbar *
mbar_get(Run *r, Cta *c, uint32_t addr, const Thread *t, const Insn *in)
{
	Mbar *m = mbar_find(r, c, addr);
	if (!m)
		emu_fail(r, PT_E_EMU_MBARRIER, t, in,
			 "mbarrier at shared 0x%x used before mbarrier.init",
			 addr);
	return m;
}

Mbar *
mbar_lookup(Run *r, Cta *c, uint32_t addr, const Thread *t, const Insn *in)
{
	return mbar_get(r, c, addr, t, in);
}

/* A phase completes; its waiters are synchronised with every arrival
 * (a new race-check epoch for the barrier's CTA). */
static void
mbar_maybe_complete(Cta *c, Mbar *m)
{
	if (m->pending == 0 && m->tx == 0) {
		m->phase++;
		m->pending = m->expected;
		c->epoch++;
	}
}

static void
mbar_tx_range(Run *r, Mbar *m, const Thread *t, const Insn *in)
{
	if (m->tx > (1 << 20) - 1 || m->tx < -((1 << 20) - 1))
		emu_fail(r, PT_E_EMU_MBARRIER, t, in,
			 "mbarrier tx-count %lld outside the ISA's range "
			 "[-(2^20-1), 2^20-1]", (long long)m->tx);
}

void
mbar_arrive(Run *r, Cta *c, uint32_t addr, uint32_t count, const Thread *t,
	    const Insn *in)
{
	Mbar *m = mbar_get(r, c, addr, t, in);
	if (count > m->pending)
		emu_fail(r, PT_E_EMU_MBARRIER, t, in,
			 "%u arrivals on an mbarrier phase with %u pending "
			 "(expected count %u)", count, m->pending, m->expected);
	m->pending -= count;
	mbar_maybe_complete(c, m);
	r->progress = true;
}

void
mbar_complete_tx(Run *r, Cta *c, uint32_t addr, int64_t bytes,
		 const Thread *t, const Insn *in)
{
	Mbar *m = mbar_get(r, c, addr, t, in);
	m->tx -= bytes;
	mbar_tx_range(r, m, t, in);
	mbar_maybe_complete(c, m);
	r->progress = true;
}

bool
mbar_phase_done(Run *r, Cta *c, uint32_t addr, uint32_t parity)
{
	Mbar *m = mbar_find(r, c, addr);
	return m && (m->phase & 1) != (parity & 1);
}

/* The mbarrier operand: its CTA and shared address. */
Cta *
mbar_operand(Run *r, Cta *c, Thread *t, const Insn *in, const Opnd *o,
	     uint32_t *addr)
{
	uint64_t a = emu_addr(r, c, t, o);
	if (in->space == PSP_GENERIC) {
		if (a < WIN_SHARED || a >= WIN_SHARED + (1ull << 32))
			emu_fail(r, PT_E_EMU_MBARRIER, t, in,
				 "mbarrier address 0x%llx is not shared memory",
				 (unsigned long long)a);
		a -= WIN_SHARED;
	}
	if (a % 8 || a >> 32)
		emu_fail(r, PT_E_EMU_MBARRIER, t, in,
			 "mbarrier address 0x%llx is not 8-byte aligned shared "
			 "memory", (unsigned long long)a);
	Cta *owner;
	emu_smem(r, t, in, (uint32_t)a, 8, &owner);
	if (owner != c && in->space != PSP_SHARED_CLUSTER)
		emu_fail(r, PT_E_EMU_MBARRIER, t, in,
			 "shared::cta mbarrier operation on another CTA's "
			 "mbarrier");
	*addr = (uint32_t)a;
	return owner;
}

static void
exec_mbarrier(Run *r, Cta *c, Thread *t, const Insn *in)
{
	bool try_wait = in->op == PTXMN_MBARRIER_TRY_WAIT ||
			in->op == PTXMN_MBARRIER_TRY_WAIT_PARITY;
	bool has_state = in->op == PTXMN_MBARRIER_ARRIVE ||
			 in->op == PTXMN_MBARRIER_ARRIVE_EXPECT_TX || try_wait ||
			 in->op == PTXMN_MBARRIER_TEST_WAIT ||
			 in->op == PTXMN_MBARRIER_TEST_WAIT_PARITY;
	unsigned ai = has_state ? 1 : 0;
	if (in->nop <= ai || in->o[ai].kind != K_ADDR)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "malformed mbarrier");
	uint32_t addr;
	Cta *owner = mbar_operand(r, c, t, in, &in->o[ai], &addr);
	uint64_t arg = in->nop > ai + 1 ? opnd_get(r, c, t, &in->o[ai + 1]) : 0;
	switch (in->op) {
	case PTXMN_MBARRIER_INIT: {
		if (arg == 0 || arg > (1u << 20) - 1)
			emu_fail(r, PT_E_EMU_MBARRIER, t, in,
				 "mbarrier.init count %llu outside [1, 2^20-1]",
				 (unsigned long long)arg);
		Mbar *m = mbar_find(r, owner, addr);
		if (!m) {
			if (owner->nmbar == owner->capmbar) {
				uint32_t cap = owner->capmbar ? 2 * owner->capmbar : 8;
				Mbar *n = NEWN(r->arena, Mbar, cap);
				if (owner->nmbar)
					memcpy(n, owner->mbar,
					       owner->nmbar * sizeof(Mbar));
				owner->mbar = n;
				owner->capmbar = cap;
			}
			m = &owner->mbar[owner->nmbar++];
		}
		memset(m, 0, sizeof(*m));
		m->addr = addr;
		m->expected = m->pending = (uint32_t)arg;
		return;
	}
	case PTXMN_MBARRIER_INVAL: {
		Mbar *m = mbar_get(r, owner, addr, t, in);
		*m = owner->mbar[--owner->nmbar];
		return;
	}
	case PTXMN_MBARRIER_EXPECT_TX: case PTXMN_MBARRIER_COMPLETE_TX: {
		Mbar *m = mbar_get(r, owner, addr, t, in);
		m->tx += in->op == PTXMN_MBARRIER_EXPECT_TX ? (int64_t)arg
							     : -(int64_t)arg;
		mbar_tx_range(r, m, t, in);
		mbar_maybe_complete(owner, m);
		return;
	}
	case PTXMN_MBARRIER_ARRIVE: case PTXMN_MBARRIER_ARRIVE_EXPECT_TX: {
		Mbar *m = mbar_get(r, owner, addr, t, in);
		uint32_t phase = m->phase;
		uint32_t count = 1;
		if (in->op == PTXMN_MBARRIER_ARRIVE_EXPECT_TX) {
			m->tx += (int64_t)arg;
			mbar_tx_range(r, m, t, in);
		} else if (in->nop > 2) {
			count = (uint32_t)arg;
		}
		mbar_arrive(r, owner, addr, count, t, in);
		/* the state token: the phase arrived in */
		if (in->o[0].kind == K_REG)
			reg_set(t, &in->o[0], (uint64_t)phase, PTY_B64);
		return;
	}
	default: { /* try_wait / test_wait {.parity} */
		Mbar *m = mbar_get(r, owner, addr, t, in);
		(void)m;
		/* .parity: the operand is the parity; else the state token
		 * of the phase arrived in, whose low bit is its parity */
		uint32_t parity = (uint32_t)arg & 1;
		bool done = mbar_phase_done(r, owner, addr, parity);
		if (!done && try_wait) {
			/* block; the scheduler re-runs this wait once the
			 * phase completed */
			t->st = TS_MBAR;
			t->wait_addr = addr;
			t->wait_parity = parity;
			if (owner != c)
				emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
					 "waiting on another CTA's mbarrier");
			return;
		}
		reg_set(t, &in->o[0], done, PTY_PRED);
		return;
	}
	}
}

void
exec_sync(Run *r, Cta *c, Thread *t, const Insn *in)
{
	switch (in->op) {
	case PTXMN_BAR:
	case PTXMN_BARRIER:
		if (!ptx_has(in->sel, PQ_CLUSTER)) {
			exec_bar(r, c, t, in);
		} else if (ptx_has(in->sel, PQ_ARRIVE)) {
			t->cbar_phase = r->cbar_phase;
			r->cbar_arrived++;
		} else if (r->cbar_phase <= t->cbar_phase) { /* .wait */
			t->st = TS_CBAR;
		}
		return;
	case PTXMN_FENCE: case PTXMN_MEMBAR:
		/* every access here is sequentially consistent and each
		 * asynchronous operation is modelled explicitly, so fences
		 * order nothing further */
		return;
	case PTXMN_NANOSLEEP:
		/* no clock here: a sleep changes nothing (and orders
		 * nothing, unlike a fence) */
		return;
	default:
		exec_mbarrier(r, c, t, in);
	}
}

/* ---- pending asynchronous operations ---- */

uint32_t *
async_groups(Run *r, Thread *t, const Insn *in, int kind)
{
	for (size_t i = 0; i < countof(t->groups); i++) {
		if (!t->groups[i].kind)
			t->groups[i].kind = (uint32_t)kind;
		if (t->groups[i].kind == (uint32_t)kind)
			return &t->groups[i].n;
	}
	emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
		 "more than %zu kinds of async-group in one thread",
		 countof(t->groups));
}

Pending *
async_new(Run *r, Thread *t, const Insn *in, int group_kind)
{
	Pending *p = NEW(r->arena, Pending);
	p->t = t;
	p->in = in;
	p->group_kind = group_kind;
	p->group = group_kind ? *async_groups(r, t, in, group_kind) : 0;
	return p;
}

static void
async_perform(Run *r, Pending *p)
{
	if (p->perform) {
		p->perform(r, p);
	} else {
		if (p->zero_from < p->dst_n) {
			if (p->zero_from)
				memcpy(p->dst, p->src, p->zero_from);
			memset(p->dst + p->zero_from, 0, p->dst_n - p->zero_from);
		} else {
			memmove(p->dst, p->src, p->dst_n);
		}
	}
	if (p->mbar_cta)
		mbar_complete_tx(r, p->mbar_cta, p->mbar_addr, (int64_t)p->tx,
				 p->t, p->in);
	r->progress = true;
}

void
async_issue(Run *r, Pending *p)
{
	if (!r->late) {
		async_perform(r, p);
		return;
	}
	if (r->pend_tail)
		r->pend_tail->next = p;
	else
		r->pend = p;
	r->pend_tail = p;
	r->npend++;
}

static void
unlink(Run *r, Pending *prev, Pending *p)
{
	if (prev)
		prev->next = p->next;
	else
		r->pend = p->next;
	if (r->pend_tail == p)
		r->pend_tail = prev;
	r->npend--;
}

bool
async_complete_one(Run *r)
{
	Pending *p = r->pend;
	if (!p)
		return false;
	unlink(r, NULL, p);
	async_perform(r, p);
	return true;
}

void
async_complete_all(Run *r)
{
	while (async_complete_one(r))
		;
}

/* Completes t's operations of an async-group kind older than the newest
 * `keep` committed groups. */
void
async_wait_groups(Run *r, Thread *t, int kind, uint32_t keep)
{
	uint32_t committed = *async_groups(r, t, NULL, kind);
	Pending *prev = NULL, *p = r->pend;
	while (p) {
		Pending *next = p->next;
		if (p->t == t && p->group_kind == kind &&
		    p->group + keep < committed) {
			unlink(r, prev, p);
			async_perform(r, p);
		} else {
			prev = p;
		}
		p = next;
	}
}

static bool
overlaps(const uint8_t *a, uint64_t an, const uint8_t *b, uint64_t bn)
{
	return a && b && a < b + bn && b < a + an;
}

void
async_check(Run *r, const Thread *t, const Insn *in, const uint8_t *ptr,
	    uint64_t n, bool write)
{
	for (Pending *p = r->pend; p; p = p->next) {
		char at[400];
		if (overlaps(ptr, n, p->dst, p->dst_n) ||
		    (write && (overlaps(ptr, n, p->src, p->src_n) ||
			       overlaps(ptr, n, p->src2, p->src2_n))))
			emu_fail(r, PT_E_EMU_ASYNC, t, in,
				 "%s memory of the asynchronous copy issued at "
				 "%s before it completed (no wait observed its "
				 "completion)", write ? "writes" : "reads",
				 emu_where(r, p->in->line, at, sizeof(at)));
	}
}

/* ---- cp.async and cp.async.bulk ---- */

static uint8_t *
operand_mem(Run *r, Cta *c, Thread *t, const Insn *in, const Opnd *o,
	    int space, uint64_t n, bool write, uint64_t align)
{
	uint64_t a = emu_addr(r, c, t, o);
	if (a % align)
		emu_fail(r, PT_E_EMU_OOB, t, in,
			 "address 0x%llx is not %llu-byte aligned",
			 (unsigned long long)a, (unsigned long long)align);
	return emu_mem(r, c, t, in, space, a, n, write);
}

static void
exec_cp_async(Run *r, Cta *c, Thread *t, const Insn *in)
{
	if (in->nop < 3)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "malformed cp.async");
	uint64_t size = opnd_get(r, c, t, &in->o[2]);
	if (size != 4 && size != 8 && size != 16)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "cp-size %llu",
			 (unsigned long long)size);
	uint64_t src_size = size;
	/* cp.async ... [d], [s], cp-size{, src-size | ignore-src}
	 * {, cache-policy}: a predicate fourth operand is ignore-src (true:
	 * no source read, the whole chunk zero) */
	if (in->nop > 3 && in->o[3].kind == K_REG && in->o[3].pred)
		src_size = (opnd_get(r, c, t, &in->o[3]) != 0) != in->o[3].neg
				   ? 0 : size;
	else if (in->nop > 3 && !insn_q(in, PQ_L2_CACHE_HINT))
		src_size = opnd_get(r, c, t, &in->o[3]) & 0xffffffffu;
	if (src_size > size)
		emu_fail(r, PT_E_EMU_OOB, t, in,
			 "src-size %llu larger than cp-size %llu",
			 (unsigned long long)src_size, (unsigned long long)size);
	Pending *p = async_new(r, t, in, PTXMN_CP_ASYNC_COMMIT_GROUP);
	p->dst = operand_mem(r, c, t, in, &in->o[0], PSP_SHARED, size, true,
			     size);
	p->dst_n = size;
	if (src_size) {
		p->src = operand_mem(r, c, t, in, &in->o[1], PSP_GLOBAL, src_size,
				     false, size);
		p->src_n = src_size;
	}
	p->zero_from = src_size;
	async_issue(r, p);
}

/* cp.async.bulk.{dst}.{src}.{completion} [dst], [src], size{, [mbar]} */
static void
exec_cp_bulk(Run *r, Cta *c, Thread *t, const Insn *in)
{
	/* the directions are the selected form's operand spaces */
	bool to_global = in->sel->ops[0].space == PSP_GLOBAL;
	if (in->nop < 3 || insn_q(in, PQ_MULTICAST_CLUSTER))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "not modelled");
	uint64_t size = opnd_get(r, c, t, &in->o[2]);
	if (size == 0 || size % 16)
		emu_fail(r, PT_E_EMU_OOB, t, in,
			 "bulk copy size %llu is not a multiple of 16",
			 (unsigned long long)size);
	bool src_smem = in->sel->ops[1].space != PSP_GLOBAL;
	int dsp = to_global ? PSP_GLOBAL : PSP_SHARED_CLUSTER;
	int ssp = src_smem ? PSP_SHARED : PSP_GLOBAL;
	Pending *p = async_new(r, t, in,
			       to_global ? PTXMN_CP_ASYNC_BULK_COMMIT_GROUP : 0);
	p->dst = operand_mem(r, c, t, in, &in->o[0], dsp, size, true, 16);
	p->dst_n = size;
	p->src = operand_mem(r, c, t, in, &in->o[1], ssp, size, false, 16);
	p->src_n = size;
	p->zero_from = size;
	if (!to_global) {
		if (in->nop < 4)
			emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
				 "missing mbarrier");
		Insn tmp = *in;
		tmp.space = PSP_SHARED_CLUSTER;
		p->mbar_cta = mbar_operand(r, c, t, &tmp, &in->o[3],
					   &p->mbar_addr);
		/* the mbarrier must be in the destination's CTA */
		uint64_t d = emu_addr(r, c, t, &in->o[0]);
		if (((uint32_t)d >> SMEM_RANK_SHIFT) !=
		    p->mbar_addr >> SMEM_RANK_SHIFT)
			emu_fail(r, PT_E_EMU_MBARRIER, t, in,
				 "the mbarrier is not in the destination CTA");
		mbar_get(r, p->mbar_cta, p->mbar_addr, t, in);
		p->tx = size;
	}
	async_issue(r, p);
}

void
exec_async(Run *r, Cta *c, Thread *t, const Insn *in)
{
	switch (in->op) {
	case PTXMN_CP_ASYNC:
		exec_cp_async(r, c, t, in);
		return;
	case PTXMN_CP_ASYNC_COMMIT_GROUP:
		(*async_groups(r, t, in, PTXMN_CP_ASYNC_COMMIT_GROUP))++;
		return;
	case PTXMN_CP_ASYNC_WAIT_ALL:
		(*async_groups(r, t, in, PTXMN_CP_ASYNC_COMMIT_GROUP))++;
		async_wait_groups(r, t, PTXMN_CP_ASYNC_COMMIT_GROUP, 0);
		return;
	case PTXMN_CP_ASYNC_WAIT_GROUP:
		async_wait_groups(r, t, PTXMN_CP_ASYNC_COMMIT_GROUP,
				  (uint32_t)opnd_get(r, c, t, &in->o[0]));
		return;
	case PTXMN_CP_ASYNC_BULK:
		exec_cp_bulk(r, c, t, in);
		return;
	case PTXMN_CP_ASYNC_BULK_COMMIT_GROUP:
		(*async_groups(r, t, in, PTXMN_CP_ASYNC_BULK_COMMIT_GROUP))++;
		return;
	case PTXMN_CP_ASYNC_BULK_WAIT_GROUP:
		async_wait_groups(r, t, PTXMN_CP_ASYNC_BULK_COMMIT_GROUP,
				  (uint32_t)opnd_get(r, c, t, &in->o[0]));
		return;
	default:
		exec_tma(r, c, t, in);
	}
}
