/* lower.h - what the lower files share: the lowering state and the helpers
 * one file calls in another.  Only those files include it. */
#ifndef PT_LOWER_H
#define PT_LOWER_H

#include <float.h>
#include <math.h>
#include <string.h>
#include "ir/ir.h"
#include "ptx/ptx.h"
#include "script/ast.h"

#define MAX_SEQ 4096

typedef VEC(LayoutIter) IterVec;
typedef VEC(LayoutOffset) OffsetVec;
typedef VEC(Func *) FuncVec;

typedef enum SymKind {
	SYM_CONST,   /* cval: a constant expression (scalar, str, tuple) */
	SYM_LAYOUT,  /* layout */
	SYM_VAR,     /* var */
	SYM_BUF,     /* buf */
	SYM_FUNC,    /* fn */
	SYM_NS,      /* the builtin namespace (T) */
	SYM_BUILTIN, /* an imported builtin: path ("S", "Axis.laneid") */
	SYM_ERROR,   /* definition failed: uses stay silent */
} SymKind;

typedef struct Sym {
	const char *name;
	SymKind kind;
	Expr *cval;
	Layout *layout;
	Var *var;
	Buffer *buf;
	Func *fn;
	const char *path;
	size_t shadowed; /* 1 + index of the binding this one hides; 0: none */
} Sym;

/* A constant override of this load (lower_const.c). */
typedef struct Override {
	const char *name;
	Ast *value; /* NULL when its text did not parse (reported) */
	bool used;  /* some module assignment of name took it */
} Override;

/* name -> 1 + index of its innermost binding in Lower.syms (open
 * addressing): lookups stay constant time with 40,000 locals, which a
 * linear scan made quadratic (32 s to check). */
typedef struct SymIndex {
	const char **key;
	size_t *top;
	size_t cap, n;
} SymIndex;

typedef struct Lower {
	Ctx *c;
	Module *m;
	VEC(Sym) syms;
	SymIndex index;
	size_t func_base; /* first symbol of the current function */
	Func *fn;
	int loops;
	int next_id;
	/* the block the statement being lowered goes to: a PTX call used as
	 * a value puts its own statements there first; NULL where no
	 * statement may be added (a while condition, module level) */
	Block *cur;
	int seq_loop;  /* loop depth of the innermost loop over a sequence */
	int next_tmp;  /* numbers the hidden locals of PTX values */
	VEC(Override) overrides;
} Lower;

/* An argument of a call: an AST, or a value from a star expansion. */
typedef struct Arg {
	Ast *ast;
	Expr *val;
	Span span;
} Arg;

typedef struct Args {
	VEC(Arg) pos;
	AstVec kw; /* A_KWARG nodes */
} Args;

/* lower_sym.c */
const char *lw_ast_path(Lower *L, const Ast *a);
Sym *lw_bind(Lower *L, const char *name, SymKind k);
void lw_unbind_to(Lower *L, size_t n);
const char *lw_call_path(Lower *L, const Ast *a);
bool lw_is_alloc_path(const char *p);
bool lw_is_layout_path(const char *p);
Sym *lw_lookup(Lower *L, const char *name);
Sym *lw_lookup_local(Lower *L, const char *name);
Buffer *lw_new_buf(Lower *L, const char *name, BufKind k, Span sp);
Var *lw_new_var(Lower *L, const char *name, DType t, VarKind k, Span sp);
bool lw_path_is(const char *p, const char *want);

/* lower_type.c */
bool lw_binop_of(int tok, BinOp *op);
Expr *lw_clone_const(Lower *L, const Expr *e, Span sp);
Expr *lw_coerce(Lower *L, Expr *e, DType t, Span sp);
double lw_float_max(DType t);
bool lw_float_fits(Lower *L, const Expr *e, DType t, Span sp);
bool lw_const_int(Lower *L, Ast *a, int64_t *v);
const char *lw_const_str(Lower *L, Ast *a, const char *what);
bool lw_is_const_value(const Expr *e);
bool lw_is_intlike(DType t);
bool lw_is_unsigned(DType t);
Expr *lw_make_binary(Lower *L, BinOp op, Expr *a, Expr *b, Span sp);
Expr *lw_make_cast(Lower *L, Expr *a, DType t, Span sp);
Expr *lw_make_unary(Lower *L, UnOp op, Expr *a, Span sp);
Expr *lw_need_bool(Lower *L, Expr *e, Span sp);
Expr *lw_need_int(Lower *L, Expr *e, Span sp);
Expr *lw_need_scalar(Lower *L, Expr *e, Span sp);
void lw_settle(Expr *e);
bool lw_unify(Lower *L, Expr **a, Expr **b, Span sp);
int64_t lw_wrap_int(int64_t v, DType t);

/* lower_call.c */
bool lw_arg_dtype(Lower *L, Arg *a, DType *out);
Expr *lw_arg_expr(Lower *L, Arg *a);
bool lw_ast_dtype(Lower *L, Ast *a, DType *out);
bool lw_check_count(Lower *L, Args *a, size_t lo, size_t hi, Span sp, const char *callee);
bool lw_check_keywords(Lower *L, Args *a, const char *const *allowed, const char *callee);
bool lw_expand_star(Lower *L, Ast *star, Args *out);
Ast *lw_kwarg(Args *a, const char *name);
Expr *lower_call(Lower *L, Ast *call);
/* lower_tirx.c: TIRx's T.cuda helpers that are PTX instructions */
Expr *lw_tirx_uint_as_float(Lower *L, Ast *call);
Expr *lw_tirx_float_as_uint(Lower *L, Ast *call);
Expr *lw_tirx_clock64(Lower *L, Ast *call);
Expr *lw_tirx_ballot_sync(Lower *L, Ast *call);
Expr *lw_tirx_atomic_add(Lower *L, Ast *call);
Expr *lw_tirx_wait_until(Lower *L, Ast *call);
Expr *lw_tirx_atomic_cas(Lower *L, Ast *call);
Expr *lw_tirx_thread_fence(Lower *L, Ast *call);
Expr *lw_tirx_nano_sleep(Lower *L, Ast *call);
Expr *lw_tirx_make_float2(Lower *L, Ast *call);
bool lw_is_ptx_call(Lower *L, const Ast *a);
Stmt *lw_ptx_into(Lower *L, Ast *call, const char *name, Var *dst, DType want,
		  Var **made);
Expr *lw_ptx_value(Lower *L, Ast *call);
bool lw_split_args(Lower *L, Ast *call, Args *out);

/* lower_const.c */
void lw_check_overrides_used(Lower *L);
Expr *lw_override_const(Lower *L, const char *name, Expr *e, Span at);
void lw_parse_overrides(Lower *L);
void lw_refuse_override(Lower *L, const char *name, const char *what, Span at);

/* lower_expr.c */
Expr *lower_expr(Lower *L, Ast *a);
Expr *lower_method(Lower *L, Ast *call);
bool lower_shape(Lower *L, Arg *arg, ExprVec *out);
Expr *lw_make_subscript(Lower *L, Expr *base, AstVec *items, bool sub, Span sp);
Expr *lw_need_tensor(Lower *L, Expr *e, Span sp);
void lw_set_shape(Buffer *b, ExprVec *shape);
int lw_tensor_rank(const Expr *e);
Expr **lw_tensor_shape(Lower *L, const Expr *e);

/* lower_layout.c */
bool lower_layout(Lower *L, Ast *a, Layout **out);

/* lower_stmt.c */
bool lw_alloc_int_kw(Lower *L, Args *a, const char *name, int64_t *out);
void lower_block(Lower *L, AstVec *in, Block *out);
void lw_poison(Lower *L, const char *name);
bool lw_scope_of(Lower *L, Ast *k, MemScope *out);
bool lw_shape_and_dtype(Lower *L, Args *a, Ast *call, const char *fn, Buffer *b);

#endif
