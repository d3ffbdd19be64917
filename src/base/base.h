/*
 * base.h - arena, growable vectors, strings, spans, diagnostics and the
 * compile context.  Every other module includes this; it knows no project
 * types beyond these.
 *
 * Memory: everything a compile makes lives in ctx->arena and is freed at
 * once.  Running out of memory longjmps to the boundary that
 * pt_try_begin() set (only API entry points set one); nothing else jumps.
 */
#ifndef PT_BASE_H
#define PT_BASE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "ptxtile.h"

#define countof(a) (sizeof(a) / sizeof((a)[0]))

/* Internal invariant: a failure is a bug in ptxtile, never bad input. */
#define PT_ASSERT(c)                                                       \
	((c) ? (void)0 : pt_assert_fail(#c, __FILE__, __LINE__))
_Noreturn void pt_assert_fail(const char *expr, const char *file, int line);

/* ---- arena.c ---- */

typedef struct ArenaBlock ArenaBlock;

typedef struct Arena {
	pt_allocator alloc;  /* underlying allocator */
	ArenaBlock *head;    /* newest block first */
	jmp_buf *oom;        /* where to jump when out of memory, or NULL */
	size_t fail_after;   /* test hook: fail the Nth block request (0 = never) */
	size_t requests;     /* block requests so far */
	size_t total;        /* bytes in blocks now */
	size_t limit;        /* budget for total (0 = none) */
	bool over_budget;    /* the last failure was the budget, not malloc */
} Arena;

void arena_init(Arena *a, const pt_allocator *alloc);
/* Frees every block. */
void arena_free(Arena *a);
/* Zeroed, 16-byte aligned memory; longjmps to a->oom when out of memory
 * (returns NULL only when no oom target is set). */
void *arena_alloc(Arena *a, size_t size);
void *arena_dup(Arena *a, const void *p, size_t size);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
/* suggest.c: the candidate nearest to word (a likely typo), or NULL. */
const char *suggest_name(const char *word, const char *const *cands,
			 size_t n);

/* printf_fmt.c: one conversion of a device printf format. */
typedef enum PfArg {
	PF_NONE,   /* %% */
	PF_INT,    /* d i c: an int (4 bytes) */
	PF_UINT,   /* o u x X: an unsigned int (4 bytes) */
	PF_INT64,  /* ld lld zd ...: a long long (8 bytes) */
	PF_UINT64, /* lu llx zu ...: an unsigned long long (8 bytes) */
	PF_DOUBLE, /* f e g a: a double (8 bytes) */
} PfArg;
typedef struct PfSpec {
	PfArg arg;
	char conv;    /* the conversion letter ('%' for %%) */
	char head[24]; /* "%", flags, width and precision: "%-8.3" */
} PfSpec;
/* Reads the conversion starting at s (s[0] == '%'): its length, or 0
 * with *why saying what is not accepted. */
size_t pf_scan(const char *s, PfSpec *out, const char **why);

char *arena_printf(Arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *arena_vprintf(Arena *a, const char *fmt, va_list ap);

#define NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
/* n elements of elem bytes; a product that overflows fails like OOM. */
void *arena_alloc_n(Arena *a, size_t elem, size_t n);
#define NEWN(a, T, n) ((T *)arena_alloc_n((a), sizeof(T), (size_t)(n)))

/* ---- vec: arena-backed growable arrays ----
 *
 *   VEC(Expr *) args = {0};
 *   vec_push(arena, &args, e);
 */
#define VEC(T)                                                             \
	struct {                                                           \
		T *v;                                                      \
		size_t n, cap;                                             \
	}

void vec_grow(Arena *a, void **v, size_t *cap, size_t elem, size_t need);
#define vec_push(a, vec, x)                                                \
	do {                                                               \
		if ((vec)->n == (vec)->cap)                                \
			vec_grow((a), (void **)&(vec)->v, &(vec)->cap,     \
				 sizeof(*(vec)->v), (vec)->n + 1);         \
		(vec)->v[(vec)->n++] = (x);                                \
	} while (0)

/* ---- overflow-checked integer arithmetic ----
 *
 * Every size, stride, offset and trip count computed from input goes
 * through these: each stores the (wrapped) result in *r and returns true
 * when the exact result does not fit, like C23's ckd_add.
 */
static inline bool
ckd_add64(int64_t *r, int64_t a, int64_t b)
{
	return __builtin_add_overflow(a, b, r);
}
static inline bool
ckd_sub64(int64_t *r, int64_t a, int64_t b)
{
	return __builtin_sub_overflow(a, b, r);
}
static inline bool
ckd_mul64(int64_t *r, int64_t a, int64_t b)
{
	return __builtin_mul_overflow(a, b, r);
}
static inline bool
ckd_addz(size_t *r, size_t a, size_t b)
{
	return __builtin_add_overflow(a, b, r);
}
static inline bool
ckd_mulz(size_t *r, size_t a, size_t b)
{
	return __builtin_mul_overflow(a, b, r);
}

/* ---- hash.c: string hashing and an arena-backed set of strings ---- */

uint64_t hash_bytes(const void *p, size_t n);

typedef struct StrSet {
	const char **slot; /* open addressing; NULL = empty */
	size_t n, cap;     /* cap is 0 or a power of two */
} StrSet;

/* Adds s (not copied); false when an equal string is already there. */
bool strset_add(Arena *a, StrSet *set, const char *s);
bool strset_has(const StrSet *set, const char *s);

/* Module-wide ids (Var.id, Buffer.id) -> dense indices 0, 1, ... in the
 * order first seen, so per-kernel tables stay the size of the kernel,
 * not of the module (10,000 kernels made every table 10,000 times too
 * big: 1.7 GB). */
typedef struct DenseIds {
	int64_t *key;  /* id + 1; 0 = empty */
	size_t *dense;
	size_t n, cap; /* cap is 0 or a power of two */
} DenseIds;

size_t dense_index(Arena *a, DenseIds *m, int64_t id);
size_t dense_find(const DenseIds *m, int64_t id);

/* Longest name (kernel, parameter, variable, buffer, symbolic size)
 * accepted from any input (ir/validate.c). */
#define PT_NAME_MAX 128

/* ---- strbuf: growable text (arena-backed) ---- */

typedef struct StrBuf {
	Arena *arena;
	char *s;
	size_t n, cap;
} StrBuf;

void sb_init(StrBuf *b, Arena *a);
void sb_putc(StrBuf *b, char c);
void sb_puts(StrBuf *b, const char *s);
void sb_putn(StrBuf *b, const char *s, size_t n);
void sb_printf(StrBuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* NUL-terminated contents (the buffer stays usable). */
const char *sb_cstr(StrBuf *b);

/* ---- sources and spans ---- */

/* A byte range in one source file; file 0 means "no location". */
typedef struct Span {
	uint32_t file; /* index into ctx->files, 1-based */
	uint32_t lo;   /* byte offset of the first byte */
	uint32_t hi;   /* byte offset one past the last byte */
} Span;

typedef struct SourceFile {
	const char *name;
	const char *text; /* NUL-terminated */
	size_t len;
	uint32_t *line_starts; /* byte offset of each line, computed lazily */
	size_t nlines;
} SourceFile;

/* ---- diagnostics (diag.c) ---- */

typedef enum Severity { SEV_ERROR, SEV_WARNING, SEV_NOTE } Severity;

typedef struct Diag {
	int code;
	Severity sev;
	Span span;
	const char *msg;
	struct Diag *notes; /* chained notes shown after the message */
	struct Diag *next;
} Diag;

#define PT_MAX_ERRORS 20

/* ---- the compile context ---- */

typedef enum Target {
#define TARGET(id, name, sm, arch_specific) TGT_##id,
#include "base/targets.def"
#undef TARGET
	TGT_COUNT
} Target;

/* A module constant override (pt_set_constant, consts.c): kept across
 * pt_load, so held by the caller's allocator, not the arena. */
typedef struct ConstOverride {
	struct ConstOverride *next;
	char *name;  /* an identifier */
	char *value; /* script expression text, NUL-terminated */
} ConstOverride;

struct pt_ctx {
	Arena arena;             /* everything of the current compile */
	pt_allocator alloc;      /* the caller's allocator */
	VEC(SourceFile) files;   /* source texts, 1-based by Span.file */
	Diag *diags, *diags_tail;
	size_t nerrors;
	Target target;
	bool lineinfo;           /* codegen: .file/.loc (pt_set_lineinfo) */
	jmp_buf *oom;            /* active OOM boundary */
	const char *errmsg;      /* last environment failure */
	int status;              /* last environment status */
	size_t budget[PT_BUDGET_COUNT]; /* pt_set_budget; kept by ctx_reset */
	ConstOverride *consts;   /* pt_set_constant, in set order; kept by
				  * ctx_reset */
	size_t stmts;            /* statements generated this compile */
};

typedef struct pt_ctx Ctx;

/* Registers a source text (copied into the arena); returns its file id. */
uint32_t ctx_add_source(Ctx *c, const char *name, const char *text,
			size_t len);
const SourceFile *ctx_file(const Ctx *c, uint32_t id);
/* 1-based line and column of byte offset off in file id. */
void ctx_line_col(Ctx *c, uint32_t id, uint32_t off, int *line, int *col);

/* Records an error with a stable code; always returns false so that
 * `return diag_error(...)` reads naturally.  Errors past PT_MAX_ERRORS are
 * counted but not stored. */
bool diag_error(Ctx *c, int code, Span sp, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool diag_verror(Ctx *c, int code, Span sp, const char *fmt, va_list ap);
/* Adds a note to the most recent error. */
/* A warning: rendered like an error, but the call still succeeds. */
void diag_warning(Ctx *c, int code, Span sp, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void diag_note(Ctx *c, Span sp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool ctx_has_errors(const Ctx *c);
/* Drops all diagnostics and the arena contents, keeping the context. */
void ctx_reset(Ctx *c);
/* consts.c: frees the constant overrides (pt_ctx_free). */
void ctx_free_constants(Ctx *c);

/* Environment failure: records status and message, returns status. */
int ctx_fail(Ctx *c, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

const char *target_name(Target t);
/* Parses "sm_90a" and friends; false when unknown. */
bool target_parse(const char *s, Target *out);
/* SM number (80, 90, 100, 103) of a target. */
int target_sm(Target t);
/* True for arch-specific (a) and family (f) targets. */
bool target_is_specific(Target t);

#define TARGET_DEFAULT TGT_SM_90A

/* ---- file helpers (io.c), used by the CLI and tests ---- */

/* Reads a whole file into the arena (NUL-terminated); NULL on failure. */
char *read_file(Arena *a, const char *path, size_t *len);
/* diag.c: s with control bytes shown as \xNN (file names, arguments). */
void fputs_escaped(const char *s, FILE *f);
char *read_file_max(Arena *a, const char *path, size_t max, size_t *len);
/* Writes data to path atomically (temp file + rename); false on failure
 * (errno set), leaving no partial file behind. */
bool write_file_atomic(const char *path, const char *data, size_t len);

/* One output in two steps: out_stage writes a temporary file beside the
 * target (nothing for "-" and devices), out_commit renames it into place
 * (or writes stdout or the device), out_abort drops it.  On failure err
 * holds the errno. */
typedef struct OutFile {
	const char *path;  /* where the bytes go (a symlink's target) */
	char *tmp, *real;  /* malloc'd temp name, resolved symlink path */
	const char *data;
	size_t len;
	bool in_place;     /* stdout, device or pipe */
	int fd, err;
	char *bak;         /* out_commit_all: hard link to the replaced file */
	bool renamed;      /* out_commit_all: tmp is in place */
} OutFile;
bool out_stage(OutFile *o, const char *path, const char *data, size_t len);
bool out_commit(OutFile *o);
void out_abort(OutFile *o);
/* Commits n staged outputs all or nothing: the files they replace are
 * kept (hard links) until every rename and every in-place write (last)
 * has succeeded, and put back otherwise.  Returns the index of the
 * output that failed (its err set), or -1.  Bytes already written to
 * stdout or a device cannot be taken back. */
int out_commit_all(OutFile *o, int n);

#endif
