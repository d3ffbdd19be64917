/*
 * codegen.h - shared state of the PTX emitter (src/codegen/).
 *
 * Input: a checked IR module whose tile calls were already expanded into
 * raw PTX calls, scalar statements and stores to local elements.
 * Output: PTX text (one .entry per kernel) and the kernel metadata JSON.
 *
 * Codegen only prints: every form it prints from the table comes
 * selected with its node (EX_PTX's sel, a builtin's forms: the checker
 * and the tile lowering select them; a node without one is E3010), and
 * the scalar instructions it writes from its own text are rows of the
 * same table (tests/suites/vocab.sh proves it over the examples and
 * goldens), so it never calls ptx_select itself.
 *
 * Values are virtual registers, one class per PTX register kind (%p, %rs,
 * %r, %rd, %f, %fd), numbered from 1 per kernel in emission order, so the
 * same IR always gives the same text.  A Val is an operand as it will be
 * printed: a register name or an immediate.  Integer constants stay
 * immediates (and fold) until an instruction needs a register.
 */
#ifndef PT_CODEGEN_H
#define PT_CODEGEN_H

#include "base/base.h"
#include "ir/ir.h"

/* module.c: the stage's entry (api.c): PTX text and kernel metadata
 * JSON of a lowered module (every EX_PTX selected, no tile calls). */
void codegen_module(Ctx *c, Module *m, const char **ptx, const char **meta);

typedef enum RegClass {
	RC_PRED, /* %p:  bool */
	RC_B16,  /* %rs: 8/16-bit integers, float16, bfloat16, fp8 */
	RC_B32,  /* %r:  32-bit integers and bit containers */
	RC_B64,  /* %rd: 64-bit integers, addresses */
	RC_F32,  /* %f:  float32, tf32 */
	RC_F64,  /* %fd: float64 */
	RC_COUNT
} RegClass;

/* An operand: a register or an immediate of dtype dt. */
typedef struct Val {
	const char *s; /* printed text */
	DType dt;
	bool imm;      /* an immediate (integer: i, float: f) */
	int64_t i;
	double f;
} Val;

/* Where a buffer's elements live. */
typedef enum BufStore {
	BS_GLOBAL,    /* tensor parameter: base register (global address) */
	BS_SHARED,    /* static .shared symbol */
	BS_DYN,       /* offset into the extern dynamic shared array */
	BS_LOCAL_REG, /* one virtual register per element */
	BS_LOCAL_MEM, /* .local array */
	BS_TMEM,      /* tensor memory: address from allocated_addr */
} BufStore;

typedef struct BufInfo {
	BufStore st;
	const char *sym;     /* shared/local symbol, or global base register */
	const char *generic; /* global: generic base register (param value) */
	int64_t offset;      /* BS_DYN: byte offset in the dynamic array */
	Val *regs;           /* BS_LOCAL_REG: storage elements */
	int64_t nelems;      /* storage elements */
	bool addressed;      /* an element access or address was generated:
			      * the metadata keeps it dense ("contiguous") */
} BufInfo;

typedef struct LoopLabels {
	int brk, cont;       /* label numbers, -1 until first used */
	struct LoopLabels *outer;
} LoopLabels;

typedef struct VarSlot {
	bool bound;
	Val val;
} VarSlot;

/* What the kernels of a module add at module scope (printf.c). */
typedef struct ModDecl {
	StrBuf decl;   /* .global format strings */
	int nstr;      /* numbers the $strN / $printf_bufN symbols */
	bool vprintf;  /* the .extern vprintf declaration is needed */
} ModDecl;

/* call.c: the last binding of an issued row's arguments to its operands
 * (the repeats of one tile call read alike and bind alike). */
typedef struct BindMemo {
	const PtxInst *row;
	int n;
	const PtxArg *args;
	int take[PTX_MAX_OPS];
} BindMemo;

typedef struct Gen {
	Ctx *c;
	ModDecl *mod;
	const Module *m;
	Func *f;
	StrBuf decl;          /* .shared/.local declarations of the entry */
	StrBuf code;          /* instructions of the entry */
	int nreg[RC_COUNT];
	int nlabel;
	DenseIds ids;         /* Var.id / Buffer.id -> index of the two below */
	VEC(VarSlot) vars;    /* by dense Var.id */
	VEC(BufInfo *) bufs;  /* by dense Buffer.id */
	VEC(bool) static_var; /* by Var.id: an unrolled loop variable */
	VEC(bool) dyn_local;  /* by Buffer.id: a local indexed dynamically */
	bool over_budget;        /* a budget ran out: stop generating */
	size_t ptx_done;         /* PTX bytes of the kernels before this one */
	VEC(const char *) names; /* symbols used in this entry */
	const Var **dims;     /* symbolic sizes passed as hidden params */
	size_t ndims;
	LoopLabels *loop;
	int ptx_ver;          /* required .version x10 */
	int64_t static_smem;  /* bytes of static .shared */
	int64_t dyn_bytes;    /* dynamic shared memory */
	int64_t dyn_align;
	bool failed;          /* an error was reported in this kernel */
	uint32_t loc_file;    /* last .loc emitted (lineinfo) */
	int loc_line, loc_col;
	BindMemo bind;
} Gen;

/* ---- regs.c: registers, immediates, instruction text ---- */
RegClass rc_of(DType t);
Val gen_reg(Gen *g, DType t);
Val val_int(Gen *g, int64_t v, DType t);
Val val_float(Gen *g, double v, DType t);
/* A register holding v (moves an immediate into a fresh register). */
Val gen_in_reg(Gen *g, Val v);
void gen_emit(Gen *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int gen_label(Gen *g);
void gen_place_label(Gen *g, int l);
void gen_need_ptx(Gen *g, int ver);
/* Suffix of an instruction of dtype t in class k ("s32", "u16", "f32",
 * "b16"...). */
const char *ptx_int_suffix(DType t);
const char *ptx_mov_suffix(DType t);
/* Reports an error and marks the kernel failed; returns a dummy value. */
Val gen_error(Gen *g, int code, Span sp, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool dtype_is_int(DType t);
bool dtype_is_float(DType t);
bool dtype_is_signed(DType t);

/* ---- expr.c: scalar expressions ---- */
Val gen_expr(Gen *g, const Expr *e);
/* Converts v to dtype t (T.cast semantics). */
Val gen_convert(Gen *g, Val v, DType t, Span sp);
/* Integer helpers that fold immediates. */
Val gen_iadd(Gen *g, Val a, Val b);
Val gen_imul(Gen *g, Val a, Val b);
Val gen_ibin(Gen *g, const char *op, Val a, Val b);
/* Compile-time integer value of e under the current bindings. */
bool gen_const_int(Gen *g, const Expr *e, int64_t *v);
/* A predicate (or constant) for a bool expression. */
Val gen_cond(Gen *g, const Expr *e);
Val gen_builtin(Gen *g, const Expr *e);

/* ---- mem.c: buffers ---- */
void gen_buf_def(Gen *g, Buffer *b);
void gen_param_tensor(Gen *g, Buffer *b, const char *param);
BufInfo *gen_buf(Gen *g, const Buffer *b);
Val gen_load(Gen *g, const Expr *e);
void gen_store(Gen *g, const Stmt *s);
/* Stores v into the element that load expression le names. */
void gen_store_val(Gen *g, const Expr *le, Val v);
/* Element register of a local register buffer, or NULL when e is not
 * such an element. */
const Val *gen_local_elem(Gen *g, const Expr *e);
/* Address of base.ptr_to(indices) in state space sp_name ("shared",
 * "global", "" generic, "local"); ok false after a diagnostic.  When
 * possible the result is a symbol with offset ("sym+16"). */
const char *gen_ptr_to(Gen *g, const Expr *e, const char *space,
		       bool *wide);

/* ---- printf.c ---- */
Val gen_printf(Gen *g, const Expr *e);
Val gen_trap_assert(Gen *g, const Expr *e);

/* ---- stmt.c ---- */
void gen_block(Gen *g, const Block *b);

/* ---- call.c: raw PTX calls ---- */
void gen_ptx_call(Gen *g, const Expr *e);

/* ---- meta.c ---- */
void meta_kernel(Gen *g, StrBuf *out, bool first);

/* ---- analysis (module.c) ---- */
void gen_bind(Gen *g, const Var *v, Val val);
Val *gen_var(Gen *g, const Var *v);
void gen_set_static(Gen *g, const Var *v, bool on);
bool gen_is_static(Gen *g, const Var *v);

#endif
