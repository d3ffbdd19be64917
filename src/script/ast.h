/*
 * ast.h - the syntax tree of a script, as parse.c builds it and lower.c
 * reads it.  One node type with generic fields; the comment at each kind
 * says which fields it uses.  Operators are TokKind values of lex.h.
 * Every node has a span; expression nodes record their depth so that
 * consumers may recurse without a stack limit check (the parser rejects
 * trees deeper than AST_MAX_DEPTH).
 */
#ifndef PT_AST_H
#define PT_AST_H

#include "base/base.h"
#include "script/lex.h"

#define AST_MAX_DEPTH 200

typedef enum AstKind {
	/* expressions */
	A_NAME,      /* name */
	A_INT,       /* ival */
	A_FLOAT,     /* fval */
	A_STR,       /* str (adjacent literals concatenated) */
	A_BOOL,      /* ival 0/1 */
	A_NONE,      /* None */
	A_TUPLE,     /* list (elements; A_STAR allowed) */
	A_LIST,      /* list */
	A_UNARY,     /* op (TK_MINUS, TK_PLUS, TK_TILDE), a */
	A_NOT,       /* a */
	A_AND,       /* a, b */
	A_OR,        /* a, b */
	A_BINARY,    /* op, a, b (op includes TK_AT for k@axis) */
	A_COMPARE,   /* op, a, b (single comparison; chains rejected) */
	A_CALL,      /* a = callee, list = args (exprs, A_STAR, A_KWARG) */
	A_ATTR,      /* a . name */
	A_SUBSCRIPT, /* a [ list ] (items are exprs or A_SLICE) */
	A_SLICE,     /* a : b : c, each may be NULL */
	A_STAR,      /* * a (call argument or display element) */
	A_KWARG,     /* name = a (call argument) */
	A_FSTRING,   /* list = parts: A_STR pieces and field expressions */
	A_IFEXP,     /* b if a else c */
	A_LAMBDA,    /* lambda name: a (only as a call argument) */
	/* statements */
	S_EXPR,      /* a */
	S_ASSIGN,    /* a = b */
	S_ANNASSIGN, /* a : b [= c] */
	S_AUGASSIGN, /* a op= b; op is the binary operator (TK_PLUS...) */
	S_IF,        /* if a: body else: orelse (elif is an S_IF in orelse) */
	S_FOR,       /* for a in b: body */
	S_WHILE,     /* while a: body */
	S_BREAK,
	S_CONTINUE,
	S_RETURN,    /* a may be NULL */
	S_PASS,
	S_ASSERT,    /* assert a[, b] */
	S_DEF,       /* list = decorators, name, params, b = return ann */
	S_IMPORT,    /* list of A_ALIAS (name = dotted module, str = alias) */
	S_FROM,      /* str = module, list of A_ALIAS */
	A_PARAM,     /* name : a */
	A_ALIAS,     /* name [as str] */
	A_MODULE,    /* body */
} AstKind;

typedef struct Ast Ast;
typedef VEC(Ast *) AstVec;

struct Ast {
	AstKind kind;
	Span span;
	int op;
	int depth;
	const char *name;
	const char *str;
	uint64_t ival;
	double fval;
	Ast *a, *b, *c;
	AstVec list;
	AstVec params;
	AstVec body, orelse;
};

/* Parses registered source `file`.  Returns the A_MODULE, or NULL after
 * reporting a diagnostic (the parser stops at the first error). */
Ast *parse_module(Ctx *c, uint32_t file);
/* parse.c: a source holding one expression (a constant override). */
Ast *parse_expression(Ctx *c, uint32_t file);

/* lower.c: the module's IR; errors are diagnostics on c. */
struct pt_module *lower_module(Ctx *c, Ast *mod);

#endif
