/* ir/json_schema.h - what the IR JSON writer (json_write.c) and reader
 * (json_read.c) share: the names of the IR's enums in the schema
 * (docs/ir-json.md), the expression kinds' fields and result types, and
 * the id maps.  Only those two files include it. */
#ifndef PT_IR_JSON_SCHEMA_H
#define PT_IR_JSON_SCHEMA_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ir/ir_json.h"
#include "base/json.h"

/* ---- names of the IR enums in the JSON schema ---- */

#define TY(t) (1u << (t))
#define TY_ANY (TY(ET_SCALAR) | TY(ET_TENSOR) | TY(ET_STR) | TY(ET_TUPLE))
#define TY_ALL (TY_ANY | TY(ET_VOID))

typedef struct ExprInfo {
	const char *name;   /* "expr" value */
	ExprType type;      /* result type when "type" is absent */
	unsigned types;     /* result types the kind may have */
	const char *fields; /* members besides expr/type/dtype */
} ExprInfo;

static const ExprInfo expr_info[] = {
	[EX_INT] = {"int", ET_SCALAR, TY(ET_SCALAR), "value"},
	[EX_FLOAT] = {"float", ET_SCALAR, TY(ET_SCALAR), "value"},
	[EX_BOOL] = {"bool", ET_SCALAR, TY(ET_SCALAR), "value"},
	[EX_STR] = {"str", ET_STR, TY(ET_STR), "value"},
	[EX_VAR] = {"var", ET_SCALAR, TY(ET_SCALAR), "var"},
	[EX_BUF] = {"buf", ET_TENSOR, TY(ET_TENSOR), "buf"},
	[EX_UNARY] = {"unary", ET_SCALAR, TY(ET_SCALAR), "op a"},
	[EX_BINARY] = {"binary", ET_SCALAR, TY(ET_SCALAR), "op a b"},
	[EX_CAST] = {"cast", ET_SCALAR, TY(ET_SCALAR), "a"},
	[EX_REINTERPRET] = {"reinterpret", ET_SCALAR, TY(ET_SCALAR), "a"},
	[EX_SELECT] = {"select", ET_SCALAR, TY(ET_SCALAR), "cond then else"},
	[EX_LOAD] = {"load", ET_SCALAR, TY(ET_SCALAR), "base indices"},
	[EX_PTR_TO] = {"ptr_to", ET_SCALAR, TY(ET_SCALAR), "base indices"},
	[EX_BUILTIN] = {"builtin", ET_SCALAR, TY(ET_SCALAR) | TY(ET_VOID),
			"name args"},
	[EX_REGION] = {"region", ET_TENSOR, TY(ET_TENSOR), "base sub dims"},
	[EX_VIEW_DTYPE] = {"view_dtype", ET_TENSOR, TY(ET_TENSOR), "base"},
	[EX_VIEW_RESHAPE] = {"view_reshape", ET_TENSOR, TY(ET_TENSOR),
			     "base shape layout"},
	[EX_TUPLE] = {"tuple", ET_TUPLE, TY(ET_TUPLE), "items"},
	[EX_PTX] = {"ptx", ET_VOID, TY(ET_VOID),
		    "spelling args pred preserve_dst"},
	[EX_TILE_APPLY] = {"tile_apply", ET_VOID, TY(ET_VOID),
			   "opcode operands params scope"},
	[EX_TILE_EWISE] = {"tile_ewise", ET_VOID, TY(ET_VOID),
			   "fn dst inputs scope"},
};

static const char *const stmt_names[] = {
	[ST_VAR_DECL] = "var_decl", [ST_ASSIGN] = "assign",
	[ST_STORE] = "store",       [ST_BUF_DEF] = "buf_def",
	[ST_FOR] = "for",           [ST_WHILE] = "while",
	[ST_IF] = "if",             [ST_BREAK] = "break",
	[ST_CONTINUE] = "continue", [ST_RETURN] = "return",
	[ST_EVAL] = "eval",
};

/* Members of each statement kind besides "stmt". */
static const char *const stmt_fields[] = {
	[ST_VAR_DECL] = "var value", [ST_ASSIGN] = "var value",
	[ST_STORE] = "base indices value", [ST_BUF_DEF] = "buf",
	[ST_FOR] = "var begin end step kind body", [ST_WHILE] = "cond body",
	[ST_IF] = "cond then else", [ST_BREAK] = "", [ST_CONTINUE] = "",
	[ST_RETURN] = "value", [ST_EVAL] = "value",
};

static const char *const type_names[] = {
	[ET_SCALAR] = "scalar", [ET_TENSOR] = "tensor", [ET_VOID] = "void",
	[ET_STR] = "str",       [ET_TUPLE] = "tuple",
};

static const char *const unop_names[] = {
	[UN_NEG] = "neg", [UN_BNOT] = "bnot", [UN_LNOT] = "lnot",
};

static const char *const binop_names[] = {
	[BIN_ADD] = "add", [BIN_SUB] = "sub", [BIN_MUL] = "mul",
	[BIN_DIV] = "div", [BIN_FLOORDIV] = "floordiv", [BIN_MOD] = "mod",
	[BIN_SHL] = "shl", [BIN_SHR] = "shr", [BIN_BAND] = "band",
	[BIN_BOR] = "bor", [BIN_BXOR] = "bxor", [BIN_LT] = "lt",
	[BIN_LE] = "le",   [BIN_GT] = "gt",   [BIN_GE] = "ge",
	[BIN_EQ] = "eq",   [BIN_NE] = "ne",   [BIN_LAND] = "land",
	[BIN_LOR] = "lor",
};

static const char *const bufkind_names[] = {
	[BK_PARAM] = "param", [BK_ALLOC] = "alloc", [BK_VIEW] = "view",
};

static const char *const paramkind_names[] = {
	[PK_TENSOR] = "tensor", [PK_SCALAR] = "scalar",
	[PK_TENSORMAP] = "tensormap",
};

static const char *const forkind_names[] = {
	[FOR_SERIAL] = "serial", [FOR_UNROLL] = "unroll",
};

/* Index of name in names[0..n), or -1. */
static inline int
name_index(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], name) == 0)
			return i;
	return -1;
}

/* Name of enum value i, or "?" when out of range. */
static inline const char *
enum_name(const char *const *names, int n, int i)
{
	return i >= 0 && i < n && names[i] ? names[i] : "?";
}

#define ENUM_NAME(tab, i) enum_name((tab), (int)countof(tab), (int)(i))

/* dtype and builtin names are the script's, expanded from the same .def
 * files; scope names are the IR's own tables (ir.h). */
static const char *const dtype_names[] = {
#define DTYPE(id, name, bits, kind, ptx) [DT_##id] = name,
#include "ir/dtypes.def"
#undef DTYPE
};

static const char *const builtin_names[] = {
#define BUILTIN(id, spelling, nargs, args, result) [BI_##id] = spelling,
#include "ir/builtins.def"
#undef BUILTIN
};

static inline const char *
dtype_json(DType t)
{
	return t > DT_NONE && t < DT_COUNT ? dtype_names[t] : "?";
}

/* ---- id maps: pointer -> id (writer) and id -> symbol (reader) ---- */

typedef struct IdEntry {
	uint64_t key;
	int64_t id;   /* writer: the JSON id */
	void *sym;    /* reader: the Var or Buffer */
	int scope;    /* reader: function scope that defined it (0: module) */
	bool used;
} IdEntry;

typedef struct IdMap {
	IdEntry *v;
	size_t cap, n;
} IdMap;

static inline size_t
idmap_slot(const IdMap *m, uint64_t key)
{
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (m->cap - 1);
	while (m->v[i].used && m->v[i].key != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static inline IdEntry *
idmap_get(const IdMap *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	IdEntry *e = &m->v[idmap_slot(m, key)];
	return e->used ? e : NULL;
}

/* The entry for key, created (zeroed but for key) when absent. */
static inline IdEntry *
idmap_put(Arena *a, IdMap *m, uint64_t key)
{
	if (2 * (m->n + 1) > m->cap) {
		IdMap big = {NEWN(a, IdEntry, m->cap ? 2 * m->cap : 64), 0, 0};
		big.cap = m->cap ? 2 * m->cap : 64;
		for (size_t i = 0; i < m->cap; i++)
			if (m->v[i].used)
				big.v[idmap_slot(&big, m->v[i].key)] = m->v[i];
		big.n = m->n;
		*m = big;
	}
	IdEntry *e = &m->v[idmap_slot(m, key)];
	if (!e->used) {
		memset(e, 0, sizeof(*e));
		e->used = true;
		e->key = key;
		m->n++;
	}
	return e;
}

#endif
