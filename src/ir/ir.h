/*
 * ir.h - the IR: plain structs in the compile arena.
 *
 * A Module holds symbolic sizes and functions.  A kernel Func has
 * parameters, a launch configuration and a statement tree; a scalar Func
 * (used by ewise) has scalar parameters, a return dtype and a body of
 * bindings, if/else and returns.  Names are resolved: expressions point at
 * their Var (scalar symbol) or Buffer (tensor symbol).  Compile-time
 * constants are folded during lowering, so module-level constants do not
 * appear in the IR.
 *
 * A tile call is one expression node (EX_TILE_APPLY / EX_TILE_EWISE) with
 * the instruction spelling, the operand tuple, the named parameter tuple
 * and the execution scope, as the reference's last section describes.  A
 * raw PTX call (EX_PTX) holds the canonical literal spelling.
 *
 * Invariants after lowering: every Expr has a type (ET_*), scalar
 * expressions have a dtype, every Var/Buffer referenced is defined before
 * use in program order (parameters, dynamic sizes, or a defining
 * statement), and spans point into the source (or are zero for IR read
 * from JSON).
 */
#ifndef PT_IR_H
#define PT_IR_H

#include "base/base.h"
#include "layout/layout.h"
#include "ptx/ptx.h"

/* ---- dtypes (dtypes.def) ---- */

typedef enum DTypeKind {
	DK_BOOL,
	DK_INT,
	DK_UINT,
	DK_FLOAT,
	DK_BITS
} DTypeKind;

typedef enum DType {
	DT_NONE,
#define DTYPE(id, name, bits, kind, ptx) DT_##id,
#include "ir/dtypes.def"
#undef DTYPE
	DT_COUNT
} DType;

const char *dtype_name(DType t);
int dtype_bits(DType t);
DTypeKind dtype_kind(DType t);
const char *dtype_ptx(DType t);
/* Parses an exact dtype name such as "float32"; false when unknown. */
bool dtype_parse(const char *s, DType *out);

/* ---- scopes ---- */

typedef enum MemScope {
	MS_GLOBAL,     /* "global" */
	MS_SHARED,     /* "shared" */
	MS_SHARED_DYN, /* "shared.dyn" */
	MS_LOCAL,      /* "local" */
	MS_TMEM,       /* "tmem" */
} MemScope;

typedef enum ExecScope {
	ES_THREAD,    /* "thread" */
	ES_WARP,      /* "warp" */
	ES_WARPGROUP, /* "warpgroup" */
	ES_CTA,       /* "cta" */
	ES_CLUSTER,   /* "cluster" */
} ExecScope;

/* Script spellings of the scopes, indexed by MemScope / ExecScope
 * (shared by the printer, lowering and the IR JSON format). */
extern const char *const memscope_names[MS_TMEM + 1];
extern const char *const execscope_names[ES_CLUSTER + 1];

const char *memscope_name(MemScope s);
bool memscope_parse(const char *s, MemScope *out);
const char *execscope_name(ExecScope s);
bool execscope_parse(const char *s, ExecScope *out);

typedef struct Expr Expr;
typedef struct Stmt Stmt;
typedef struct Func Func;

typedef VEC(Expr *) ExprVec;
typedef VEC(Stmt *) Block;

/* ---- symbols ---- */

typedef enum VarKind {
	VK_PARAM,  /* scalar kernel or scalar-function parameter */
	VK_LOCAL,  /* scalar variable defined by ST_VAR_DECL */
	VK_LOOP,   /* for-loop variable */
	VK_DYN,    /* symbolic size: n = T.dynamic("n") at module level */
} VarKind;

typedef struct Var {
	const char *name;
	DType dtype;
	VarKind kind;
	Span span;
	int id; /* unique within the module, in definition order */
} Var;

typedef enum BufKind {
	BK_PARAM, /* T.Tensor parameter */
	BK_ALLOC, /* T.alloc_shared / alloc_local / alloc_buffer / decl_buffer */
	BK_VIEW,  /* name bound to a view expression: v = X.view("uint32") */
} BufKind;

typedef struct Buffer {
	const char *name;
	BufKind kind;
	DType dtype;
	int ndim;
	Expr **shape;     /* ndim extents: integer constants or symbolic */
	MemScope scope;
	Layout *layout;   /* NULL: default row-major on axis m */
	int64_t align;    /* bytes; 0 when not given */
	Expr *allocated_addr; /* tmem decl_buffer only, else NULL */
	Expr *view;       /* BK_VIEW: the defining view expression */
	Span span;
	int id;           /* unique within the module */
} Buffer;

/* ---- expressions ---- */

typedef enum ExprType {
	ET_SCALAR, /* has a dtype */
	ET_TENSOR, /* a buffer or a view of one */
	ET_VOID,   /* a call used as a statement */
	ET_STR,    /* string literal (dtype names, axis names) */
	ET_TUPLE,  /* tuple of expressions (tile parameters like box=) */
} ExprType;

typedef enum ExprKind {
	EX_INT,       /* ival, dtype */
	EX_FLOAT,     /* fval, dtype */
	EX_BOOL,      /* ival 0/1 */
	EX_STR,       /* str */
	EX_VAR,       /* var */
	EX_BUF,       /* buf: the whole region of a buffer */
	EX_UNARY,     /* op, a */
	EX_BINARY,    /* op, a, b */
	EX_CAST,      /* a converted to dtype (T.cast) */
	EX_REINTERPRET, /* a's bits as dtype (T.reinterpret) */
	EX_SELECT,    /* T.if_then_else(a, b, c) */
	EX_LOAD,      /* base[indices]: scalar element load */
	EX_PTR_TO,    /* base.ptr_to([indices]) */
	EX_BUILTIN,   /* builtin(args) */
	EX_REGION,    /* base[slices] or base.sub[slices] */
	EX_VIEW_DTYPE,   /* base.view("dtype") */
	EX_VIEW_RESHAPE, /* base.view(shape..., layout=L) */
	EX_TUPLE,     /* (args...) */
	EX_PTX,       /* raw PTX call */
	EX_TILE_APPLY, /* T.cuda.tile.apply */
	EX_TILE_EWISE, /* T.cuda.tile.ewise */
} ExprKind;

typedef enum UnOp { UN_NEG, UN_BNOT, UN_LNOT } UnOp;

/* `/` on integers truncates (C semantics); `//` and `%` are Python's
 * floor division and floor modulo. */
typedef enum BinOp {
	BIN_ADD, BIN_SUB, BIN_MUL, BIN_DIV, BIN_FLOORDIV, BIN_MOD,
	BIN_SHL, BIN_SHR, BIN_BAND, BIN_BOR, BIN_BXOR,
	BIN_LT, BIN_LE, BIN_GT, BIN_GE, BIN_EQ, BIN_NE,
	BIN_LAND, BIN_LOR,
} BinOp;

typedef enum Builtin {
#define BUILTIN(id, spelling, nargs, args, result) BI_##id,
#include "ir/builtins.def"
#undef BUILTIN
	BI_COUNT
} Builtin;

const char *builtin_spelling(Builtin b);

/* Result kind of a builtin (builtins.def column `result`). */
typedef enum BuiltinResult {
	BR_VOID,
	BR_INT32,
	BR_UINT32,
	BR_BOOL,
	BR_ARG, /* the dtype of the first numeric argument */
	BR_FARG, /* BR_ARG, a float dtype (the math functions) */
	BR_FLOAT32,
} BuiltinResult;

/* What a builtin's arguments are coerced to (builtins.def column `args`). */
typedef enum BuiltinArgs {
	BA_ANY, /* nothing: the result kind and the builtin check them */
	BA_F32, /* float32 */
	BA_U32, /* uint32 */
	BA_FLOAT, /* a float dtype, kept */
} BuiltinArgs;

typedef struct BuiltinInfo {
	const char *spelling; /* "T.cuda.thread_idx" */
	int nargs;            /* -1: variable */
	BuiltinArgs args;
	BuiltinResult result;
} BuiltinInfo;

const BuiltinInfo *builtin_info(Builtin b);
/* Finds a builtin by its full spelling ("T.exp"); false when unknown. */
bool builtin_parse(const char *spelling, Builtin *out);
/* How many instruction forms builtin b issues from the form table
 * (builtin_forms.def); 0 for one that prints only fixed scalar
 * instructions. */
int builtin_form_count(Builtin b);
/* The spelling of builtin b's form i (i < builtin_form_count(b); for a
 * FIRST row, one of its alternatives), or NULL. */
const char *builtin_form_spelling(Builtin b, int i);

/* One dimension of a region subscript: an index (end == NULL, is_slice
 * false) or a slice begin:end (either may be NULL for an open end). */
typedef struct Slice {
	bool is_slice;
	Expr *begin;
	Expr *end;
} Slice;

/* A named tile parameter: box=(1, 32), pred=p, mbar=... */
typedef struct NamedArg {
	const char *name;
	Expr *value;
	Span span;
} NamedArg;

typedef VEC(NamedArg) NamedArgVec;

struct Expr {
	ExprKind kind;
	ExprType type;
	DType dtype; /* ET_SCALAR results (and element dtype of tensors) */
	Span span;
	union {
		int64_t ival;  /* EX_INT (value as signed 64), EX_BOOL */
		double fval;   /* EX_FLOAT */
		const char *str; /* EX_STR */
		Var *var;      /* EX_VAR */
		Buffer *buf;   /* EX_BUF */
		struct {       /* EX_UNARY, EX_BINARY, EX_CAST,
			        * EX_REINTERPRET, EX_SELECT */
			int op;
			Expr *a, *b, *c;
		} op;
		struct {       /* EX_LOAD, EX_PTR_TO */
			Expr *base;
			ExprVec indices;
		} access;
		struct {       /* EX_BUILTIN */
			Builtin id;
			ExprVec args;
			/* the forms of the instructions it issues
			 * (builtin_forms.def), selected by the checker
			 * (ir_select_builtin); NULL: none selected, or
			 * the builtin has none; never written to JSON */
			const PtxInst *const *forms;
		} call;
		struct {       /* EX_REGION */
			Expr *base;
			bool sub;  /* written as .sub[...] */
			Slice *dims;
			int ndims;
		} region;
		struct {       /* EX_VIEW_DTYPE (dtype in Expr.dtype),
			        * EX_VIEW_RESHAPE */
			Expr *base;
			ExprVec shape;  /* reshape only */
			Layout *layout; /* reshape only; NULL = default */
		} view;
		ExprVec tuple; /* EX_TUPLE */
		struct {       /* EX_PTX */
			const char *spelling; /* canonical literal spelling */
			Span opcode_span;     /* of the spelling; 0: unknown */
			ExprVec args;
			Expr *pred;        /* NULL: unconditional */
			bool preserve_dst;
			/* the chosen form: sel, a raw call's form and
			 * argument mapping (ptx_select, the checker's);
			 * row, the form a tile lowering issued
			 * (ir_ptx_issue), its arguments bound to
			 * operands by codegen; never written to JSON */
			const PtxSel *sel;
			const PtxInst *row;
		} ptx;
		struct {       /* EX_TILE_APPLY */
			const char *opcode; /* T.ptx["..."] spelling */
			Span opcode_span;   /* of T.ptx["..."]; 0: unknown */
			ExprVec operands;
			NamedArgVec params; /* in written order */
			ExecScope scope;
			/* the checker's record of the call (the chosen
			 * form, operands, parameters); the lowering
			 * reads it; never written to JSON */
			struct TileCall *tile;
		} apply;
		struct {       /* EX_TILE_EWISE */
			Func *fn;  /* a scalar function (the lambda) */
			Expr *dst;
			ExprVec inputs;
			ExecScope scope;
			struct TileCall *tile; /* as apply.tile */
		} ewise;
	} u;
};

/* ---- statements ---- */

typedef enum StmtKind {
	ST_VAR_DECL, /* x: T.dtype = init (init may be NULL) */
	ST_ASSIGN,   /* x = value, x already declared */
	ST_STORE,    /* base[indices] = value */
	ST_BUF_DEF,  /* allocation or named view: buf = T.alloc_...(...) */
	ST_FOR,
	ST_WHILE,
	ST_IF,
	ST_BREAK,
	ST_CONTINUE,
	ST_RETURN,   /* scalar functions only */
	ST_EVAL,     /* a call evaluated for its effect */
} StmtKind;

typedef enum ForKind { FOR_SERIAL, FOR_UNROLL } ForKind;

struct Stmt {
	StmtKind kind;
	Span span;
	union {
		struct {
			Var *var;
			Expr *value;
		} var; /* ST_VAR_DECL, ST_ASSIGN */
		struct {
			Expr *base;
			ExprVec indices;
			Expr *value;
		} store;
		Buffer *buf; /* ST_BUF_DEF */
		struct {
			Var *var;
			Expr *begin, *end, *step;
			ForKind kind;
			Block body;
		} loop;
		struct {
			Expr *cond;
			Block body;
		} whil;
		struct {
			Expr *cond;
			Block then, els; /* els empty when absent; elif is
					  * an ST_IF alone in els */
		} cond;
		Expr *value; /* ST_RETURN, ST_EVAL */
	} u;
};

/* ---- functions and the module ---- */

typedef enum ParamKind {
	PK_TENSOR,    /* T.Tensor(...) */
	PK_SCALAR,    /* T.int32 etc. */
	PK_TENSORMAP, /* T.TensorMap(): caller-encoded CUtensorMap */
} ParamKind;

typedef struct Param {
	ParamKind kind;
	Var *var;    /* PK_SCALAR, PK_TENSORMAP */
	Buffer *buf; /* PK_TENSOR */
	Span span;
} Param;

typedef struct Launch {
	Expr *grid[3], *block[3];
	int ngrid, nblock;      /* number of components written */
	bool grid_tuple, block_tuple; /* written as a tuple */
	int64_t cluster[3];
	int ncluster;           /* 0: no launch cluster */
	bool cluster_tuple;
	/* kernel_attrs=T.cuda.KernelAttributes(...); 0 when not given */
	int64_t min_blocks_per_sm;      /* .minnctapersm */
	int64_t max_registers;          /* max_registers_per_thread: .maxnreg */
	int64_t max_blocks_per_cluster; /* .maxclusterrank */
} Launch;

struct Func {
	const char *name;
	bool is_kernel;  /* false: scalar function (ewise lambda) */
	VEC(Param) params;
	DType ret;       /* scalar function result dtype */
	Launch launch;   /* kernels */
	Block body;
	Span span;
	/* tile/symshape.c: symbolic sizes whose strides the tile checker
	 * assumed to be multiples (metadata "assume", checked at launch);
	 * not part of the IR's structure or serialisation */
	VEC(struct SizeAssume) assume;
	/* tensor maps the runtime encodes at launch (docs/metadata.md kind
	 * "tma"), in the order their calls were lowered (tile/patterns/
	 * tma.c); codegen declares each as a hidden parameter; not part of
	 * the IR's structure or serialisation */
	VEC(struct TmapSlot *) tmaps;
};

typedef struct SizeAssume {
	const Var *var;
	int64_t multiple_of;
} SizeAssume;

struct pt_module {
	VEC(Var *) dyn;    /* symbolic sizes, in definition order */
	VEC(Func *) funcs; /* in source order; scalar functions included */
};

typedef struct pt_module Module;

/* A tensor map built by the runtime from tensor parameter `tensor` of
 * kernel `func`: declared `.param .align 64 .b8 <func>_<name>[128]`
 * after the user's parameters (before the symbolic sizes), in slot
 * order; `var` is bound to the map's generic address.  Arrays are
 * outermost first; the strings are docs/metadata.md spellings. */
typedef struct TmapSlot {
	Func *func;
	const Buffer *tensor;
	const char *name;
	Var *var;             /* set by the lowering (tile/patterns/tma.c) */
	int rank;
	int64_t box[5];
	int64_t elem_strides[5];
	const char *format, *interleave, *swizzle, *l2_promotion, *oob_fill;
	/* a rectangular region of the tensor (outermost first): origin and
	 * extent per dim, extent 0 = to the end of the dim; region false:
	 * the whole tensor */
	bool region;
	int64_t region_origin[5], region_extent[5];
} TmapSlot;

/* ---- builders and utilities (ir.c) ---- */

Expr *ir_int(Ctx *c, int64_t v, DType t, Span sp);
Expr *ir_float(Ctx *c, double v, DType t, Span sp);
Expr *ir_bool(Ctx *c, bool v, Span sp);
Expr *ir_new_expr(Ctx *c, ExprKind k, ExprType ty, DType t, Span sp);
Stmt *ir_new_stmt(Ctx *c, StmtKind k, Span sp);
/* True and *v set when e is an integer (or bool) constant. */
bool ir_const_int(const Expr *e, int64_t *v);
/* Selects the form of EX_PTX x through ptx_select, reading each argument
 * as the checker sees it, and records it in x->u.ptx.sel (a raw call's:
 * the checker's, or a unit test's).  broad: read arguments as widely as
 * codegen can lower them (ir_ptx_arg_broad).  Reports a miss. */
bool ir_select_ptx(Ctx *c, Expr *x, bool broad);
/* An argument of an instruction the checker did not see (a lowering's)
 * as ptx_select/ptx_bind read it: what codegen can lower. */
PtxArg ir_ptx_arg_broad(const Expr *x);
/* EX_PTX x's form: the checker's selection or the row a lowering
 * issued; NULL when it has neither (E3010 in codegen). */
const PtxInst *ir_ptx_form(const Expr *x);
/* Selects the forms of EX_BUILTIN x's instructions (builtin_forms.def)
 * for c->target and records them in x->u.call.forms: a FIRST row's the
 * first alternative the target's gate passes (else its last).  True,
 * recording nothing, for a builtin without forms; a spelling no form row
 * accepts (a table bug, which test_builtin_forms rules out) is
 * PT_E_INTERNAL.  Gating the chosen form is codegen's (E4052). */
bool ir_select_builtin(Ctx *c, Expr *x);
/* Calls fn on every expression of the statements of b, nested blocks
 * and subexpressions included (a node before its operands); an ewise
 * call's scalar function is not entered. */
void ir_visit_block(const Block *b, void (*fn)(void *ud, Expr *x), void *ud);
/* The one constructor of a selected EX_PTX (what a lowering issues):
 * the form row the tile call's checker chose (or a helper row of
 * tile/helpers.def) with args (in PTX operand order) under pred (NULL:
 * always).  It is recorded, never fitted again: which argument fills
 * which operand is bound where codegen prints them (a misfit is E3011
 * there).  A NULL row is an internal error (E3010) and leaves the node
 * without a form, which codegen then skips (never selects). */
Expr *ir_ptx_issue(Ctx *c, const PtxInst *row, ExprVec args, Expr *pred,
		   Span sp);
/* Checks a T.cuda.printf call (EX_BUILTIN BI_PRINTF): a string format,
 * then one scalar argument per conversion of a dtype that conversion
 * reads (pf_scan); reports PT_E_PRINTF_FORMAT. */
bool ir_printf_check(Ctx *c, const Expr *call);
/* inline.c: a copy of expression x with every variable v for which
 * get(ud, v) is not NULL replaced by that expression. */
Expr *ir_clone_subst(Ctx *c, const Expr *x,
		     Expr *(*get)(const void *ud, const Var *v),
		     const void *ud);
/* inline.c: nodes of x counted as a tree (a shared subexpression at
 * each use), stopping at limit. */
typedef enum IrTree { IR_TREE_OK, IR_TREE_DEEP, IR_TREE_BIG } IrTree;
IrTree ir_tree_measure(const Expr *x, int depth, size_t nodes);
/* float8/6/4: a float format narrower than 16 bits, storage only */
bool ir_dtype_is_storage(DType t);
/* Expression trees the inliner makes and buffer view chains are no
 * deeper than this (PT_E_DEPTH_BUDGET), so every later recursive walk
 * (tile checker, codegen, printer, JSON writer) is bounded. */
#define IR_MAX_DEPTH 512
/* inline.c: the value of scalar function f at args (its parameters'
 * dtypes) as one expression; NULL when f's body is not lowered yet. */
Expr *ir_inline_call(Ctx *c, const Func *f, Expr *const *args,
		     size_t nargs);
/* print.c: one expression as script text (diagnostics quote the
 * script's own names). */
const char *ir_expr_text(Ctx *c, const Expr *e);
/* frontend.c: source text (a script or IR JSON) -> IR module; script
 * errors are diagnostics on c. */
Module *frontend_load(Ctx *c, const char *name, const char *text,
		      size_t len);
/* print.c: the canonical script text of m. */
const char *ir_print_module(Ctx *c, const Module *m);
/* Structural equality of modules: same shape, same constants, same
 * symbols up to renaming of ids (names must match), spans ignored. */
bool ir_module_equal(const Module *a, const Module *b);
/* The same comparison for one expression and for layouts (NULL equals
 * only NULL). */
bool ir_expr_equal(const Expr *a, const Expr *b);
bool ir_layout_equal(const Layout *a, const Layout *b);

#endif
