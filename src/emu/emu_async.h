/*
 * emu_async.h - pending asynchronous operations (sync.c, tma.c).
 */
#ifndef PT_EMU_ASYNC_H
#define PT_EMU_ASYNC_H

#include "emu/emu.h"

struct Pending {
	Pending *next;
	Thread *t;             /* the issuing thread */
	const Insn *in;
	int group_kind;        /* the commit_group mnemonic of its async-group
				* kind (PTXMN_*), 0 none */
	uint32_t group;
	/* a plain copy: dst_n bytes, the first zero_from from src, the rest
	 * zero; dst/src also bound the memory a late check guards */
	uint8_t *dst, *src;
	uint64_t dst_n, src_n, zero_from;
	uint8_t *src2;         /* a second source range (an MMA's B) */
	uint64_t src2_n;
	/* complete_tx of tx bytes on this mbarrier when done */
	Cta *mbar_cta;
	uint32_t mbar_addr;
	uint64_t tx;
	/* anything else (TMA): does the work instead of the plain copy */
	void (*perform)(Run *r, Pending *p);
	void *data;
};

Pending *async_new(Run *r, Thread *t, const Insn *in, int group_kind);
/* t's count of committed async-groups of a kind (the kind's commit_group
 * mnemonic, PTXMN_*). */
uint32_t *async_groups(Run *r, Thread *t, const Insn *in, int kind);
void async_issue(Run *r, Pending *p);
Cta *mbar_operand(Run *r, Cta *c, Thread *t, const Insn *in, const Opnd *o,
		  uint32_t *addr);
Mbar *mbar_lookup(Run *r, Cta *c, uint32_t addr, const Thread *t,
		  const Insn *in);
void exec_tma(Run *r, Cta *c, Thread *t, const Insn *in);
void async_wait_groups(Run *r, Thread *t, int kind, uint32_t keep);

#endif
