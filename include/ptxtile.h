/*
 * ptxtile.h - public compiler API.
 *
 * A pt_ctx owns everything a compile produces: the arena that holds source
 * text, IR and output text, and the diagnostics.  Pointers returned by these
 * functions belong to the context and stay valid until the next compile on
 * it or pt_ctx_free.  The library never exits the process and keeps no
 * global mutable state, so independent contexts may be used from different
 * threads.
 */
#ifndef PTXTILE_H
#define PTXTILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PT_API __attribute__((visibility("default")))
#else
#define PT_API
#endif

#define PT_VERSION "0.1.0"
/* The binary interface the Python package (python/ptxtile) binds with
 * ctypes: raised whenever a prototype, struct or table it reads changes,
 * so a package and a library that disagree fail at import, not at a
 * launch.  pt_abi_version() returns the library's. */
#define PT_ABI_VERSION 2

/* Status and diagnostic codes: PT_OK or PT_E_<NAME> (number in codes.def). */
enum {
	PT_OK = 0,
#define DIAG(num, name, summary) PT_E_##name = num,
#include "ptxtile/codes.def"
#undef DIAG
};

typedef struct pt_ctx pt_ctx;

/* Replaceable allocator; realloc-style: size 0 frees. */
typedef struct pt_allocator {
	void *(*realloc)(void *ud, void *ptr, size_t size);
	void *ud;
} pt_allocator;

/* A new context, or NULL when allocation fails.  alloc may be NULL. */
PT_API pt_ctx *pt_ctx_new(const pt_allocator *alloc);
PT_API void pt_ctx_free(pt_ctx *ctx);

/* Writes "E1001" into buf and returns it, or NULL for an unknown code. */
PT_API const char *pt_code_name(int code, char buf[8]);
/* One-line summary of a code, or NULL. */
PT_API const char *pt_code_summary(int code);
/* The number of the code named name (the id in include/ptxtile/codes, without
 * PT_E_, e.g. "RT_ARG_DTYPE" -> 5010), or 0 for an unknown name. */
PT_API int pt_code_number(const char *name);
/* PT_ABI_VERSION of the library. */
PT_API int pt_abi_version(void);
/* Row i of one of the library's tables, for bindings that read instead
 * of copying them (src/abi.c): its name, with two numbers in *a and *b
 * (either may be NULL); NULL past the end or for an unknown table.
 *   "dtype"   a script dtype: bits, kind (0 bool, 1 int, 2 uint,
 *             3 float, 4 raw bits)
 *   "target"  a target: SM number, 1 when arch- or family-specific
 *   "axis"    a layout axis: kind (0 storage, 1 thread, 2 CTA, 3 TMEM)
 *   "import"  another importable builtin: module (0 layout, 1 axis)
 *   "struct"  "T": sizeof, alignment; "T.f": offset, size of field f,
 *             for the structs of ptxtile_rt.h / ptxtile_emu.h that
 *             bindings lay out themselves */
PT_API const char *pt_abi_row(const char *table, int i, long long *a,
			      long long *b);

/* Diagnostics of the last operation on ctx. */
PT_API size_t pt_diag_count(const pt_ctx *ctx);
PT_API int pt_diag_code(const pt_ctx *ctx, size_t i);
PT_API const char *pt_diag_message(const pt_ctx *ctx, size_t i);
/* 1-based line and column of diagnostic i (0 when it has no location). */
PT_API void pt_diag_position(const pt_ctx *ctx, size_t i, int *line, int *col);

typedef enum pt_diag_style {
	PT_DIAG_FULL,  /* file:line:col: error[Ecode]: message, line, caret */
	PT_DIAG_SHORT, /* Ecode line:col */
} pt_diag_style;

/* All diagnostics of the last operation rendered as text (NUL-terminated,
 * owned by ctx). */
PT_API const char *pt_diag_render(pt_ctx *ctx, pt_diag_style style);

/* ---- the pipeline ----
 * Each step returns PT_OK, or the code of the first error (diagnostics on
 * ctx), or an environment status (message in pt_ctx_errmsg).  Steps run on
 * the module of the last successful pt_load on the same context.
 */
typedef struct pt_module pt_module;

/* Parses script text, or IR JSON when the name ends in ".json" or the text
 * starts with '{', and lowers it to IR.  Resets ctx first. */
PT_API int pt_load(pt_ctx *ctx, const char *name, const char *text,
		   size_t len, pt_module **out);
/* Canonical script text of the module. */
PT_API int pt_print(pt_ctx *ctx, const pt_module *m, const char **text);
/* The IR as JSON. */
PT_API int pt_to_json(pt_ctx *ctx, const pt_module *m, const char **text);
/* Checks every tile call and raw PTX call for target (e.g. "sm_90a";
 * NULL means the default). */
PT_API int pt_check(pt_ctx *ctx, pt_module *m, const char *target);
/* Lowers to PTX text and the kernel metadata as JSON. */
PT_API int pt_compile(pt_ctx *ctx, pt_module *m, const char *target,
		      const char **ptx, const char **meta_json);
/* Per tile call: family, resolved form, operand shapes, issue count. */
PT_API int pt_explain(pt_ctx *ctx, pt_module *m, const char *target,
		      const char **text);
/* The default target name. */
PT_API const char *pt_default_target(void);
/* With on != 0, pt_compile's PTX carries .file/.loc line information
 * (script lines for Nsight Compute and cuda-gdb); off by default. */
PT_API void pt_set_lineinfo(pt_ctx *ctx, int on);

/* ---- budgets ----
 * Limits on what one input may cost, each with its own diagnostic code
 * (codes/limits.def).  Defaults: PT_BUDGET_*_DEFAULT; 0 restores it. */
typedef enum pt_budget {
	PT_BUDGET_INPUT_BYTES,  /* source text given to pt_load (E9009) */
	PT_BUDGET_STATEMENTS,   /* statements generated after T.unroll
				 * expansion, per compile (E9010) */
	PT_BUDGET_PTX_BYTES,    /* PTX text of one compile (E9011) */
	PT_BUDGET_ARENA_BYTES,  /* memory of one step (E9012) */
	PT_BUDGET_COUNT
} pt_budget;
#define PT_BUDGET_INPUT_BYTES_DEFAULT ((size_t)16 << 20)
#define PT_BUDGET_STATEMENTS_DEFAULT ((size_t)256 << 10)
#define PT_BUDGET_PTX_BYTES_DEFAULT ((size_t)256 << 20)
#define PT_BUDGET_ARENA_BYTES_DEFAULT ((size_t)2 << 30)
/* Sets a budget (kept across pt_load); PT_E_USAGE for an unknown one. */
PT_API int pt_set_budget(pt_ctx *ctx, pt_budget which, size_t limit);
PT_API size_t pt_get_budget(const pt_ctx *ctx, pt_budget which);

/* ---- module constants ----
 * pt_set_constant overrides the module constant `name` (a module-level
 * `NAME = value` of the script) in every later pt_load on ctx, until
 * pt_clear_constants.  value is script expression text: "128", "2.5",
 * "True", "'bfloat16'", "(2, 1)", or a constant expression of earlier
 * module constants.  The override must have the type of the value it
 * replaces (an int for an int, a dtype name for a dtype name, ...);
 * pt_load reports a wrong type as PT_E_CONST_TYPE, a value that is not a
 * constant as PT_E_CONST_VALUE and a name the script does not assign as
 * PT_E_CONST_UNKNOWN.  Setting a name again replaces its value.  Returns
 * PT_E_USAGE for a name that is not an identifier or a value longer than
 * PT_CONSTANT_MAX_BYTES, PT_E_NOMEM when allocation fails. */
#define PT_CONSTANT_MAX_BYTES ((size_t)1 << 16)
PT_API int pt_set_constant(pt_ctx *ctx, const char *name, const char *value);
PT_API void pt_clear_constants(pt_ctx *ctx);

/* Message of the last environment failure (status code != PT_OK). */
PT_API const char *pt_ctx_errmsg(const pt_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
