/*
 * devices.c - several emulated devices (ptem_group_*): one global address
 * space over the devices' memories, launches interleaved round by round,
 * the livelock stop, and the cross-device ordering check.
 *
 * Addresses: device d allocates from its own window (emu.h DEV_WINDOW), so
 * the owner of an address is its window, and ptem_host of any device
 * falls back to the owner's allocations: a peer pointer is an ordinary
 * address, as with CUDA's unified addressing.
 *
 * Ordering (PTEM_CHECK_ORDER; docs/emulator.md "Several devices"): each
 * device is one agent with a vector clock vc[d].  Every global byte keeps
 * its last writer, the writer's own clock at the write and whether it
 * was a strong .sys write; the contents at launch count as written by the
 * owner at clock 1.  A release at .sys scope (st.release, atom/red
 * .release/.acq_rel, or a relaxed .sys store/RMW after fence.sc/acq_rel
 * .sys) gives the location the releasing device's clock and advances that
 * device's own clock; an acquire at .sys scope (ld.acquire, atom
 * .acquire/.acq_rel, or a relaxed .sys read followed by such a fence)
 * joins the location's clock into the reader's.  An access to a byte
 * another device wrote is ordered when the accessor's clock covers the
 * write, or when both are strong .sys accesses (morally strong: no data
 * race).  Anything else is PT_E_EMU_ORDER, naming both PTX lines.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"

#define MAXD PTEM_MAX_DEVICES

struct ptem_group {
	unsigned n;
	ptem *dev[MAXD];
	char err[1200];
};

/* What one byte of global memory last had written to it. */
typedef struct OShadow {
	uint32_t clock; /* the writer's own clock component then */
	int32_t line;	/* the writing PTX line */
	uint8_t dev;	/* writer + 1; 0: the contents at launch (owner) */
	uint8_t strong; /* a strong .sys write (relaxed, release, atomic) */
} OShadow;

/* A location a .sys release wrote: the clock an acquire of it gets. */
typedef struct OSync {
	uint64_t addr; /* 0: an empty slot */
	bool live;     /* false: a plain store broke the release sequence */
	uint32_t vc[MAXD];
} OSync;

typedef struct Order {
	unsigned n;
	Run *runs[MAXD];
	uint32_t vc[MAXD][MAXD];   /* vc[d][e]: how much of e d has seen */
	uint32_t pend[MAXD][MAXD]; /* released clocks d read relaxed */
	int pend_line[MAXD];	   /* the last such read (0: none) */
	uint32_t frel[MAXD][MAXD]; /* d's clock at its last release fence */
	bool has_frel[MAXD];
	OShadow **shadow[MAXD]; /* per owner, per allocation, lazily */
	size_t nshadow[MAXD];
	OSync *sync;
	size_t capsync, nsync;
	Arena arena;
} Order;

/* ---- the group ---- */

ptem_group *
ptem_group_new(unsigned ndevices)
{
	if (ndevices < 1 || ndevices > MAXD)
		return NULL;
	ptem_group *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->n = ndevices;
	for (unsigned d = 0; d < ndevices; d++) {
		g->dev[d] = ptem_new();
		if (!g->dev[d]) {
			ptem_group_free(g);
			return NULL;
		}
		g->dev[d]->group = g;
		g->dev[d]->dev = d;
		g->dev[d]->next_addr = WIN_GLOBAL + d * DEV_WINDOW;
	}
	return g;
}

void
ptem_group_free(ptem_group *g)
{
	if (!g)
		return;
	for (unsigned d = 0; d < g->n; d++) {
		if (g->dev[d])
			g->dev[d]->group = NULL;
		ptem_free(g->dev[d]);
	}
	free(g);
}

unsigned
ptem_group_size(const ptem_group *g)
{
	return g ? g->n : 0;
}

ptem *
ptem_group_device(ptem_group *g, unsigned d)
{
	return g && d < g->n ? g->dev[d] : NULL;
}

const char *
ptem_group_errmsg(const ptem_group *g)
{
	return g ? g->err : "no emulator group";
}

static unsigned
owner_of(uint64_t addr)
{
	return addr < WIN_GLOBAL ? MAXD
				 : (unsigned)((addr - WIN_GLOBAL) / DEV_WINDOW);
}

void *
emu_peer_host(ptem *e, uint64_t addr, size_t n)
{
	unsigned o = owner_of(addr);
	if (!e->group || o >= e->group->n || o == e->dev)
		return NULL;
	return ptem_host(e->group->dev[o], addr, n);
}

bool
emu_quiet_op(PtxMnem m)
{
	switch (m) {
	/* register arithmetic and logic */
	case PTXMN_MOV:
	case PTXMN_ADD:
	case PTXMN_SUB:
	case PTXMN_MUL:
	case PTXMN_MAD:
	case PTXMN_FMA:
	case PTXMN_DIV:
	case PTXMN_REM:
	case PTXMN_ABS:
	case PTXMN_NEG:
	case PTXMN_MIN:
	case PTXMN_MAX:
	case PTXMN_AND:
	case PTXMN_OR:
	case PTXMN_XOR:
	case PTXMN_NOT:
	case PTXMN_CNOT:
	case PTXMN_SHL:
	case PTXMN_SHR:
	case PTXMN_SETP:
	case PTXMN_SELP:
	case PTXMN_POPC:
	case PTXMN_CLZ:
	case PTXMN_BREV:
	case PTXMN_BFE:
	case PTXMN_BFI:
	case PTXMN_PRMT:
	case PTXMN_LOP3:
	case PTXMN_RCP:
	case PTXMN_SQRT:
	case PTXMN_RSQRT:
	case PTXMN_EX2:
	case PTXMN_LG2:
	case PTXMN_SIN:
	case PTXMN_COS:
	case PTXMN_TANH:
	case PTXMN_COPYSIGN:
	case PTXMN_CVT:
	case PTXMN_FNS:
	/* loads, address arithmetic, branches, fences */
	case PTXMN_LD:
	case PTXMN_CVTA:
	case PTXMN_MAPA:
	case PTXMN_PREFETCH:
	case PTXMN_BRA:
	case PTXMN_FENCE:
	case PTXMN_MEMBAR:
	case PTXMN_NANOSLEEP: /* no clock here: a no-op, ordering nothing */
		return true;
	default:
		return false;
	}
}

/* ---- the ordering check ---- */

typedef struct Sem {
	bool rmw, read, write, acquire, release, strong, sys;
} Sem;

static Sem
sem_of(const Insn *in, bool write)
{
	Sem s = {0};
	bool atom = in->op == PTXMN_ATOM, red = in->op == PTXMN_RED;
	bool acq_rel = insn_q(in, PQ_ACQ_REL);
	s.rmw = atom || red;
	s.read = !write || atom;
	s.write = write;
	s.acquire = s.read && (insn_q(in, PQ_ACQUIRE) || acq_rel);
	s.release = write && (insn_q(in, PQ_RELEASE) || acq_rel);
	/* ld/st.volatile on global memory is relaxed at .sys scope */
	bool vol = insn_q(in, PQ_VOLATILE);
	s.strong = s.rmw || s.acquire || s.release || vol ||
		   insn_q(in, PQ_RELAXED);
	s.sys = s.strong && (vol || insn_q(in, PQ_SCOPE_SYS));
	return s;
}

static void
join(uint32_t *a, const uint32_t *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (b[i] > a[i])
			a[i] = b[i];
}

static size_t
sync_slot(const Order *o, uint64_t addr)
{
	size_t h = (size_t)((addr >> 2) * 0x9e3779b97f4a7c15ull);
	size_t i = h & (o->capsync - 1);
	while (o->sync[i].addr && o->sync[i].addr != addr)
		i = (i + 1) & (o->capsync - 1);
	return i;
}

static OSync *
sync_find(Order *o, uint64_t addr)
{
	if (!o->capsync)
		return NULL;
	OSync *x = &o->sync[sync_slot(o, addr)];
	return x->addr ? x : NULL;
}

static OSync *
sync_get(Run *r, Order *o, const Thread *t, const Insn *in, uint64_t addr)
{
	OSync *x = sync_find(o, addr);
	if (x)
		return x;
	if (4 * (o->nsync + 1) > 3 * o->capsync) {
		size_t cap = o->capsync ? 2 * o->capsync : 64;
		OSync *old = o->sync;
		size_t oldcap = o->capsync;
		o->sync = NEWN(&o->arena, OSync, cap);
		if (!o->sync)
			emu_fail(r, PT_E_EMU_NOMEM, t, in, "out of memory");
		o->capsync = cap;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].addr)
				o->sync[sync_slot(o, old[i].addr)] = old[i];
	}
	x = &o->sync[sync_slot(o, addr)];
	x->addr = addr;
	o->nsync++;
	return x;
}

/* The shadow of [addr, addr + n), inside one allocation of its owner. */
static OShadow *
shadow_of(Run *r, Order *o, const Thread *t, const Insn *in, uint64_t addr,
	  unsigned owner)
{
	ptem *e = r->e->group->dev[owner];
	size_t lo = 0, hi = e->nallocs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const Alloc *a = &e->allocs[mid];
		if (addr < a->addr)
			hi = mid;
		else if (addr >= a->addr + a->size)
			lo = mid + 1;
		else {
			if (o->nshadow[owner] < e->nallocs) {
				OShadow **v =
					NEWN(&o->arena, OShadow *, e->nallocs);
				if (!v)
					break;
				if (o->nshadow[owner])
					memcpy(v, o->shadow[owner],
					       o->nshadow[owner] * sizeof(*v));
				o->shadow[owner] = v;
				o->nshadow[owner] = e->nallocs;
			}
			OShadow **s = &o->shadow[owner][mid];
			if (!*s)
				*s = NEWN(&o->arena, OShadow, a->size);
			if (!*s)
				break;
			return *s + (addr - a->addr);
		}
	}
	emu_fail(r, PT_E_EMU_NOMEM, t, in,
		 "out of memory (ordering shadow of 0x%llx)",
		 (unsigned long long)addr);
}

static _Noreturn void
order_report(Run *r, Order *o, const Thread *t, const Insn *in, uint64_t addr,
	     const OShadow *b, unsigned owner, bool write)
{
	unsigned d = r->dev, w = b->dev ? b->dev - 1u : owner;
	uint32_t wc = b->dev ? b->clock : 1;
	char who[600], at[500], hint[600] = "";
	if (b->dev)
		snprintf(who, sizeof(who), "device %u wrote at %s", w,
			 emu_where(o->runs[w], b->line, at, sizeof(at)));
	else
		snprintf(who, sizeof(who),
			 "device %u holds from before the launch", w);
	if (o->pend_line[d] && o->pend[d][w] >= wc)
		snprintf(hint, sizeof(hint),
			 "; its read of device %u's release at %s was relaxed "
			 "and no fence.acq_rel.sys or fence.sc.sys followed it",
			 w, emu_where(r, o->pend_line[d], at, sizeof(at)));
	emu_fail(r, PT_E_EMU_ORDER, t, in,
		 "cross-device race: device %u %s byte 0x%llx (device %u's "
		 "memory), which %s, with no synchronisation between: device "
		 "%u has acquired no .sys release of device %u made after "
		 "that write%s",
		 d, write ? "writes" : "reads", (unsigned long long)addr, owner,
		 who, d, w, hint);
}

void
emu_order_global(Run *r, const Thread *t, const Insn *in, uint64_t addr,
		 uint64_t n, bool write)
{
	Order *o = r->order;
	unsigned d = r->dev, owner = owner_of(addr);
	if (owner >= o->n)
		return;
	Sem s = sem_of(in, write);
	OShadow *sh = shadow_of(r, o, t, in, addr, owner);
	for (uint64_t i = 0; i < n; i++) {
		const OShadow *b = &sh[i];
		unsigned w = b->dev ? b->dev - 1u : owner;
		/* launch contents are checked for weak reads only: a strong
		 * .sys access of them is a flag or counter zeroed before the
		 * first call, and writing over them is not checked */
		if (w == d || (!b->dev && (!s.read || s.sys)))
			continue;
		if (b->dev && b->strong && s.sys)
			continue; /* two strong .sys accesses: no data race */
		if (o->vc[d][w] < (b->dev ? b->clock : 1))
			order_report(r, o, t, in, addr + i, b, owner, write);
	}
	if (s.read && s.sys) {
		OSync *x = sync_find(o, addr);
		if (x && x->live && s.acquire) {
			join(o->vc[d], x->vc, o->n);
		} else if (x && x->live) {
			join(o->pend[d], x->vc, o->n);
			o->pend_line[d] = in->line;
		}
	}
	if (!write)
		return;
	if (s.sys && (s.release || o->has_frel[d])) {
		OSync *x = sync_get(r, o, t, in, addr);
		const uint32_t *rel = s.release ? o->vc[d] : o->frel[d];
		if (!(s.rmw && x->live))
			memset(x->vc, 0, sizeof(x->vc));
		join(x->vc, rel, o->n);
		x->live = true;
	} else if (!(s.rmw && s.sys)) {
		/* a plain store ends the release sequence; an RMW continues it
		 */
		OSync *x = sync_find(o, addr);
		if (x)
			x->live = false;
	}
	for (uint64_t i = 0; i < n; i++)
		sh[i] = (OShadow){o->vc[d][d], in->line, (uint8_t)(d + 1),
				  s.sys};
	if (s.release)
		o->vc[d][d]++;
}

void
emu_order_fence(Run *r, const Insn *in)
{
	Order *o = r->order;
	unsigned d = r->dev;
	/* only .sys fences order devices; proxy fences order proxies */
	if (!insn_q(in, PQ_SCOPE_SYS) || insn_q(in, PQ_PROXY_ALIAS) ||
	    insn_q(in, PQ_PROXY_ASYNC) || insn_q(in, PQ_PROXY_TENSORMAP))
		return;
	if (!insn_q(in, PQ_RELEASE))
		join(o->vc[d], o->pend[d], o->n);
	if (!insn_q(in, PQ_ACQUIRE)) {
		memcpy(o->frel[d], o->vc[d], sizeof(o->frel[d]));
		o->has_frel[d] = true;
		o->vc[d][d]++;
	}
}

/* ---- running a group ---- */

/* One scheduling round of r. */
static int
run_slice(Run *r, bool *done)
{
	ptem *e = r->e;
	e->run_arena.oom = &e->oom;
	if (setjmp(e->oom)) {
		snprintf(e->err, sizeof(e->err), "out of memory");
		return PT_E_EMU_NOMEM;
	}
	if (setjmp(r->fail))
		return r->status;
	*done = emu_run_slice(r);
	return PT_OK;
}

static bool
livelocked(Run *const *runs, const bool *done, unsigned n)
{
	for (unsigned d = 0; d < n; d++)
		if (!done[d] && runs[d]->quiet < PTEM_LIVELOCK_WINDOW)
			return false;
	return true;
}

static int
report_livelock(Run *r)
{
	if (setjmp(r->fail))
		return r->status;
	emu_fail(r, PT_E_EMU_LIVELOCK, r->quiet_t, r->quiet_in,
		 "livelock: every unfinished device has run %llu instructions "
		 "in a row with no store, atomic, barrier or exit; this thread "
		 "spins here, waiting for a value no device will write",
		 (unsigned long long)PTEM_LIVELOCK_WINDOW);
}

static Order *
order_new(unsigned n)
{
	Order *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	arena_init(&o->arena, NULL);
	o->n = n;
	for (unsigned d = 0; d < n; d++)
		o->vc[d][d] = 1;
	return o;
}

static void
order_free(Order *o)
{
	if (!o)
		return;
	arena_free(&o->arena);
	free(o);
}

int
ptem_group_run(ptem_group *g, const ptem_device_launch *ls, size_t n)
{
	if (!g)
		return PT_E_EMU_ARGS;
	g->err[0] = 0;
	if (!ls || n != g->n) {
		snprintf(g->err, sizeof(g->err),
			 "%zu launches for a group of %u devices", n, g->n);
		return PT_E_EMU_ARGS;
	}
	bool check = false;
	for (unsigned d = 0; d < n; d++)
		check |= (ls[d].launch.flags & PTEM_CHECK_ORDER) != 0;
	Order *o = check ? order_new(g->n) : NULL;
	if (check && !o)
		return PT_E_EMU_NOMEM;
	Run *runs[MAXD] = {0};
	bool done[MAXD] = {0};
	int st = PT_OK;
	unsigned bad = 0, left = g->n;
	for (unsigned d = 0; d < g->n && !st; d++) {
		st = emu_run_begin(g->dev[d], ls[d].kernel, &ls[d].launch,
				   ls[d].args, ls[d].nargs, &runs[d]);
		bad = d;
		if (!st) {
			runs[d]->order = o;
			if (o)
				o->runs[d] = runs[d];
		}
	}
	while (!st && left) {
		for (unsigned d = 0; d < g->n && !st; d++) {
			if (done[d])
				continue;
			st = run_slice(runs[d], &done[d]);
			bad = d;
			left -= done[d];
		}
		if (!st && left && livelocked(runs, done, g->n)) {
			for (bad = 0; done[bad]; bad++)
				;
			st = report_livelock(runs[bad]);
		}
	}
	if (st)
		snprintf(g->err, sizeof(g->err), "device %u: %s", bad,
			 g->dev[bad]->err);
	for (unsigned d = 0; d < g->n; d++)
		emu_run_end(g->dev[d], runs[d]);
	order_free(o);
	return st;
}
