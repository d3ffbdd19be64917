/*
 * tile.h - the tile contract engine (src/tile/): shared types of the
 * checker (check.c), the common core (common.c, env.c), the family
 * files (the files in patterns/), the lowering (lower.c) and explain (explain.c).
 *
 * Input: a lowered IR module.  For every T.cuda.tile.apply / ewise call
 * the checker resolves the PTX form, the family, the execution groups and
 * the canonical operand coordinates (*group, *repeat, *atom), checks the
 * family contract and records the result as a TileCall in the module's
 * TileProgram (tile/program.h, program order).  The lowering then rewrites each
 * call into plain IR from that record; it never re-derives a decision.
 *
 * Invariants of a recorded TileCall (ok == true): every tensor operand's
 * group prefix equals the call's groups, its repeat shape equals the
 * call's repeats, its atom suffix has the form's length; register slots
 * are static storage indices owned by the executing thread; memory atoms
 * are consecutive and aligned (possibly symbolically, as linear forms
 * over hardware-id and loop symbols that env.c can turn back into IR).
 */
#ifndef PT_TILE_H
#define PT_TILE_H

#include "base/base.h"
#include "ir/ir.h"
#include "layout/layout.h"
#include "layout/prove.h"
#include "layout/view.h"
#include "ptx/ptx.h"
#include "tile/program.h"

#define TILE_MAX_GROUP 5   /* cta z/y/x, warp, lane */
#define TILE_MAX_COORDS (1 << 22) /* enumeration limit per call */

typedef struct TileCall TileCall;
typedef struct TileEnv TileEnv;

/* ---- parameters (params.def) ---- */

typedef enum TileParamId {
#define PARAM(id, name, kind, type) TP_##id,
#include "tile/params.def"
#undef PARAM
	TP_COUNT
} TileParamId;

_Static_assert(TP_COUNT <= 64, "tile parameter masks are 64-bit");
#define TPB(id) (UINT64_C(1) << TP_##id)

/* ---- families (the family table, src/ptx/families.def) ---- */

typedef bool (*TileCheckFn)(TileEnv *e, TileCall *tc);

typedef struct TileFamily {
	const char *name;   /* "registers", "ld_st", "ewise" */
	const char *file;   /* the pattern file, for explain and docs */
	int ptx_family;     /* PtxFamily, or -1 for ewise */
	TileCheckFn check;
	uint64_t params;    /* TPB() bits of the accepted parameters */
} TileFamily;

const TileFamily *tile_family_of_ptx(int ptx_family);
const TileFamily *tile_family_ewise(void);

/* ---- execution groups ---- */

typedef enum GroupKind {
	GK_CTA_Z, GK_CTA_Y, GK_CTA_X, /* cluster CTA coordinates */
	GK_WARP,        /* warp in the CTA (cta and cluster scope) */
	GK_WARP_IN_WG,  /* warp in the warpgroup (warpgroup scope) */
	GK_LANE,
} GroupKind;

/* Group coordinate g of this axis is hardware id lo + g. */
typedef struct GroupAxis {
	GroupKind kind;
	int64_t lo, ext;
	int sym;        /* prover symbol of the hardware id */
	Expr *hw;       /* IR expression of the hardware id */
} GroupAxis;

/* ---- operands ---- */

typedef enum OperandRole {
	ROLE_REG,  /* register tensor (or scalar expression when `scalar`) */
	ROLE_MEM,  /* addressed memory tensor (ld/st pointer side) */
} OperandRole;

typedef struct TileOperand {
	int index;          /* position among the call's operands */
	Expr *expr;
	Span span;
	OperandRole role;
	bool out;           /* written by the instruction */
	bool scalar;        /* a scalar expression, reused at every repeat */
	int ptx_op;         /* first PTX operand it fills, -1 for ewise */
	Buffer *root;       /* storage owner (param or allocation) */
	View *view;
	DType dtype;        /* element dtype seen by the operand */
	int bits;
	int rank;           /* view dims = ngroup + nrepeat + natom */
	const int64_t *ext;
	int natom;          /* atom length: registers per repeat (V) */
	/* ROLE_REG tensors: storage index (in `bits` units) of each
	 * (repeat, atom) coordinate, row-major, for the executing thread. */
	int64_t *slot;
	/* ROLE_MEM: atom start m (in `bits` units) per repeat, a linear form
	 * over hardware-id and loop symbols. */
	Lin *addr;
	Expr **addr_x;      /* the same as IR index expressions */
	/* The address operand form [reg+imm] (lower.c), so that repeats
	 * whose addresses differ by constants share one base pointer
	 * expression (one register after ptxas):
	 *   m-axis operands: addr[r] less its constant term as IR
	 *     (base_x[r]) and that constant in bytes (off[r]);
	 *   logical-index operands (tile_plain_chain): rel[r] when addr[r]
	 *     lies a constant off[r] bytes after repeat 0's atom.
	 * base_x[r] NULL and rel[r] false: the whole pointer. */
	Expr **base_x;
	int64_t *off;
	bool *rel;
	/* Warp-collective atoms (collective.c): atom axes when not 1
	 * (ldmatrix (count, 8, 4), mma fragments (rows, cols)); registers
	 * named by storage slot because the logical coordinate of a
	 * register depends on the lane; per-repeat pointer expressions
	 * computed by the family (each lane its own row address). */
	int atom_axes;
	bool by_slot;
	Expr **ptr_x;
	/* Set by a family that builds ptr_x itself before it calls
	 * tile_memory_atoms: that then only checks that each atom start
	 * can be written back as IR, leaving addr_x and base_x NULL. */
	bool own_ptr;
	bool no_group;      /* no group prefix (wgmma's shared operands) */
	int64_t align;      /* ROLE_MEM: required atom alignment in bytes;
			     * 0 = the atom's size */
} TileOperand;

/* Atom axes: one axis of extent natom, none for ewise (natom 0). */
static inline int
tile_atom_axes(const TileOperand *op)
{
	if (op->atom_axes > 0)
		return op->atom_axes;
	return op->natom > 0 ? 1 : 0;
}

/* Elements per repeat: the atom length, 1 for ewise's empty atom. */
static inline int
tile_atom_len(const TileOperand *op)
{
	return op->natom > 0 ? op->natom : 1;
}

struct TileCall {
	Expr *call;
	Span span;
	TileProgram *prog;  /* the program that records it (its memo) */
	const TileFamily *fam;
	bool ok;            /* every check passed */
	PtxInst inst;       /* apply: the selected form */
	const char *form;   /* explain text of the selected form */
	ExecScope scope;
	int ngroup;
	GroupAxis group[TILE_MAX_GROUP];
	int nrepeat;
	int64_t *repeat;
	int64_t count;      /* issues (ewise: evaluations) per thread */
	int nops;
	TileOperand *ops;
	Expr *pred;         /* NULL: unconditional */
	bool preserve_dst;
	Expr *cache_policy;
	Func *fn;           /* ewise */
	/* Family expansion replacing lower.c's one issue per row-major
	 * repeat (mma.sync: batch, M, N, K with the C/D recurrence). */
	void (*lower)(Ctx *c, const TileCall *tc, Block *out);
	Expr *param[TP_COUNT]; /* every given parameter's value, or NULL */
	/* PTX operands filled by parameters, the same at every repeat
	 * (cp.async's cp-size and src-size); NULL = not filled */
	Expr *fixed[PTX_MAX_OPS];
	int *next_var;      /* lower.c's Var.id cursor while lower runs */
	void *fam_data;     /* the family's own record (tma.c: TmaCall) */
	const char *note;   /* family lines for explain (wgmma descriptors) */
};

/* ---- env.c: the walk state, symbols and their IR expressions ---- */

typedef struct TileProduct {
	const char *key; /* canonical "a|b" of the two factors */
	int sym;
} TileProduct;

struct TileEnv {
	Ctx *c;
	Module *m;
	TileProgram *prog; /* check_module's result being filled */
	Func *f;
	SymTab st;
	VEC(Expr *) sym_expr;   /* by symbol id; NULL for derived symbols */
	DenseIds ids;              /* Var.id / Buffer.id -> index of the tables
				 * below (tile_slot) */
	VEC(int) var_sym;       /* by Var.id: symbol + 1, 0 = none yet */
	VEC(Lin *) var_lin;     /* by Var.id: value of a never-reassigned
				 * variable at its declaration, or NULL */
	VEC(bool) assigned;     /* by Var.id: target of some ST_ASSIGN */
	VEC(const Expr *) var_init; /* by Var.id: the same variables' value
				     * expressions (guards look through) */
	VEC(TileProduct) products; /* symbolic products seen (env.c) */
	VEC(bool) written;      /* by Buffer.id: written earlier */
	int64_t block[3];       /* launch block dims (1 when absent) */
	int64_t nthreads;       /* 0 when the block size is not static */
	/* active hardware ranges narrowed by enclosing guards */
	int64_t lane_lo, lane_hi, warp_lo, warp_hi;
	int lane_sym, warp_sym; /* symbols under the current guards */
	int lane_inexact;       /* enclosing guards on lanes that the
				 * ranges do not express (env.c) */
	int cta_sym[3];         /* cluster CTA x/y/z, -1 when undeclared */
	/* the CTA group of the kernel's first tcgen05.cp/mma tile call (0:
	 * none yet) and where: PTX wants one group per kernel */
	int tc05_group;
	Span tc05_span;
	int block_sym[3];       /* block id symbol + 1 per axis, 0 = none */
	bool in_floor;          /* tile_var_floor is running */
	/* bounds.c: enclosing conditions, early exits and returns that
	 * leave it unsure whether a statement runs (0: it certainly runs
	 * under the facts), and the loop symbols every value of which
	 * occurs */
	int bounds_unsure;
	VEC(bool) bounds_exact;
	VEC(bool) bounds_ptxw; /* by Var.id: named by a raw PTX call */
};

void tile_env_init(TileEnv *e, Ctx *c, Module *m, Func *f);
/* Recreates the lane/warp symbols for the current guard ranges. */
void tile_env_refresh_ids(TileEnv *e);
/* Narrows (then restores) hardware ranges for an `if` condition. */
typedef struct GuardSave {
	int64_t lane_lo, lane_hi, warp_lo, warp_hi;
	bool inexact; /* counted in TileEnv.lane_inexact */
} GuardSave;
void tile_guard_push(TileEnv *e, const Expr *cond, bool negate,
		     GuardSave *save);
void tile_guard_pop(TileEnv *e, const GuardSave *save);
/* The comparison that holds when op does not (< gives >=; == gives !=,
 * != gives ==). */
BinOp tile_negate_cmp(BinOp op);
/* Records the value of a declared variable that is never reassigned. */
void tile_env_decl(TileEnv *e, const Stmt *decl);
/* Gives loop variable v the interval of its range. */
void tile_env_loop(TileEnv *e, const Stmt *loop);
/* ---- facts.c: runtime values the prover may assume ---- */

/* The symbol of block_idx(axis a) in [0, grid), with the fact
 * grid - 1 - block >= 0 when the grid is symbolic; x its expression
 * (NULL: built). */
int tile_block_sym(TileEnv *e, int a, const Expr *x);
/* Makes the block id symbols of the launch grid (their facts hold
 * everywhere in the kernel, so they sit at the stack's bottom). */
void tile_facts_init(TileEnv *e);
/* Raises *lo to the smallest value a reassigned variable can hold when
 * it only ever grows (`v = v + d`, d >= 0). */
void tile_var_floor(TileEnv *e, const Var *v, int64_t *lo, int64_t hi);
/* Pushes the facts of cond (negated: the else branch) and returns the
 * mark to pop to. */
size_t tile_facts_guard(TileEnv *e, const Expr *cond, bool negate);
/* Kills facts about variables the loop body assigns, then pushes the
 * loop's own facts (while condition; begin <= i < end). */
size_t tile_facts_loop(TileEnv *e, const Stmt *loop);
/* ---- bounds.c: element accesses refuted at compile time ---- */

/* Reports a load or store in s's own expressions whose index provably
 * leaves its buffer's shape (PT_E_BOUNDS_*); unprovable ones pass. */
void tile_bounds_stmt(TileEnv *e, const Stmt *s);
void tile_bounds_init(TileEnv *e);
/* Entering a branch (after its facts from mark were pushed) or a loop
 * (after tile_env_loop and tile_facts_loop); each returns the state
 * tile_bounds_restore puts back on leaving. */
int tile_bounds_guard(TileEnv *e, const Expr *cond, bool neg, size_t mark);
int tile_bounds_loop(TileEnv *e, const Stmt *loop, size_t mark);
void tile_bounds_restore(TileEnv *e, int saved);
/* Leaving a for loop: its variable is no longer every value of its
 * range. */
void tile_bounds_loop_end(TileEnv *e, const Stmt *loop);
void tile_facts_pop(TileEnv *e, size_t mark);
/* Kills the facts that mention v (an assignment to v). */
void tile_facts_assign(TileEnv *e, const Var *v);

/* ---- mbar_lint.c ---- */
/* mbarrier storage narrower than 8 bytes; mbarriers never initialised. */
void tile_mbar_lint(TileEnv *e, const Func *f);

/* ---- setmaxnreg_lint.c ---- */
/* E3020: a setmaxnreg.dec above every count the kernel can hold. */
void tile_setmaxnreg_lint(TileEnv *e, const Func *f);

/* ---- symshape.c: global tensors with symbolic sizes ---- */

/* True when some extent of b is not a constant. */
bool tile_sym_shape(const Buffer *b);
/* b's whole View with placeholder extents on symbolic axes (bounds are
 * then the caller's: tile_sym_bounds); NULL after a diagnostic. */
View *tile_sym_root_view(TileEnv *e, Buffer *b, Span sp);
/* Proves 0 <= start[d] and start[d] + ext[d] <= extent d of b for a
 * region of b under the current facts, else PT_E_PROVE_BOUNDS in the
 * script's names with a counterexample. */
bool tile_sym_bounds(TileEnv *e, const Expr *region, const Buffer *b,
		     const Lin *start, const int64_t *ext, Span sp);
/* The element offset of region coordinate coord of op (root with a
 * symbolic shape, thread view v) over the real row-major strides;
 * records the size multiples an atom aligned to `need` bytes needs. */
Lin tile_sym_m(TileEnv *e, const TileOperand *op, const View *v,
	       const int64_t *coord, int64_t need);

/* Linear form of an integer expression; opaque parts become symbols
 * that remember their expression. */
Lin tile_lin(TileEnv *e, const Expr *x);
/* An int32 (int64 when needed) IR expression of l; NULL when l uses a
 * symbol without an expression. */
Expr *tile_lin_expr(TileEnv *e, Lin l, Span sp);
/* Whether tile_lin_expr(e, l, ...) would return an expression. */
bool tile_lin_expressible(const TileEnv *e, Lin l);
int tile_new_sym(TileEnv *e, const char *name, int64_t lo, int64_t hi,
		 Expr *x);

/* IR construction helpers (arena). */
Expr *tile_int(Ctx *c, int64_t v, Span sp);
Expr *tile_builtin0(Ctx *c, Builtin b, Span sp);
Expr *tile_binop(Ctx *c, BinOp op, Expr *a, Expr *b, DType t, Span sp);

/* ---- common.c: the contract core ---- */

/* Checks keywords against the family schema and fills pred,
 * preserve_dst and cache_policy. */
bool tile_check_params(TileEnv *e, TileCall *tc,
		       const NamedArgVec *params);
/* Group prefix of tc->scope for the launch and guards. */
bool tile_groups(TileEnv *e, TileCall *tc);
/* Resolves an operand expression into root buffer and View. */
bool tile_resolve_operand(TileEnv *e, TileOperand *op);
/* Splits op's dims into group / repeat / atom (natom given) and checks
 * the group prefix against tc; the first tensor operand sets the call's
 * repeat shape, later ones must agree. */
bool tile_shape_operand(TileEnv *e, TileCall *tc, TileOperand *op);
/* Register operand: local storage, ownership, static per-thread slots. */
bool tile_register_slots(TileEnv *e, TileCall *tc, TileOperand *op);
/* True when codegen indexes x's elements logically (buffer, regions,
 * same-width dtype views); lower.c then uses x itself. */
bool tile_plain_chain(const Expr *x);
/* The root buffer of a tensor expression (through regions and views),
 * or NULL. */
Buffer *tile_root_buffer(const Expr *x);
/* The executing thread's part of op's view: the group axes sliced at the
 * hardware-id symbols (op->view itself without groups); NULL on error. */
View *tile_thread_view(TileEnv *e, TileCall *tc, TileOperand *op);
/* Memory operand: address space, atom contiguity and alignment. */
bool tile_memory_atoms(TileEnv *e, TileCall *tc, TileOperand *op,
		       int space);
/* A byte-chunk memory operand (cp.async, bulk copy): the final axis holds
 * exactly `chunk` bytes of whole elements; sets op->natom and the shape.
 * Errors carry the family's code. */
bool tile_chunk_shape(TileEnv *e, TileCall *tc, TileOperand *op, int64_t chunk,
		      int code);
/* Written register slots do not overlap (within and across outputs). */
bool tile_check_overlap(TileEnv *e, TileCall *tc);
bool tile_check_register_budget(TileEnv *e, const TileCall *tc, int64_t regs);
/* preserve_dst needs pred, a register result and an initialised dst. */
bool tile_check_preserve(TileEnv *e, TileCall *tc);
/* Marks the root buffers that tc writes as initialised. */
void tile_mark_written(TileEnv *e, TileCall *tc);
/* The index of a Var.id or Buffer.id in the per-kernel tables; _find:
 * SIZE_MAX when the kernel has not seen it. */
size_t tile_slot(TileEnv *e, int id);
size_t tile_slot_find(const TileEnv *e, int id);
/* Odometer step over a row-major coordinate x of extents ext; false
 * after the last coordinate. */
bool tile_next_coord(int64_t *x, const int64_t *ext, int n);
/* "laneid 3, warpid 1": the axes of mask in p, for messages. */
const char *tile_owner_str(Arena *a, const PhysCoord *p, AxisMask mask);
/* "(1, 3, 2)" */
const char *tile_coord_str(Arena *a, const int64_t *x, int n);
/* True when dtype t can carry a PTX register of type p (nominal
 * width, kind: exact type, bit/uint container, same-width integers). */
bool tile_dtype_fits(DType t, PtxType p);
int tile_ptx_type_bits(PtxType p);
int64_t tile_repeat_count(const TileCall *tc);

/* ---- select.c ---- */
/* Selects among the table rows accepting tc->inst.spelling the one whose
 * operand list matches tc's operands; from_params trailing PTX operands
 * come from parameters (cache-policy). */
bool tile_select_form(TileEnv *e, TileCall *tc, int from_params);
/* The helper instructions lowerings emit (helpers.def). */
typedef enum TileHelper {
#define HELPER(id, spelling, family) TH_##id,
#include "tile/helpers.def"
#undef HELPER
	TH_COUNT
} TileHelper;
/* Helper h's form row (the first row accepting its spelling), in the
 * arena; pass it to ir_ptx_issue. */
const PtxInst *tile_helper(Ctx *c, TileHelper h);
/* The family helpers.def declares for h. */
PtxFamily tile_helper_family(TileHelper h);
/* Selects the row accepting tc's spelling whose operands fit the kinds
 * in args (a family that builds its PTX operand list itself), records
 * the form for explain, and checks the target. */
bool tile_select_form_args(TileEnv *e, TileCall *tc, const PtxArg *args,
			   int n);
/* Checks operand i against PTX operand o: dtype, atom length (groups),
 * scalar only for reads; register slots for tensors. */
bool tile_register_operand(TileEnv *e, TileCall *tc, TileOperand *op,
			   const PtxOperand *o);

/* Memory operand: shape (atom op->natom), element width of PTX type
 * `type`, then tile_memory_atoms. */
bool tile_memory_shape(TileEnv *e, TileCall *tc, TileOperand *op,
		       PtxType type, int space);

/* Hardware ids (PhysCoord) of group coordinate g, and which axes the
 * scope fixes. */
AxisMask tile_group_ids(TileEnv *e, const TileCall *tc, const int64_t *g,
			PhysCoord *ids);

/* ---- collective.c: warp-collective atoms ---- */
/* Lane of a warp-collective atom: maps (lane, register) to the atom
 * coordinate (atom_axes values) that register holds. */
typedef void (*TileLaneMap)(const void *arg, int lane, int reg,
			    int64_t *atom);
/* The instruction consumes the lane axis: all 32 lanes must be active;
 * the lane group is removed from tc (the group prefix keeps the warps). */
bool tile_warp_collective(TileEnv *e, TileCall *tc);
/* Register operand of a collective atom: local storage, each register
 * reg < nregs of each lane at the coordinate `map` gives must belong to
 * that lane, and its storage slot must be the same for every lane and
 * warp (one instruction names it).  Fills op->slot (nrepeat x nregs),
 * op->natom = nregs, op->by_slot.  The operand's own repeat axes (its
 * dims between the group prefix and the atom) are enumerated, so an
 * operand may repeat over fewer axes than the call (mma.sync A/B/C).
 * owner_code: the family's wrong-lane diagnostic. */
bool tile_collective_slots(TileEnv *e, TileCall *tc, TileOperand *op,
			   int atom_axes, int nregs, TileLaneMap map,
			   const void *arg, int owner_code);

/* ---- the pattern files (patterns/) ---- */
/* every family checker, declared from the family table */
#define TILE(check, file, params) bool check(TileEnv *e, TileCall *tc);
#define RAW
#define PFAM(id, name, contract) contract
#include "ptx/families.def"
#undef PFAM
#undef RAW
#undef TILE
bool tile_check_ewise(TileEnv *e, TileCall *tc);

/* ---- check.c / lower.c ---- */
TileCall *tile_check_apply(TileEnv *e, Expr *call);
TileCall *tile_check_ewise_call(TileEnv *e, Expr *call);
/* Element reference (rvalue and lvalue) of register operand op at
 * repeat r (row-major index) and atom word a, for the executing thread. */
Expr *tile_reg_ref(Ctx *c, const TileCall *tc, const TileOperand *op,
		   int64_t r, int a, Span sp);
/* Pointer to the atom start of memory operand op at repeat r. */
Expr *tile_mem_ptr(Ctx *c, const TileCall *tc, const TileOperand *op,
		   int64_t r, Span sp);
/* For a family's lower hook: the EX_PTX of tc's form at repeat r
 * (operands, fixed, cache_policy), PTX operand j replaced by over[j]
 * where over and over[j] are non-NULL; and a fresh scalar variable,
 * declared without a value by a statement appended to out. */
Expr *tile_lower_issue(Ctx *c, const TileCall *tc, int64_t r,
		       Expr *const *over);
Var *tile_lower_var(Ctx *c, const TileCall *tc, const char *name, DType t,
		    Block *out, Span sp);

#endif
