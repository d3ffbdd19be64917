/*
 * emu.h - internals of the PTX emulator (public API: ptxtile_emu.h).
 *
 * load.c reads PTX text into a Module: per kernel a pre-decoded Insn array
 * whose operands are resolved at load (register slots, immediates typed,
 * symbols turned into offsets, labels into instruction indices).  run.c
 * runs one cluster at a time: every thread has its own PC and runs until it
 * blocks (barrier, warp collective, mbarrier wait) or exits; a warp
 * collective executes once every live lane of the warp has reached it.
 * alu.c, mem.c, sync.c, warp.c and tcgen05.c implement the instruction
 * families from the PTX ISA definitions.
 */
#ifndef PT_EMU_H
#define PT_EMU_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>

#include "ptxtile_emu.h"
#include "base/base.h"
#include "ptx/ptx.h"

/* ---- types (.b32, .f16x2, ...): src/ptx/types.def's PtxType ids; its
 * bytes and class columns as a table ---- */
typedef enum TyClass { TC_B, TC_U, TC_S, TC_F, TC_PAIR, TC_PRED } TyClass;
extern const struct TyInfo {
	const char *name;
	uint8_t bytes, cls;
} emu_ty[PTY_COUNT];

/* emu_families.def: the collective column's two constant answers */
#define COLL_NEVER (-2)
#define COLL_ALWAYS (-1)

typedef enum Rnd { RND_NONE, RND_RN, RND_RZ, RND_RM, RND_RP } Rnd;
/* State spaces are src/ptx's (spaces.def, PSP_*); the loader folds
 * .shared::cta into PSP_SHARED, which the executors read as the CTA's
 * own shared memory. */
typedef enum Cmp {
	CMP_NONE, CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_LO,
	CMP_LS, CMP_HI, CMP_HS, CMP_EQU, CMP_NEU, CMP_LTU, CMP_LEU, CMP_GTU,
	CMP_GEU, CMP_NUM, CMP_NAN
} Cmp;

enum {
	FL_FTZ = 1u << 0, FL_SAT = 1u << 1, FL_APPROX = 1u << 2,
	FL_LO = 1u << 3, FL_HI = 1u << 4, FL_WIDE = 1u << 5,
	FL_NAN = 1u << 6, FL_RINT = 1u << 7, /* .rni/.rzi/.rmi/.rpi */
	FL_TO = 1u << 8, FL_RELU = 1u << 9, FL_FULL = 1u << 10,
	FL_BOP_AND = 1u << 11, FL_BOP_OR = 1u << 12, FL_BOP_XOR = 1u << 13,
	FL_ABS = 1u << 14, FL_XORSIGN = 1u << 15,
	FL_SATFINITE = 1u << 16,
};

/* atom/red operations (mem.c) */
typedef enum AtomOp {
	AOP_NONE, AOP_AND, AOP_OR, AOP_XOR, AOP_EXCH, AOP_CAS, AOP_ADD,
	AOP_INC, AOP_DEC, AOP_MIN, AOP_MAX
} AtomOp;

/* ---- operands ---- */
typedef enum OpndKind {
	K_NONE, K_REG, K_IMM, K_SPEC, K_ADDR, K_VEC, K_LABEL, K_SINK
} OpndKind;
#define NOREG UINT32_MAX
typedef struct Opnd {
	uint8_t kind;
	uint8_t neg;    /* !%p */
	uint8_t fimm;   /* K_IMM written as a decimal float (imm = double bits) */
	uint8_t smem;   /* K_IMM/K_ADDR: add the CTA's shared window base */
	uint8_t pred;   /* K_REG: a .pred register */
	uint8_t callp;	/* K_ADDR/K_IMM: a call block's .param; K_VEC: a
			 * call's list of them, (p0, p1) */
	uint16_t n;     /* K_VEC, K_ADDR with coordinates: element count */
	uint32_t reg;   /* K_REG slot; K_ADDR base slot or NOREG; K_SPEC id */
	uint32_t vec;   /* K_VEC / K_ADDR coordinates: first index in pool */
	int64_t imm;    /* K_IMM bits; K_ADDR offset; K_LABEL target pc */
} Opnd;

#define MAX_OPND 8
typedef struct Insn {
	uint16_t op;	    /* PtxMnem: the selected form's mnemonic */
	uint8_t quiet;      /* emu_quiet_op(op) */
	uint8_t fam;        /* PtxFamily: picks the executor (emu_families.def) */
	uint8_t member_mask; /* a collective whose last operand is the mask */
	uint8_t ty[4], nty; /* type tokens in the order written */
	uint8_t rnd, cmp, space, vec;
	uint8_t nop;
	uint8_t coll;       /* a warp-collective instruction */
	uint8_t guard_neg;
	uint32_t fl;
	uint32_t guard;     /* predicate slot or NOREG */
	int line;
	const char *name;   /* the mnemonic as written */
	Opnd o[MAX_OPND];
	const PtxInst *sel; /* the form selected at load (src/ptx), shared by
			     * equal instructions */
	const void *aux;    /* family-specific form decoded at load */
	uint8_t aop;        /* atom/red: the operation (AtomOp) */
	uint32_t sfile;     /* .loc in effect: .file number (0: none) */
	int sline;          /*   and the script line */
} Insn;

typedef struct Param {
	const char *name;
	uint32_t off, size;
} Param;

typedef struct Kernel {
	const char *name;
	Insn *code;
	uint32_t ncode;
	Opnd *pool;         /* vector elements */
	uint32_t npool;
	uint32_t nregs;
	Param *params;
	uint32_t nparams, param_size;
	uint32_t smem_static;  /* bytes; dynamic shared memory follows */
	uint32_t dyn_align;
	uint32_t local_size;
	unsigned reqntid[3];   /* 0 when not given */
	unsigned reqcluster[3];
	struct Kernel *next;
} Kernel;

/* A .target ptxas accepts (emu_targets.def). */
typedef struct EmuTarget {
	const char *name;
	int min_version;          /* major * 10 + minor */
	uint32_t static_smem_max; /* bytes */
	bool wide_ldst;           /* 256-bit ld/st */
} EmuTarget;

typedef struct Module {
	Kernel *kernels;
	const EmuTarget *target; /* NULL: no .target line */
	int version;             /* .version major * 10 + minor; 0: none */
	const char **files; /* .file names by number (line info) */
	uint32_t nfiles;
} Module;

/* ---- run state ---- */
typedef enum ThState {
	TS_RUN, TS_BAR, TS_COLL, TS_MBAR, TS_CBAR, TS_EXIT
} ThState;

typedef struct Thread {
	uint32_t pc;
	uint8_t st;
	uint8_t bar_id;
	uint16_t lane;
	uint32_t tid[3], lin, warp;
	uint64_t *r;
	uint8_t *local;
	/* TS_MBAR: the mbarrier waited on and the phase parity */
	uint32_t wait_addr;
	uint32_t wait_parity;
	uint64_t cbar_phase;   /* cluster barrier phase this thread arrived in */
	/* async-groups committed so far, per kind: the kind is the
	 * mnemonic of its commit_group (PTXMN_*), 0 an unused slot, so a
	 * family with groups needs no field here (async_groups) */
	struct {
		uint32_t kind, n;
	} groups[4];
	/* race check: per lane of this warp, the number of the latest warp
	 * collective of that lane this thread is ordered after */
	uint32_t wvc[32];
} Thread;

typedef struct Mbar {
	uint32_t addr;          /* shared::cta address (with rank bits) */
	uint32_t expected, pending;
	int64_t tx;
	uint32_t phase;
} Mbar;

/* The race check's record of one shared byte in one CTA epoch: the last
 * writer (thread key, 0 none) with the warp-collective count of its warp
 * then (wstamp); the readers since, as lanes of one warp (rwarp: warp
 * key, 0 none) with the highest such count (rstamp), and the latest
 * reader there (rkey); xkey: a reader of another warp (0 none). */
typedef struct Shadow {
	uint32_t epoch;
	uint16_t writer, rkey, xkey, rwarp;
	uint32_t wline, rline, xline;
	uint32_t wstamp, rstamp, rmask;
} Shadow;

typedef struct Cta {
	uint32_t id[3], cid[3], rank;
	uint8_t *smem;
	uint32_t smem_size;
	Thread *th;
	uint32_t nth, nwarps;
	uint32_t bar_arrived[16], bar_count[16];
	Mbar *mbar;
	uint32_t nmbar, capmbar;
	uint32_t *tmem;          /* 128 lanes x 512 columns, on first alloc */
	uint32_t tmem_used;      /* bit per 32-column chunk */
	struct Collector *coll;  /* tcgen05.mma collector buffers b0..b3, a */
	/* race check: the synchronisation epoch, and per shared byte the
	 * last epoch, writer and reader (thread key, 0 none, 0xffff many) */
	uint32_t epoch;
	struct Shadow *shadow;
	/* warp collectives completed per warp (happens-before inside a
	 * warp: a collective orders only its own member lanes) */
	uint32_t wseq[32];
} Cta;

typedef struct Pending Pending;
typedef struct Run {
	ptem *e;
	const Kernel *k;
	const ptem_launch *l;
	unsigned grid[3], block[3], cluster[3];
	unsigned clusterid[3], ncluster[3];
	Cta *ctas;              /* the CTAs of the current cluster */
	uint32_t nctas;
	uint8_t *param;
	uint64_t steps, max_steps;
	uint64_t cbar_phase;    /* cluster barrier */
	uint32_t cbar_arrived;
	Pending *pend, *pend_tail;
	uint32_t npend;
	bool progress;
	bool late;
	bool races;
	/* the cluster loop (emu_run_slice): the next cluster's linear
	 * index, and whether a cluster is set up and running */
	uint64_t next_cluster, nclusters;
	bool in_cluster;
	/* devices.c: the device this run is on, the group's ordering state
	 * (NULL: not checked), and the instructions run since the last one
	 * that is not a load, ALU op or branch, with the last such one */
	uint32_t dev;
	struct Order *order;
	uint64_t quiet;
	Thread *quiet_t;
	const Insn *quiet_in;
	double *mma_buf[2];     /* tcgen05.mma operand scratch, reused */
	size_t mma_cap[2];
	int status;
	Arena *arena;
	jmp_buf fail;
} Run;

/* global memory allocations: [addr, addr + size) */
typedef struct Alloc {
	uint64_t addr, size;
	uint8_t *mem;
} Alloc;

struct ptem {
	Arena arena;        /* module, global memory */
	Arena run_arena;    /* the state of one run */
	jmp_buf oom;
	Module *m;
	Alloc *allocs;
	size_t nallocs, capallocs;
	uint64_t next_addr;
	uint64_t steps;
	struct ptem_group *group; /* NULL: a lone device */
	uint32_t dev;             /* its index in the group */
	char err[1024];
};

/* address windows of the generic space */
/* The shared window's low 32 bits are zero, as on the GPU: truncating a
 * generic shared address (cvt.u32.u64) gives the shared address. */
#define WIN_SHARED 0x7f0000000000ull /* + 32-bit shared::cluster address */
#define WIN_LOCAL 0x7e0000000000ull  /* + offset in the thread's local memory */
#define WIN_PARAM 0x7d0000000000ull  /* + offset in the kernel parameters */
#define WIN_GLOBAL 0x100000000ull    /* first global allocation */
/* device d of a group allocates from WIN_GLOBAL + d * DEV_WINDOW, so the
 * owner of a global address is (addr - WIN_GLOBAL) / DEV_WINDOW */
#define DEV_WINDOW (1ull << 40)
#define SMEM_RANK_SHIFT 24        /* shared address = rank << 24 | offset */

/* ---- devices.c ---- */
/* Host view of [addr, addr + n) in another device of e's group, or NULL. */
void *emu_peer_host(ptem *e, uint64_t addr, size_t n);
/* The ordering check of one global access by in (r->order set). */
void emu_order_global(Run *r, const Thread *t, const Insn *in, uint64_t addr,
		      uint64_t n, bool write);
void emu_order_fence(Run *r, const Insn *in);
/* Instructions that cannot end a spin: loads, ALU, branches, fences
 * (Insn.quiet, set at load). */
bool emu_quiet_op(PtxMnem m);

/* ---- run.c: one run in slices (ptem_run and the group scheduler) ---- */
int emu_run_begin(ptem *e, const char *kernel, const ptem_launch *l,
		  const ptem_arg *args, size_t nargs, Run **out);
/* One scheduling round of the current cluster (setting up the next one
 * first); true once every cluster has run.  Called with r->fail and
 * r->e->oom set. */
bool emu_run_slice(Run *r);
void emu_run_end(ptem *e, Run *r);

/* ---- load.c ---- */
/* Reads PTX text into e->m (PT_OK, or the refusal's code, message in
 * e->err); guards the arena's running out of memory itself. */
int emu_load(ptem *e, const char *text, size_t len);
/* How emu_vocab read one instruction line. */
typedef enum EmuVocabLine {
	/* selected through the PTX form table */
	EMU_VOCAB_ROW,
	/* no form row takes it (why: which part) */
	EMU_VOCAB_MISS,
} EmuVocabLine;
typedef void (*EmuVocabFn)(void *ud, int line, const char *insn,
			   EmuVocabLine kind, const char *why);
/* Reads PTX text as emu_load does for its vocabulary alone: every
 * instruction line is selected through the form table with the operands
 * as read (ptx_select, as at a load) and passed to fn, a miss included
 * instead of failing; the executors' decoding is skipped and no module
 * is kept, so nothing runs (fn is not NULL; emu_load's reader body).
 * PT_OK, or the code of a refusal that is no selection miss (parse
 * error, unread directive; message in e->err). */
int emu_vocab(ptem *e, const char *text, size_t len, EmuVocabFn fn, void *ud);
const Kernel *emu_find_kernel(const Module *m, const char *name);
/* Whether the selected form's spelling holds qualifier q. */
static inline bool
insn_q(const Insn *in, PtxQual q)
{
	return in->sel && ptx_has(in->sel, q);
}

/* ---- run.c ---- */
_Noreturn void emu_fail(Run *r, int code, const Thread *t, const Insn *in,
			const char *fmt, ...) __attribute__((format(printf, 5, 6)));
uint64_t opnd_get(Run *r, Cta *c, Thread *t, const Opnd *o);
void reg_set(Thread *t, const Opnd *o, uint64_t v, PtxType ty);
Cta *cta_of_rank(Run *r, const Thread *t, const Insn *in, uint32_t rank);
Cta *cta_of_thread(Run *r, const Thread *t);
/* "PTX line N (mnemonic)", with " at FILE:LINE" when the PTX has line
 * info, of the instruction on PTX line `line` of the running kernel. */
const char *emu_where(const Run *r, int line, char *buf, size_t cap);
const Opnd *vec_elem(const Run *r, const Opnd *o, unsigned i);

/* ---- alu.c / cvt ---- */
uint64_t emu_atom_apply(int aop, PtxType ty, uint64_t old, uint64_t b,
			uint64_t c);
uint32_t emu_round_small(double x, int rnd, int ebits, int mbits);
double emu_small_to_double(uint32_t bits, int ebits, int mbits);
uint64_t emu_mask(PtxType ty);

/* ---- mem.c ---- */
void race_check(Run *r, Cta *owner, uint32_t off, uint64_t n, const Thread *t,
		const Insn *in, bool write);
/* Host pointer of [addr, addr + n) in space sp (generic resolved), or an
 * error naming thread t and instruction in. */
uint8_t *emu_mem(Run *r, Cta *c, Thread *t, const Insn *in, int sp,
		 uint64_t addr, uint64_t n, bool write);
uint8_t *emu_smem(Run *r, Thread *t, const Insn *in, uint32_t addr,
		  uint64_t n, Cta **owner);
uint64_t emu_addr(Run *r, Cta *c, Thread *t, const Opnd *o);
uint64_t emu_load_le(const uint8_t *p, unsigned n);
void emu_store_le(uint8_t *p, uint64_t v, unsigned n);

/* ---- sync.c ---- */
bool mbar_phase_done(Run *r, Cta *c, uint32_t addr, uint32_t parity);
void mbar_complete_tx(Run *r, Cta *c, uint32_t addr, int64_t bytes,
		      const Thread *t, const Insn *in);
void mbar_arrive(Run *r, Cta *c, uint32_t addr, uint32_t count,
		 const Thread *t, const Insn *in);
bool async_complete_one(Run *r);
void async_complete_all(Run *r);
void async_check(Run *r, const Thread *t, const Insn *in, const uint8_t *p,
		 uint64_t n, bool write);

/* ---- tcgen05.c ---- */
void tmem_check_exit(Run *r, Cta *c);

/* ---- the family table's executors and decoders (emu_families.def),
 * declared from the table: a thread executor runs one thread's
 * instruction, a warp executor a collective once for the lanes in mask,
 * a decoder fills Insn.aux at load ---- */
#define EFAM(fam, run, warp, coll, mask, decode)                           \
	void run(Run *, Cta *, Thread *, const Insn *);                     \
	void warp(Run *, Cta *, Thread **, uint32_t, const Insn *);        \
	void decode(Arena *, Insn *);
#include "emu/emu_families.def"
#undef EFAM
double emu_e4m3_to_double(uint32_t bits);

#endif
