/*
 * mem.c - the state spaces and ld/st/st.bulk/cvta/mapa (PTX §5.1, §9.7.9).
 *
 * Addresses: global memory is what ptem_alloc handed out (from WIN_GLOBAL
 * up, 4 KiB gaps between allocations); a shared address is
 * (cluster rank << 24) | offset, so the shared::cta window of a CTA is part
 * of the shared::cluster window as the ISA requires, and mapa only
 * replaces the rank; the generic space maps shared, local and param
 * addresses into windows (emu.h) and everything else to global.  Every
 * access is bounds- and alignment-checked.
 */
#include <stdio.h>
#include <string.h>

#include "emu/emu.h"

uint8_t *
emu_smem(Run *r, Thread *t, const Insn *in, uint32_t addr, uint64_t n,
	 Cta **owner)
{
	uint32_t rank = addr >> SMEM_RANK_SHIFT;
	uint32_t off = addr & ((1u << SMEM_RANK_SHIFT) - 1);
	Cta *c = cta_of_rank(r, t, in, rank);
	if ((uint64_t)off + n > c->smem_size)
		emu_fail(r, PT_E_EMU_OOB, t, in,
			 "shared access [0x%x, +%llu) outside the %u bytes of "
			 "CTA rank %u", off, (unsigned long long)n,
			 c->smem_size, rank);
	if (owner)
		*owner = c;
	return c->smem + off;
}

/* A thread's shared access: bounds, and the race check when it is on. */
static uint8_t *
shared_access(Run *r, Thread *t, const Insn *in, uint32_t addr, uint64_t n,
	      bool write)
{
	Cta *owner;
	uint8_t *p = emu_smem(r, t, in, addr, n, &owner);
	if (r->races && t)
		race_check(r, owner, addr & ((1u << SMEM_RANK_SHIFT) - 1), n, t,
			   in, write);
	return p;
}

static uint16_t
thread_key(Run *r, const Thread *t)
{
	return (uint16_t)((cta_of_thread(r, t)->rank << 11 | t->lin) + 1);
}

static const Thread *
thread_of_key(Run *r, uint16_t key)
{
	uint32_t k = (uint32_t)key - 1;
	return &r->ctas[k >> 11].th[k & 2047];
}

/* Warp key of a thread: CTA rank and warp, + 1 (0 is "none"). */
static uint16_t
warp_key(Run *r, const Thread *t)
{
	return (uint16_t)((cta_of_thread(r, t)->rank << 5 | (t->warp & 31)) + 1);
}

/* An access of byte s made by thread `other` when its warp had
 * completed `stamp` collectives happens before t's access now: the same
 * thread, or a lane of t's warp that took part in a later collective t
 * is ordered after.  (CTA-wide barriers start a new epoch instead.) */
static bool
ordered_after(Run *r, const Thread *t, uint16_t me, uint16_t other,
	      uint32_t stamp)
{
	if (other == me)
		return true;
	const Thread *o = thread_of_key(r, other);
	return warp_key(r, o) == warp_key(r, t) && t->wvc[o->lane] > stamp;
}

static _Noreturn void
report_race(Run *r, Cta *owner, uint32_t byte, const Thread *t,
	    const Insn *in, bool write, uint16_t other, bool wrote,
	    uint32_t line)
{
	const Thread *o = thread_of_key(r, other);
	char at[400];
	emu_fail(r, PT_E_EMU_RACE, t, in,
		 "shared-memory race on byte 0x%x of CTA rank %u: this %s, "
		 "and thread (%u,%u,%u) of CTA rank %u %s it at %s with no "
		 "synchronisation between", byte, owner->rank,
		 write ? "write" : "read", o->tid[0], o->tid[1], o->tid[2],
		 (unsigned)(other - 1) >> 11, wrote ? "wrote" : "read",
		 emu_where(r, (int)line, at, sizeof(at)));
}

/* A write must come after every read since the last one. */
static void
check_readers(Run *r, Cta *owner, Shadow *s, uint32_t byte, const Thread *t,
	      const Insn *in, uint16_t me)
{
	uint16_t wk = warp_key(r, t);
	if (s->xkey)
		report_race(r, owner, byte, t, in, true,
			    s->rwarp == wk ? s->xkey : s->rkey, false,
			    s->rwarp == wk ? s->xline : s->rline);
	if (!s->rwarp)
		return;
	if (s->rwarp != wk)
		report_race(r, owner, byte, t, in, true, s->rkey, false,
			    s->rline);
	if (!ordered_after(r, t, me, s->rkey, s->rstamp))
		report_race(r, owner, byte, t, in, true, s->rkey, false,
			    s->rline);
	uint32_t first = (uint32_t)(me - 1) - t->lane;
	for (uint32_t m = s->rmask & ~(1u << t->lane); m; m &= m - 1) {
		uint32_t l = (uint32_t)__builtin_ctz(m);
		if (t->wvc[l] <= s->rstamp)
			report_race(r, owner, byte, t, in, true,
				    (uint16_t)(first + l + 1), false, s->rline);
	}
}

static void
note_read(Run *r, Shadow *s, const Thread *t, const Insn *in, uint16_t me)
{
	uint16_t wk = warp_key(r, t);
	uint32_t seq = cta_of_thread(r, t)->wseq[t->warp & 31];
	if (s->rwarp && s->rwarp != wk) {
		s->xkey = me;
		s->xline = (uint32_t)in->line;
		return;
	}
	if (!s->rwarp) {
		s->rwarp = wk;
		s->rmask = 0;
	}
	/* readers already ordered before this one need no record */
	for (uint32_t m = s->rmask; m; m &= m - 1) {
		uint32_t l = (uint32_t)__builtin_ctz(m);
		if (t->wvc[l] > s->rstamp)
			s->rmask &= ~(1u << l);
	}
	s->rmask |= 1u << t->lane;
	s->rstamp = seq;
	s->rkey = me;
	s->rline = (uint32_t)in->line;
}

void
race_check(Run *r, Cta *owner, uint32_t off, uint64_t n, const Thread *t,
	   const Insn *in, bool write)
{
	if (!owner->shadow)
		owner->shadow = NEWN(r->arena, Shadow, owner->smem_size + 1);
	uint16_t me = thread_key(r, t);
	uint32_t seq = cta_of_thread(r, t)->wseq[t->warp & 31];
	for (uint64_t i = 0; i < n; i++) {
		Shadow *s = &owner->shadow[off + i];
		uint32_t byte = (uint32_t)(off + i);
		if (s->epoch != owner->epoch) {
			memset(s, 0, sizeof(*s));
			s->epoch = owner->epoch;
		}
		if (s->writer && !ordered_after(r, t, me, s->writer, s->wstamp))
			report_race(r, owner, byte, t, in, write, s->writer,
				    true, s->wline);
		if (!write) {
			note_read(r, s, t, in, me);
			continue;
		}
		check_readers(r, owner, s, byte, t, in, me);
		s->writer = me;
		s->wstamp = seq;
		s->wline = (uint32_t)in->line;
		s->rwarp = s->xkey = s->rkey = 0;
		s->rmask = 0;
	}
}

static uint8_t *
window(Run *r, Thread *t, const Insn *in, uint8_t *base, uint64_t size,
       uint64_t off, uint64_t n, const char *what)
{
	if (off > size || n > size - off)
		emu_fail(r, PT_E_EMU_OOB, t, in,
			 "%s access [0x%llx, +%llu) outside its %llu bytes",
			 what, (unsigned long long)off, (unsigned long long)n,
			 (unsigned long long)size);
	return base + off;
}

uint8_t *
emu_mem(Run *r, Cta *c, Thread *t, const Insn *in, int sp, uint64_t addr,
	uint64_t n, bool write)
{
	uint8_t *p;
	if (sp == PSP_GENERIC) {
		if (addr >= WIN_SHARED && addr < WIN_SHARED + (1ull << 32))
			return emu_mem(r, c, t, in, PSP_SHARED_CLUSTER,
				       addr - WIN_SHARED, n, write);
		if (addr >= WIN_LOCAL && addr < WIN_LOCAL + (1ull << 24))
			return emu_mem(r, c, t, in, PSP_LOCAL, addr - WIN_LOCAL,
				       n, write);
		if (addr >= WIN_PARAM && addr < WIN_PARAM + (1ull << 24))
			return emu_mem(r, c, t, in, PSP_PARAM, addr - WIN_PARAM,
				       n, write);
		sp = PSP_GLOBAL;
	}
	switch (sp) {
	case PSP_GLOBAL:
		p = ptem_host(r->e, addr, n);
		if (!p)
			emu_fail(r, PT_E_EMU_OOB, t, in,
				 "global access [0x%llx, +%llu) outside every "
				 "allocation", (unsigned long long)addr,
				 (unsigned long long)n);
		if (r->order)
			emu_order_global(r, t, in, addr, n, write);
		break;
	case PSP_SHARED:
		if (addr >> 32 || (addr >> SMEM_RANK_SHIFT) != c->rank)
			emu_fail(r, PT_E_EMU_OOB, t, in,
				 "shared::cta address 0x%llx is not in this "
				 "CTA's window", (unsigned long long)addr);
		p = shared_access(r, t, in, (uint32_t)addr, n, write);
		break;
	case PSP_SHARED_CLUSTER:
		if (addr >> 32)
			emu_fail(r, PT_E_EMU_OOB, t, in,
				 "shared address 0x%llx too large",
				 (unsigned long long)addr);
		p = shared_access(r, t, in, (uint32_t)addr, n, write);
		break;
	case PSP_LOCAL:
		p = window(r, t, in, t->local, r->k->local_size, addr, n,
			   "local");
		break;
	case PSP_PARAM:
		if (write)
			emu_fail(r, PT_E_EMU_OOB, t, in,
				 "write to kernel parameters");
		p = window(r, t, in, r->param, r->k->param_size, addr, n,
			   "param");
		break;
	default:
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "the .const space is not modelled");
	}
	if (r->npend)
		async_check(r, t, in, p, n, write);
	return p;
}

uint64_t
emu_addr(Run *r, Cta *c, Thread *t, const Opnd *o)
{
	if (o->kind != K_ADDR)
		return opnd_get(r, c, t, o);
	uint64_t a = (uint64_t)o->imm;
	if (o->reg != NOREG)
		a += t->r[o->reg];
	if (o->smem)
		a += (uint64_t)c->rank << SMEM_RANK_SHIFT;
	return a;
}

uint64_t
emu_load_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

void
emu_store_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void
exec_ld_st(Run *r, Cta *c, Thread *t, const Insn *in)
{
	bool st = in->op == PTXMN_ST;
	if (in->nop != 2 || !in->nty || in->o[st ? 0 : 1].kind != K_ADDR)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "malformed access");
	PtxType ty = (PtxType)in->ty[in->nty - 1];
	unsigned eb = emu_ty[ty].bytes, nv = in->vec ? in->vec : 1;
	if (ty == PTY_B128 || eb == 0)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "not modelled");
	const Opnd *data = &in->o[st ? 1 : 0];
	if ((nv > 1) != (data->kind == K_VEC) ||
	    (data->kind == K_VEC && data->n != nv))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "vector operand does not match .v%u", nv);
	uint64_t addr = emu_addr(r, c, t, &in->o[st ? 0 : 1]);
	uint64_t total = (uint64_t)eb * nv;
	if (addr % total)
		emu_fail(r, PT_E_EMU_OOB, t, in,
			 "address 0x%llx is not aligned to the %llu-byte access",
			 (unsigned long long)addr, (unsigned long long)total);
	uint8_t *p = emu_mem(r, c, t, in, in->space, addr, total, st);
	for (unsigned i = 0; i < nv; i++) {
		const Opnd *o = nv > 1 ? vec_elem(r, data, i) : data;
		if (st)
			emu_store_le(p + i * eb, opnd_get(r, c, t, o), eb);
		else if (o->kind == K_REG)
			reg_set(t, o, emu_load_le(p + i * eb, eb), ty);
	}
}

static void
exec_atom(Run *r, Cta *c, Thread *t, const Insn *in)
{
	bool red = in->op == PTXMN_RED;
	unsigned want = red ? 2u : in->aop == AOP_CAS ? 4u : 3u;
	if (!in->aop || !in->nty || in->nop != want ||
	    in->o[red ? 0 : 1].kind != K_ADDR || in->vec)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "not modelled");
	PtxType ty = (PtxType)in->ty[in->nty - 1];
	unsigned eb = emu_ty[ty].bytes;
	int cls = emu_ty[ty].cls;
	bool ok = (eb == 4 || eb == 8) && cls != TC_PAIR &&
		  (cls != TC_F || in->aop == AOP_ADD) &&
		  (in->aop != AOP_INC && in->aop != AOP_DEC ? true : eb == 4) &&
		  !(in->fl & ~0u);
	if (!ok)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "not modelled");
	uint64_t addr = emu_addr(r, c, t, &in->o[red ? 0 : 1]);
	if (addr % eb)
		emu_fail(r, PT_E_EMU_OOB, t, in,
			 "address 0x%llx is not aligned to the %u-byte access",
			 (unsigned long long)addr, eb);
	uint8_t *p = emu_mem(r, c, t, in, in->space, addr, eb, true);
	uint64_t old = emu_load_le(p, eb);
	uint64_t b = opnd_get(r, c, t, &in->o[red ? 1 : 2]);
	uint64_t cv = want == 4 ? opnd_get(r, c, t, &in->o[3]) : 0;
	emu_store_le(p, emu_atom_apply(in->aop, ty, old, b, cv), eb);
	if (!red)
		reg_set(t, &in->o[0], old, ty);
}

/* st.bulk{.weak}{.shared::cta} [a], size, 0 (PTX ISA 9.7.9.13): sets
 * size bytes of shared memory from a to initval, which must be 0 (the
 * form table admits nothing else).  The ISA leaves undefined a size that
 * is not a multiple of 8 or is over 16777216 and a generic address
 * outside the shared window; each is an error here, as is an address
 * outside this CTA's shared memory (.shared is .shared::cta).  The ISA
 * states no alignment for a, so none is checked. */
enum { ST_BULK_MAX = 16777216 };

static void
exec_st_bulk(Run *r, Cta *c, Thread *t, const Insn *in)
{
	uint64_t a = emu_addr(r, c, t, &in->o[0]);
	uint64_t n = opnd_get(r, c, t, &in->o[1]);
	if (n % 8 || n > ST_BULK_MAX)
		emu_fail(r, PT_E_EMU_OOB, t, in,
			 "st.bulk size %llu is not a multiple of 8 in [0, %u]",
			 (unsigned long long)n, (unsigned)ST_BULK_MAX);
	if (in->space == PSP_GENERIC) {
		if (a < WIN_SHARED || a - WIN_SHARED >= 1ull << 32)
			emu_fail(r, PT_E_EMU_OOB, t, in,
				 "st.bulk of generic address 0x%llx, which is "
				 "not in the shared window",
				 (unsigned long long)a);
		a -= WIN_SHARED;
	}
	memset(emu_mem(r, c, t, in, PSP_SHARED, a, n, true), 0, n);
}

void
exec_mem(Run *r, Cta *c, Thread *t, const Insn *in)
{
	if (in->op == PTXMN_LD || in->op == PTXMN_ST) {
		exec_ld_st(r, c, t, in);
		return;
	}
	if (in->op == PTXMN_ST_BULK) {
		exec_st_bulk(r, c, t, in);
		return;
	}
	if (in->op == PTXMN_PREFETCH)
		return;
	if (in->op == PTXMN_ATOM || in->op == PTXMN_RED) {
		exec_atom(r, c, t, in);
		return;
	}
	if (in->nop < 2 || !in->nty)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "malformed");
	PtxType ty = (PtxType)in->ty[in->nty - 1];
	uint64_t a = opnd_get(r, c, t, &in->o[1]), v = a;
	if (in->op == PTXMN_MAPA) {
		if (in->nop != 3)
			emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "malformed");
		uint64_t rank = opnd_get(r, c, t, &in->o[2]) & 0xffffffffu;
		cta_of_rank(r, t, in, (uint32_t)rank);
		bool generic = in->space == PSP_GENERIC;
		uint64_t s = generic ? a - WIN_SHARED : a;
		if (s >> 32)
			emu_fail(r, PT_E_EMU_OOB, t, in,
				 "mapa of 0x%llx, not a shared address",
				 (unsigned long long)a);
		s = (rank << SMEM_RANK_SHIFT) |
		    (s & ((1u << SMEM_RANK_SHIFT) - 1));
		v = generic ? s + WIN_SHARED : s;
		reg_set(t, &in->o[0], v, ty);
		return;
	}
	/* cvta: to.space takes a generic address to the space */
	bool to = in->fl & FL_TO;
	uint64_t base = in->space == PSP_SHARED || in->space == PSP_SHARED_CLUSTER
				? WIN_SHARED
			: in->space == PSP_LOCAL ? WIN_LOCAL
			: in->space == PSP_PARAM ? WIN_PARAM
						: 0;
	if (base && to)
		v = a - base;
	else if (base)
		v = (a & 0xffffffffu) + base;
	reg_set(t, &in->o[0], v, ty);
}
