/*
 * load.c - reads PTX text into pre-decoded kernels.
 *
 * The subset is what ptxtile emits (module header, .entry kernels with
 * .param lists and performance directives, .reg/.shared/.local
 * declarations, labels, guarded instructions).  Everything is resolved
 * here so that the interpreter never looks at text again: register names
 * become slots, symbols become offsets, float immediates are typed, labels
 * become instruction indices.  Anything outside the subset is an
 * EMU_PARSE or EMU_UNSUPPORTED error naming the line.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"

const struct TyInfo emu_ty[PTY_COUNT] = {
#define PTYPE(id, name, bits, bytes, cls) [PTY_##id] = {name, bytes, TC_##cls},
#include "ptx/types.def"
#undef PTYPE
};

/* The decoder of a family whose executors read Insn alone. */
void
decode_none(Arena *a, Insn *in)
{
}

/* Whether an instruction of a family is a warp collective: always,
 * never, or when its spelling holds a qualifier (emu_families.def). */
static const struct {
	int coll;
	bool member_mask;
	bool known;  /* the emulator runs the family */
	void (*decode)(Arena *, Insn *);
} fam_table[PTXF_COUNT] = {
#define EFAM(fam, run, warp, coll, mask, decode)                           \
	[PTXF_##fam] = {coll, mask, true, decode},
#include "emu/emu_families.def"
#undef EFAM
};

/* special registers: %name -> K_SPEC id (run.c reads them) */
static const char *const spec_names[] = {
#define S(name) #name,
#include "emu/emu_specials.def"
#undef S
};

typedef struct Sym {
	const char *name;
	uint32_t slot;     /* register slot */
	int kind;          /* 0 register, 1 shared, 2 local, 3 param */
	uint64_t value;    /* shared/local/param offset; a .global address */
	bool pred;         /* a .pred register */
	bool callp;        /* a .param of a call block, kept in local memory */
	uint8_t ty;        /* a variable's declared type */
} Sym;

typedef struct LabelRef {
	const char *name;
	uint32_t insn, opnd;
	int line;
} LabelRef;

typedef struct Reader {
	ptem *e;
	Arena *a;
	const char *p, *end;
	int line;
	jmp_buf *fail;
	int status;
	/* the kernel being read */
	Kernel *k;
	Sym *syms;
	size_t nsyms, capsyms; /* open-addressing table */
	VEC(Insn) code;
	VEC(Opnd) pool;
	VEC(Param) params;
	VEC(LabelRef) refs;
	VEC(Sym) labels;
	const char *dyn_name;
	uint32_t dyn_align;
	bool dyn_used;
	/* line info: the .file table and the .loc in effect */
	Module *m;
	uint32_t loc_file;
	int loc_line;
	StrSet kernel_names; /* every .entry so far (E9555) */
	StrSet label_names;  /* the labels of the kernel being read */

	/* module scope: .global arrays (printf formats), vprintf declared */
	VEC(Sym) globals;
	bool vprintf;
	bool callp_used; /* the instruction being read names a call .param */
	VEC(uint8_t) slot_bits; /* register width by slot (a miss's 256-bit
				 * access, fail_selection) */
	/* the forms selected so far, by spelling and operand kinds: each
	 * distinct instruction is selected once and its PtxInst shared */
	struct FormMemo *memo;
	size_t nmemo, capmemo;
	/* emu_vocab: each instruction line reported here, a selection miss
	 * included; NULL for a load */
	EmuVocabFn vocab;
	void *vocab_ud;
} Reader;

typedef struct FormMemo {
	const char *key; /* spelling, then one record per operand */
	size_t len;
	const PtxInst *inst;
} FormMemo;

static _Noreturn __attribute__((format(printf, 3, 4))) void
fail(Reader *rd, int code, const char *fmt, ...)
{
	va_list ap;
	int n = rd->loc_file
			? snprintf(rd->e->err, sizeof(rd->e->err),
				   "PTX line %d at %s:%d: ", rd->line,
				   rd->m->files[rd->loc_file], rd->loc_line)
			: snprintf(rd->e->err, sizeof(rd->e->err),
				   "PTX line %d: ", rd->line);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(rd->e->err))
		vsnprintf(rd->e->err + n, sizeof(rd->e->err) - (size_t)n, fmt,
			  ap);
	va_end(ap);
	rd->status = code;
	longjmp(*rd->fail, 1);
}

/* ---- lexing ---- */

static void
skip_space(Reader *rd)
{
	while (rd->p < rd->end) {
		char c = *rd->p;
		if (c == '\n') {
			rd->line++;
			rd->p++;
		} else if (isspace((unsigned char)c)) {
			rd->p++;
		} else if (c == '/' && rd->p + 1 < rd->end && rd->p[1] == '/') {
			while (rd->p < rd->end && *rd->p != '\n')
				rd->p++;
		} else if (c == '/' && rd->p + 1 < rd->end && rd->p[1] == '*') {
			rd->p += 2;
			while (rd->p + 1 < rd->end &&
			       !(rd->p[0] == '*' && rd->p[1] == '/')) {
				rd->line += *rd->p == '\n';
				rd->p++;
			}
			if (rd->p + 1 >= rd->end)
				fail(rd, PT_E_EMU_PARSE, "unterminated comment");
			rd->p += 2;
		} else {
			break;
		}
	}
}

static bool
is_word(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '%' ||
	       c == '.' || c == ':';
}

/* A word: letters, digits, _ $ % . and ::. */
static const char *
word(Reader *rd)
{
	skip_space(rd);
	const char *s = rd->p;
	while (rd->p < rd->end && is_word(*rd->p))
		rd->p++;
	if (rd->p == s)
		fail(rd, PT_E_EMU_PARSE, "expected a word, found '%c'",
		     rd->p < rd->end ? *rd->p : '?');
	return arena_strndup(rd->a, s, (size_t)(rd->p - s));
}

static bool
accept(Reader *rd, char c)
{
	skip_space(rd);
	if (rd->p < rd->end && *rd->p == c) {
		rd->p++;
		return true;
	}
	return false;
}

static void
expect(Reader *rd, char c)
{
	if (!accept(rd, c))
		fail(rd, PT_E_EMU_PARSE, "expected '%c'", c);
}

static char
peek(Reader *rd)
{
	skip_space(rd);
	return rd->p < rd->end ? *rd->p : 0;
}

static uint64_t
number(Reader *rd)
{
	skip_space(rd);
	/* strtoull takes a sign and wraps it, and saturates past 2^64 - 1:
	 * the sign is the caller's, and a constant ptxas calls "Constant
	 * overflow" is an error rather than ULLONG_MAX */
	if (rd->p < rd->end && !isdigit((unsigned char)*rd->p))
		fail(rd, PT_E_EMU_PARSE, "expected a number");
	char *end;
	errno = 0;
	unsigned long long v = strtoull(rd->p, &end, 0);
	if (end == rd->p || end > rd->end)
		fail(rd, PT_E_EMU_PARSE, "expected a number");
	if (errno == ERANGE)
		fail(rd, PT_E_EMU_CONSTANT,
		     "the constant %.*s does not fit in 64 bits",
		     (int)(end - rd->p < 64 ? end - rd->p : 64), rd->p);
	rd->p = end;
	if (rd->p < rd->end && (*rd->p == 'U' || *rd->p == 'u'))
		rd->p++;
	return v;
}

/* ---- line info (ptxtile compile --lineinfo) ---- */

enum { MAX_FILES = 4096, MAX_FILE_NAME = 1024 };

/* A decimal number on the current line, in [lo, hi]. */
static long
line_number(Reader *rd, long lo, long hi, const char *what)
{
	while (rd->p < rd->end && (*rd->p == ' ' || *rd->p == '\t'))
		rd->p++;
	long v = 0;
	const char *s = rd->p;
	while (rd->p < rd->end && isdigit((unsigned char)*rd->p) &&
	       rd->p - s < 10)
		v = v * 10 + (*rd->p++ - '0');
	if (rd->p == s || v < lo || v > hi ||
	    (rd->p < rd->end && isdigit((unsigned char)*rd->p)))
		fail(rd, PT_E_EMU_PARSE, "bad %s", what);
	return v;
}

static void
skip_line(Reader *rd)
{
	while (rd->p < rd->end && *rd->p != '\n')
		rd->p++;
}

/* .file N "name" [, timestamp, size]: entry N of the file table. */
static void
read_file_directive(Reader *rd)
{
	uint32_t n = (uint32_t)line_number(rd, 1, MAX_FILES - 1,
					   ".file number");
	while (rd->p < rd->end && (*rd->p == ' ' || *rd->p == '\t'))
		rd->p++;
	if (rd->p >= rd->end || *rd->p != '"')
		fail(rd, PT_E_EMU_PARSE, ".file needs a quoted name");
	const char *s = ++rd->p;
	while (rd->p < rd->end && *rd->p != '"' && *rd->p != '\n' &&
	       rd->p - s < MAX_FILE_NAME)
		rd->p++;
	if (rd->p >= rd->end || *rd->p != '"')
		fail(rd, PT_E_EMU_PARSE, ".file name unterminated or too long");
	const char *name = arena_strndup(rd->a, s, (size_t)(rd->p - s));
	rd->p++;
	skip_line(rd);
	Module *m = rd->m;
	if (n >= m->nfiles) {
		const char **f = NEWN(rd->a, const char *, n + 1);
		for (uint32_t i = 0; i < m->nfiles; i++)
			f[i] = m->files[i];
		m->files = f;
		m->nfiles = n + 1;
	}
	if (m->files[n])
		fail(rd, PT_E_EMU_PARSE, ".file %u given twice", n);
	m->files[n] = name;
}

/* .loc F L C [, function_name ..., inlined_at ...]: the script location
 * of the instructions that follow (to the next .loc). */
static void
read_loc(Reader *rd)
{
	uint32_t f = (uint32_t)line_number(rd, 1, MAX_FILES - 1, ".loc file");
	long l = line_number(rd, 0, 1L << 30, ".loc line");
	if (f >= rd->m->nfiles || !rd->m->files[f])
		fail(rd, PT_E_EMU_PARSE, ".loc names file %u, not declared "
		     "by .file", f);
	skip_line(rd);
	rd->loc_file = f;
	rd->loc_line = (int)l;
}

/* Skips to just after the next ';' of the current statement. */
static void
skip_statement(Reader *rd)
{
	while (rd->p < rd->end && *rd->p != ';') {
		rd->line += *rd->p == '\n';
		rd->p++;
	}
	if (rd->p >= rd->end)
		fail(rd, PT_E_EMU_PARSE, "missing ';'");
	rd->p++;
}

/* ---- symbols ---- */

static uint64_t
hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static Sym *
sym_find(Reader *rd, const char *name)
{
	if (!rd->capsyms)
		return NULL;
	size_t i = hash_str(name) & (rd->capsyms - 1);
	while (rd->syms[i].name) {
		if (!strcmp(rd->syms[i].name, name))
			return &rd->syms[i];
		i = (i + 1) & (rd->capsyms - 1);
	}
	return NULL;
}

static Sym *
sym_add(Reader *rd, const char *name)
{
	if (sym_find(rd, name))
		fail(rd, PT_E_EMU_PARSE, "'%s' declared twice", name);
	if (2 * (rd->nsyms + 1) > rd->capsyms) {
		size_t cap = rd->capsyms ? 2 * rd->capsyms : 256;
		Sym *old = rd->syms;
		size_t oldcap = rd->capsyms;
		rd->syms = NEWN(rd->a, Sym, cap);
		rd->capsyms = cap;
		for (size_t i = 0; i < oldcap; i++) {
			if (!old[i].name)
				continue;
			size_t j = hash_str(old[i].name) & (cap - 1);
			while (rd->syms[j].name)
				j = (j + 1) & (cap - 1);
			rd->syms[j] = old[i];
		}
	}
	size_t i = hash_str(name) & (rd->capsyms - 1);
	while (rd->syms[i].name)
		i = (i + 1) & (rd->capsyms - 1);
	rd->syms[i].name = name;
	rd->nsyms++;
	return &rd->syms[i];
}

/* ---- directives inside a kernel ---- */

/* The type a declaration names (.reg, a variable, a .param); the
 * one-byte MMA formats (.e4m3, .e5m2) are operand types of an MMA's
 * spelling only, never declared. */
static PtxType
type_of(const char *tok)
{
	for (int t = 1; t < PTY_COUNT; t++)
		if (!strcmp(emu_ty[t].name, tok))
			return t == PTY_E4M3 || t == PTY_E5M2 ? PTY_NONE : (PtxType)t;
	return PTY_NONE;
}

/* .reg .b32 %r<92>;  or  .reg .b32 %a, %b; */
static void
read_reg_decl(Reader *rd)
{
	const char *ty = word(rd);
	if (ty[0] != '.' || !type_of(ty + 1))
		fail(rd, PT_E_EMU_PARSE, "bad register type '%s'", ty);
	bool pred = !strcmp(ty, ".pred");
	uint8_t bits = (uint8_t)(8 * emu_ty[type_of(ty + 1)].bytes);
	do {
		const char *name = word(rd);
		if (accept(rd, '<')) {
			uint64_t n = number(rd);
			expect(rd, '>');
			if (n > 1u << 16 || rd->k->nregs + n > 1u << 16)
				fail(rd, PT_E_EMU_PARSE, "too many registers");
			for (uint64_t i = 0; i < n; i++) {
				Sym *s = sym_add(rd, arena_printf(
					rd->a, "%s%llu", name,
					(unsigned long long)i));
				s->slot = rd->k->nregs++;
				s->pred = pred;
				vec_push(rd->a, &rd->slot_bits, bits);
			}
		} else {
			if (rd->k->nregs + 1 > 1u << 16)
				fail(rd, PT_E_EMU_PARSE, "too many registers");
			Sym *s = sym_add(rd, name);
			s->slot = rd->k->nregs++;
			s->pred = pred;
			vec_push(rd->a, &rd->slot_bits, bits);
		}
	} while (accept(rd, ','));
	expect(rd, ';');
}

static uint32_t static_smem_max(const Module *m);

/* [.align N] .type name[N] (or name[] for dynamic shared memory) */
static Sym *
read_var_decl(Reader *rd, int kind, bool is_extern)
{
	uint64_t align = 1, elem = 0;
	PtxType ty = PTY_NONE;
	bool given = false; /* PTX: a variable is aligned to its type by default */
	const char *w;
	for (;;) {
		w = word(rd);
		if (!strcmp(w, ".align")) {
			align = number(rd);
			given = true;
		} else if (w[0] == '.' && type_of(w + 1)) {
			ty = type_of(w + 1);
			elem = emu_ty[ty].bytes;
		} else {
			break;
		}
	}
	if (!given)
		align = elem;
	if (!elem || !align || align > 4096 || (align & (align - 1)))
		fail(rd, PT_E_EMU_PARSE, "bad variable declaration");
	uint64_t count = 1;
	bool dynamic = false;
	if (accept(rd, '[')) {
		if (accept(rd, ']')) {
			dynamic = true;
		} else {
			count = number(rd);
			expect(rd, ']');
		}
	}
	expect(rd, ';');
	if (dynamic) {
		if (kind != 1 || !is_extern)
			fail(rd, PT_E_EMU_PARSE, "unsized array '%s'", w);
		rd->dyn_name = w;
		rd->dyn_align = (uint32_t)align;
		if (rd->syms || rd->k->name)
			sym_add(rd, w)->kind = 5;
		return NULL;
	}
	if (kind == 1 && rd->dyn_used)
		fail(rd, PT_E_EMU_UNSUPPORTED,
		     "static shared '%s' declared after dynamic shared memory "
		     "is used", w);
	uint64_t limit = kind == 1 ? 1u << 24 : 1u << 19; /* 512 KiB local */
	if (count > limit / elem ||
	    (kind == 1 ? rd->k->smem_static : rd->k->local_size) + count * elem +
			    align > limit)
		fail(rd, PT_E_EMU_PARSE, "'%s' is too large", w);
	uint32_t *size = kind == 1 ? &rd->k->smem_static : &rd->k->local_size;
	uint64_t off = (*size + align - 1) & ~(align - 1);
	Sym *s = sym_add(rd, w);
	s->kind = kind;
	s->value = off;
	s->ty = (uint8_t)ty;
	*size = (uint32_t)(off + count * elem);
	if (kind == 1 && *size > static_smem_max(rd->m))
		fail(rd, PT_E_EMU_SMEM_LIMIT, "'%s' brings the kernel's static "
		     "shared memory to %u bytes, over the %u of %s", w, *size,
		     static_smem_max(rd->m),
		     rd->m->target ? rd->m->target->name : "any target");
	return s;

}

/* ---- operands ---- */

static void
special_or_reg(Reader *rd, const char *name, Opnd *o)
{
	Sym *s = sym_find(rd, name);
	if (s && s->kind == 0) {
		o->kind = K_REG;
		o->reg = s->slot;
		o->pred = s->pred;
		return;
	}
	for (size_t i = 0; i < countof(spec_names); i++)
		if (!strcmp(spec_names[i], name + 1)) {
			o->kind = K_SPEC;
			o->reg = (uint32_t)i;
			return;
		}
	fail(rd, PT_E_EMU_PARSE, "unknown register '%s'", name);
}

static void operand(Reader *rd, Opnd *o);

/* The value of a symbol (shared/local/param offset) as an immediate. */
static bool
symbol_value(Reader *rd, const char *name, Opnd *o)
{
	Sym *s = sym_find(rd, name);
	for (size_t i = 0; !s && i < rd->globals.n; i++)
		if (!strcmp(rd->globals.v[i].name, name))
			s = &rd->globals.v[i];
	if (!s || s->kind == 0 || s->kind == 4)
		return false;
	rd->callp_used |= s->callp;
	o->callp = s->callp;
	if (s->kind == 5) {
		/* dynamic shared memory follows the static variables */
		uint64_t a = rd->dyn_align ? rd->dyn_align : 16;
		s->value = (rd->k->smem_static + a - 1) & ~(a - 1);
		rd->dyn_used = true;
	}
	o->imm = (int64_t)s->value;
	o->smem = s->kind == 1 || s->kind == 5;
	return true;
}

/* The int64 with the bits of v: PTX constants are 64-bit two's
 * complement, so -2^63 and 2^64 - 1 are both fine, and a signed negation
 * or conversion (UB or implementation-defined in C) is never needed. */
static int64_t
as_int64(uint64_t v)
{
	int64_t r;
	memcpy(&r, &v, sizeof(r));
	return r;
}

static int64_t
wrap_add(int64_t a, int64_t b)
{
	return as_int64((uint64_t)a + (uint64_t)b);
}

static int64_t
signed_number(Reader *rd)
{
	bool neg = accept(rd, '-');
	uint64_t v = number(rd);
	return as_int64(neg ? 0 - v : v);
}

static void
vector_operand(Reader *rd, Opnd *o)
{
	VEC(Opnd) el = {0};
	do {
		Opnd x = {0};
		operand(rd, &x);
		if (x.kind == K_VEC || x.kind == K_ADDR)
			fail(rd, PT_E_EMU_PARSE, "nested vector");
		vec_push(rd->a, &el, x);
	} while (accept(rd, ','));
	expect(rd, '}');
	if (el.n > 256)
		fail(rd, PT_E_EMU_PARSE, "vector too long");
	o->kind = K_VEC;
	o->n = (uint16_t)el.n;
	o->vec = (uint32_t)rd->pool.n;
	for (size_t i = 0; i < el.n; i++)
		vec_push(rd->a, &rd->pool, el.v[i]);
}

/* [base], [base+off], [sym+off], [imm], [tmap, {coords}] */
static void
address_operand(Reader *rd, Opnd *o)
{
	o->kind = K_ADDR;
	o->reg = NOREG;
	char c = peek(rd);
	if (c == '-' || isdigit((unsigned char)c)) {
		o->imm = signed_number(rd);
	} else {
		const char *w = word(rd);
		Opnd base = {0};
		if (w[0] == '%') {
			special_or_reg(rd, w, &base);
			if (base.kind != K_REG)
				fail(rd, PT_E_EMU_PARSE, "bad address base");
			o->reg = base.reg;
		} else if (symbol_value(rd, w, &base)) {
			o->imm = base.imm;
			o->smem = base.smem;
			o->callp = base.callp;
		} else {
			fail(rd, PT_E_EMU_PARSE, "unknown symbol '%s'", w);
		}
		if (accept(rd, '+'))
			o->imm = wrap_add(o->imm, signed_number(rd));
		else if (peek(rd) == '-')
			/* ptxas: "Parsing error near '-'"; [a+-N] is the
			 * spelling of a negative offset */
			fail(rd, PT_E_EMU_PARSE, "address offset written a-N "
			     "(PTX spells it a+-N)");
	}
	if (accept(rd, ',')) {
		expect(rd, '{');
		Opnd v = {0};
		vector_operand(rd, &v);
		o->n = v.n;
		o->vec = v.vec;
	}
	expect(rd, ']');
}

/* (p0, p1): a call's return or arguments, each a .param of the
 * enclosing call block: a list (in the pool) of the local addresses the
 * interpreter reads. */
static void
param_list(Reader *rd, Opnd *o)
{
	VEC(Opnd) el = {0};
	do {
		const char *w = word(rd);
		Sym *s = sym_find(rd, w);
		if (!s || !s->callp)
			fail(rd, PT_E_EMU_PARSE,
			     "call argument '%s' is not a .param of the call "
			     "block",
			     w);
		Opnd x = {.kind = K_ADDR,
			  .reg = NOREG,
			  .callp = 1,
			  .imm = (int64_t)s->value};
		vec_push(rd->a, &el, x);
	} while (accept(rd, ','));
	expect(rd, ')');
	if (el.n > 8)
		fail(rd, PT_E_EMU_PARSE, "call list too long");
	rd->callp_used = true;
	o->kind = K_VEC;
	o->callp = 1;
	o->n = (uint16_t)el.n;
	o->vec = (uint32_t)rd->pool.n;
	for (size_t i = 0; i < el.n; i++)
		vec_push(rd->a, &rd->pool, el.v[i]);
}

static void
operand(Reader *rd, Opnd *o)
{
	memset(o, 0, sizeof(*o));
	char c = peek(rd);
	if (c == '[') {
		rd->p++;
		address_operand(rd, o);
		return;
	}
	if (c == '{') {
		rd->p++;
		vector_operand(rd, o);
		return;
	}
	if (c == '(') {
		rd->p++;
		param_list(rd, o);
		return;
	}
	if (c == '!') {
		rd->p++;
		operand(rd, o);
		if (o->kind != K_REG)
			fail(rd, PT_E_EMU_PARSE, "'!' before a non-register");
		o->neg = 1;
		return;
	}
	if (c == '-' || c == '+' || isdigit((unsigned char)c)) {
		const char *s = rd->p;
		bool neg = c == '-';
		if (c == '-' || c == '+')
			s++;
		o->kind = K_IMM;
		if (s + 1 < rd->end && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' ||
						       s[1] == 'd' || s[1] == 'D')) {
			/* 0fXXXXXXXX / 0dXXXXXXXXXXXXXXXX: the bits */
			bool dbl = s[1] == 'd' || s[1] == 'D';
			char *end;
			uint64_t bits = strtoull(s + 2, &end, 16);
			if (end - (s + 2) != (dbl ? 16 : 8))
				fail(rd, PT_E_EMU_PARSE, "bad float literal");
			if (neg)
				bits ^= dbl ? 1ull << 63 : 1ull << 31;
			rd->p = end;
			o->imm = (int64_t)bits;
			o->fimm = dbl ? 3 : 2; /* already f64 / f32 bits */
			return;
		}
		const char *q = s;
		while (q < rd->end && (isalnum((unsigned char)*q) || *q == '.'))
			q++;
		bool is_float = false;
		if (!(s + 1 < rd->end && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
			for (const char *t = s; t < q; t++)
				is_float |= *t == '.' || *t == 'e' || *t == 'E';
		if (is_float) {
			char *end;
			double d = strtod(rd->p, &end);
			if (end == rd->p)
				fail(rd, PT_E_EMU_PARSE, "bad number");
			rd->p = end;
			memcpy(&o->imm, &d, 8);
			o->fimm = 1;
			return;
		}
		if (c == '-' || c == '+')
			rd->p++;
		uint64_t v = number(rd);
		o->imm = as_int64(neg ? 0 - v : v);
		return;
	}
	const char *w = word(rd);
	if (!strcmp(w, "_")) {
		o->kind = K_SINK;
		return;
	}
	if (w[0] == '%') {
		special_or_reg(rd, w, o);
		return;
	}
	if (symbol_value(rd, w, o)) {
		o->kind = K_IMM;
		if (accept(rd, '+'))
			o->imm = wrap_add(o->imm, signed_number(rd));
		return;
	}
	if (rd->vprintf && !strcmp(w, "vprintf")) {
		/* the declared function a call names: its form row's
		 * constant operand (=vprintf), no argument */
		o->kind = K_SINK;
		o->imm = 1;
		return;
	}
	/* a label, resolved when the kernel ends */
	o->kind = K_LABEL;
	LabelRef ref = {w, (uint32_t)rd->code.n, 0, rd->line};
	vec_push(rd->a, &rd->refs, ref);
}

/* ---- instructions ---- */

/* ---- selection through the PTX form table (src/ptx) ---- */

/* How ptx_select sees a loaded operand; false for one that is no
 * argument (the sink `_`, printed by the form itself; a name that is no
 * symbol in any instruction but bra, where it is the label). */
static bool
operand_arg(const Opnd *o, bool pair, bool bra, PtxArg *a)
{
	memset(a, 0, sizeof(*a));
	switch (o->kind) {
	case K_LABEL:
		a->kind = PTXOP_LABEL;
		return bra;
	case K_REG:
		a->kind = o->pred ? PTXOP_PRED : PTXOP_REG;
		return true;
	case K_SPEC:
		a->kind = PTXOP_REG;
		return true;
	case K_IMM:
		a->kind = PTXOP_IMM;
		a->has_value = !o->fimm;
		a->value = o->imm;
		return true;
	case K_ADDR:
		a->kind = o->n ? PTXOP_TENSOR : PTXOP_ADDR;
		a->vec = o->n;
		a->callp = o->callp;
		return true;
	case K_VEC:
		a->kind = o->callp ? PTXOP_PARAMS
			  : pair   ? PTXOP_PAIR
				   : PTXOP_VEC;
		a->vec = o->n;
		a->callp = o->callp;
		return true;
	default:
		return false;
	}
}

static uint64_t
memo_hash(const char *k, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)k[i]) * 1099511628211ull;
	return h;
}

static FormMemo *
memo_slot(Reader *rd, const char *key, size_t len)
{
	if (2 * (rd->nmemo + 1) > rd->capmemo) {
		size_t cap = rd->capmemo ? 2 * rd->capmemo : 64;
		FormMemo *t = NEWN(rd->a, FormMemo, cap);
		memset(t, 0, cap * sizeof(*t));
		for (size_t i = 0; i < rd->capmemo; i++) {
			FormMemo *m = &rd->memo[i];
			if (!m->key)
				continue;
			size_t j = memo_hash(m->key, m->len) & (cap - 1);
			while (t[j].key)
				j = (j + 1) & (cap - 1);
			t[j] = *m;
		}
		rd->memo = t;
		rd->capmemo = cap;
	}
	size_t j = memo_hash(key, len) & (rd->capmemo - 1);
	while (rd->memo[j].key && (rd->memo[j].len != len ||
				   memcmp(rd->memo[j].key, key, len)))
		j = (j + 1) & (rd->capmemo - 1);
	return &rd->memo[j];
}

/* "2", "2 or 3", "1, 2 or 4": the argument counts some form takes. */
static void
counts_text(uint32_t counts, char *buf, size_t cap)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < 32 && n < cap; i++) {
		if (!(counts >> i & 1))
			continue;
		uint32_t rest = counts >> i >> 1;
		const char *sep = !n ? "" : rest ? ", " : " or ";
		n += (size_t)snprintf(buf + n, cap - n, "%s%d", sep, i);
	}
}

struct part_find {
	const char *part; /* ".sp" */
	size_t len;
	bool found;
};

static void
alt_holds_part(void *ud, const char *alt, int len)
{
	struct part_find *f = ud;
	for (const char *p = alt, *end = alt + len; p + f->len <= end; p++)
		if (*p == '.' && !memcmp(p, f->part, f->len) &&
		    (p + f->len == end || p[f->len] == '.'))
			f->found = true;
}

/* The first dot-part of the qualifiers (after mnemonic mn) that no form
 * row of mn spells, into part; false when every part is some row's. */
static bool
foreign_part(const char *spelling, const char *mn, char *part, size_t cap)
{
	const char *q = spelling + strlen(mn);
	while (*q == '.') {
		size_t n = 1 + strcspn(q + 1, ".");
		struct part_find f = {q, n, false};
		for (int i = 0; i < ptx_form_count() && !f.found; i++)
			if (!strcmp(ptx_form(i)->mnemonic, mn))
				ptx_form_each_alt(i, alt_holds_part, &f);
		if (!f.found) {
			snprintf(part, cap, "%.*s", (int)n, q);
			return true;
		}
		q += n;
	}
	return false;
}

/* The bits of a vector operand of in wider than 128 (a 256-bit access),
 * or 0: the registers' declared widths. */
static unsigned
wide_vector_bits(const Reader *rd, const Insn *in)
{
	for (unsigned i = 0; i < in->nop; i++) {
		const Opnd *o = &in->o[i];
		unsigned bits = 0;
		for (unsigned j = 0; o->kind == K_VEC && j < o->n; j++) {
			const Opnd *e = &rd->pool.v[o->vec + j];
			if (e->kind == K_REG && e->reg < rd->slot_bits.n)
				bits += rd->slot_bits.v[e->reg];
		}
		if (bits > 128)
			return bits;
	}
	return 0;
}

static _Noreturn void
fail_selection(Reader *rd, const Insn *in, PtxMiss why, const PtxSel *s,
	       int nargs)
{
	char counts[96];
	/* a 256-bit ld/st exists only on .global: ptxas names that rule
	 * (check_wide_access for the forms that exist) */
	unsigned wide = (in->op == PTXMN_LD || in->op == PTXMN_ST)
				? wide_vector_bits(rd, in) : 0;
	if (why == PTXM_QUALIFIERS && wide)
		fail(rd, PT_E_EMU_TARGET, "%s: a %u-bit access must be to "
		     ".global", in->name, wide);
	switch (why) {
	case PTXM_OPERAND_COUNT:
		counts_text(s->counts, counts, sizeof(counts));
		fail(rd, PT_E_EMU_OPERAND_COUNT, "%s takes %s operand%s, not %d",
		     in->name, counts, s->counts == 2 ? "" : "s", nargs);
	case PTXM_OPERAND_KIND:
	case PTXM_IMMEDIATE:
		fail(rd, PT_E_EMU_UNSUPPORTED,
		     "%s: the operands fit no PTX form of the instruction (%s)",
		     in->name, why == PTXM_IMMEDIATE ? "an immediate is out of "
		     "range" : "operand kinds");
	case PTXM_QUALIFIERS: {
		char part[64];
		const char *mn = s->inst.mnemonic;
		if (mn && foreign_part(in->name, mn, part, sizeof(part)))
			fail(rd, PT_E_EMU_UNSUPPORTED, "%s: qualifier %s is in no "
			     "PTX form of %s", in->name, part, mn);
		fail(rd, PT_E_EMU_UNSUPPORTED, "%s: no PTX form of %s takes "
		     "these qualifiers together", in->name, mn ? mn : "it");
	}
	default:
		fail(rd, PT_E_EMU_UNSUPPORTED, "instruction %s is not modelled",
		     in->name);
	}
}

/* A form's constant operand (`=0`: st.bulk's initval, which TIRx's call
 * leaves out) is printed by the compiler, so PTX text writes it; text
 * without it is what ptxas refuses ("Arguments mismatch"). */
static void
check_constant_operands(Reader *rd, const Insn *in)
{
	const PtxInst *s = in->sel;
	for (int i = 0; i < s->nops; i++) {
		const PtxOperand *o = &s->ops[i];
		if (o->kind == PTXOP_SINK && o->word && o->word[0] != '%' &&
		    in->nop < s->nops)
			fail(rd, PT_E_EMU_OPERAND_COUNT,
			     "%s takes %d operands, not %u (the constant %.*s "
			     "is written too)", in->name, s->nops, in->nop,
			     (int)strcspn(o->word, ","), o->word);
	}
}

/* The instruction's form: the first row of the PTX form table that
 * takes the spelling and the operands (ptx_select, the compiler's
 * selector), selected once per distinct instruction (equal ones share
 * one PtxInst); NULL on a miss, with *why, *sel and *nargs set. */
static const PtxInst *
lookup_form(Reader *rd, const Insn *in, uint32_t pairs, PtxMiss *why,
	    PtxSel *sel, int *pnargs)
{
	PtxArg args[MAX_OPND];
	int nargs = 0;
	char key[1024];
	size_t len = strlen(in->name);
	if (len + 1 + MAX_OPND * 48 > sizeof(key))
		fail(rd, PT_E_EMU_PARSE, "mnemonic too long");
	memcpy(key, in->name, len + 1);
	len++;
	for (unsigned i = 0; i < in->nop; i++) {
		PtxArg *a = &args[nargs];
		if (!operand_arg(&in->o[i], pairs >> i & 1, in->op == PTXMN_BRA,
				 a))
			continue;
		nargs++;
		/* a call block's .param is a kind of its own here */
		int kind = (int)a->kind | (int)a->callp << 4;
		int n = snprintf(key + len, sizeof(key) - len, "%d,%d,%d,%lld;",
				 kind, a->vec, (int)a->has_value,
				 a->has_value ? (long long)a->value : 0);
		len += (size_t)n;
	}
	*pnargs = nargs;
	FormMemo *m = memo_slot(rd, key, len);
	if (!m->key) {
		*why = ptx_select(in->name, args, nargs, sel);
		if (*why != PTXM_OK)
			return NULL;
		sel->inst.spelling = NULL; /* the Insn keeps its name */
		m->inst = arena_dup(rd->a, &sel->inst, sizeof(sel->inst));
		m->key = arena_dup(rd->a, key, len);
		m->len = len;
		rd->nmemo++;
	}
	return m->inst;
}

/* Selects the instruction's form (lookup_form; a miss fails the load).
 * Its family picks the executor; its qualifier set and typed fields
 * are what the executors read. */
static void
select_form(Reader *rd, Insn *in, uint32_t pairs)
{
	PtxMiss why;
	PtxSel sel;
	int nargs;
	const PtxInst *inst = lookup_form(rd, in, pairs, &why, &sel, &nargs);
	if (!inst)
		fail_selection(rd, in, why, &sel, nargs);
	in->sel = inst;
	in->op = (uint16_t)inst->mnem;
	check_constant_operands(rd, in);
	in->fam = (uint8_t)inst->family;
	if (!fam_table[in->fam].known)
		fail(rd, PT_E_EMU_UNSUPPORTED, "instruction %s is not modelled",
		     in->name);
	int coll = fam_table[in->fam].coll;
	in->coll = coll == COLL_ALWAYS ||
		   (coll >= 0 && ptx_has(in->sel, (PtxQual)coll));
	in->member_mask = in->coll && fam_table[in->fam].member_mask;
	fam_table[in->fam].decode(rd->a, in);
}

/* bra's form (a miss fails the load); the executor is the loader's
 * CONTROL one, which reads the resolved label, so nothing is decoded. */
static void
select_branch(Reader *rd, Insn *in)
{
	PtxMiss why;
	PtxSel sel;
	int nargs;
	in->sel = lookup_form(rd, in, 0, &why, &sel, &nargs);
	if (!in->sel)
		fail_selection(rd, in, why, &sel, nargs);
}

/* ---- emu_vocab: the selection alone ---- */

/* Which part of a missed instruction no form row takes. */
static const char *
miss_why(Reader *rd, const Insn *in, PtxMiss why, const PtxSel *s)
{
	char part[64];
	switch (why) {
	case PTXM_OPERAND_COUNT:
		return "no form row takes that many operands";
	case PTXM_OPERAND_KIND:
		return "the operands fit no form row";
	case PTXM_IMMEDIATE:
		return "an immediate is out of every row's range";
	case PTXM_QUALIFIERS:
		if (s->inst.mnemonic && foreign_part(in->name, s->inst.mnemonic,
						     part, sizeof(part)))
			return arena_printf(rd->a,
					    "qualifier %s is in no form "
					    "row of %s",
					    part, s->inst.mnemonic);
		return "no form row takes these qualifiers together";
	default:
		return "no form row has the mnemonic";
	}
}

/* emu_vocab's instruction: selected and reported, a miss too; the
 * executors' decoding is skipped (nothing runs). */
static void
vocab_select(Reader *rd, Insn *in, uint32_t pairs)
{
	PtxMiss why;
	PtxSel sel;
	int nargs;
	in->sel = lookup_form(rd, in, pairs, &why, &sel, &nargs);
	if (in->sel)
		in->op = (uint16_t)in->sel->mnem;
	rd->vocab(rd->vocab_ud, in->line, in->name,
		  in->sel ? EMU_VOCAB_ROW : EMU_VOCAB_MISS,
		  in->sel ? NULL : miss_why(rd, in, why, &sel));
}

/* The executors' compact form of the scalar modifiers (rounding,
 * comparison, flags, atomic operation), read once at load from the
 * selection's qualifier bits (quals.def), never from the spelling. */
static const struct {
	PtxQual q;
	uint32_t fl;
} flag_quals[] = {
	{PQ_FTZ, FL_FTZ}, {PQ_SAT, FL_SAT}, {PQ_APPROX, FL_APPROX},
	{PQ_WIDE, FL_WIDE}, {PQ_NAN, FL_NAN}, {PQ_TO, FL_TO},
	{PQ_RELU, FL_RELU}, {PQ_FULL, FL_FULL}, {PQ_ABS, FL_ABS},
	{PQ_XORSIGN, FL_XORSIGN}, {PQ_SATFINITE, FL_SATFINITE},
};

/* setp's comparison; .lo and .hi are comparisons there, halves
 * elsewhere (mul.lo, mad.hi) */
static const struct {
	PtxQual q;
	uint8_t cmp;
} cmp_quals[] = {
	{PQ_EQ, CMP_EQ}, {PQ_NE, CMP_NE}, {PQ_LT, CMP_LT}, {PQ_LE, CMP_LE},
	{PQ_GT, CMP_GT}, {PQ_GE, CMP_GE}, {PQ_LO, CMP_LO}, {PQ_LS, CMP_LS},
	{PQ_HI, CMP_HI}, {PQ_HS, CMP_HS}, {PQ_EQU, CMP_EQU},
	{PQ_NEU, CMP_NEU}, {PQ_LTU, CMP_LTU}, {PQ_LEU, CMP_LEU},
	{PQ_GTU, CMP_GTU}, {PQ_GEU, CMP_GEU}, {PQ_NUM, CMP_NUM},
	{PQ_CMP_NAN, CMP_NAN},
};

static const struct {
	PtxQual q;
	uint8_t aop;
} atom_quals[] = {
	{PQ_AND, AOP_AND}, {PQ_OR, AOP_OR}, {PQ_XOR, AOP_XOR},
	{PQ_EXCH, AOP_EXCH}, {PQ_CAS, AOP_CAS}, {PQ_ADD, AOP_ADD},
	{PQ_INC, AOP_INC}, {PQ_DEC, AOP_DEC}, {PQ_MIN, AOP_MIN},
	{PQ_MAX, AOP_MAX},
};

/* Qualifiers that form rows spell but no executor models: refused at
 * load (prmt's non-default modes, lop3's predicate-writing forms). */
static const struct {
	uint16_t op;
	PtxQual q;
} unmodelled[] = {
	{PTXMN_PRMT, PQ_F4E}, {PTXMN_PRMT, PQ_B4E}, {PTXMN_PRMT, PQ_RC8},
	{PTXMN_PRMT, PQ_ECL}, {PTXMN_PRMT, PQ_ECR}, {PTXMN_PRMT, PQ_RC16},
	{PTXMN_LOP3, PQ_AND}, {PTXMN_LOP3, PQ_OR},
};

static void
decode_rounding(Insn *in, const PtxInst *s)
{
	static const PtxQual rnd[] = {PQ_RN, PQ_RZ, PQ_RM, PQ_RP};
	static const PtxQual rndi[] = {PQ_RNI, PQ_RZI, PQ_RMI, PQ_RPI};
	for (int i = 0; i < 4; i++) {
		if (ptx_has(s, rnd[i]))
			in->rnd = (uint8_t)(RND_RN + i);
		if (ptx_has(s, rndi[i])) {
			in->rnd = (uint8_t)(RND_RN + i);
			in->fl |= FL_RINT;
		}
	}
}

/* Fills the executors' fields from the selected form: types (in the
 * order written), vector count, state space and modifiers.  Cache and
 * eviction hints and memory-order qualifiers need no field: every access
 * here is sequentially consistent, stronger than any of them (the
 * multi-device ordering check asks their bits itself, devices.c). */
static void
decode_selection(Reader *rd, Insn *in)
{
	const PtxInst *s = in->sel;
	for (int i = 0; i < s->ntypes; i++)
		in->ty[in->nty++] = (uint8_t)s->types[i];
	in->vec = (uint8_t)s->vec;
	switch (s->spelled_space) {
	case PSP_GLOBAL: case PSP_SHARED: case PSP_SHARED_CLUSTER:
	case PSP_LOCAL: case PSP_PARAM: case PSP_CONST:
		in->space = (uint8_t)s->spelled_space;
		break;
	case PSP_SHARED_CTA:
		in->space = PSP_SHARED;
		break;
	default:
		in->space = PSP_GENERIC;
	}
	decode_rounding(in, s);
	for (size_t i = 0; i < countof(flag_quals); i++)
		if (ptx_has(s, flag_quals[i].q))
			in->fl |= flag_quals[i].fl;
	if (in->op == PTXMN_SETP) {
		for (size_t i = 0; i < countof(cmp_quals); i++)
			if (ptx_has(s, cmp_quals[i].q))
				in->cmp = cmp_quals[i].cmp;
		in->fl |= ptx_has(s, PQ_AND) ? FL_BOP_AND
			  : ptx_has(s, PQ_OR) ? FL_BOP_OR
			  : ptx_has(s, PQ_XOR) ? FL_BOP_XOR : 0;
	} else {
		in->fl |= (ptx_has(s, PQ_LO) ? FL_LO : 0) |
			  (ptx_has(s, PQ_HI) ? FL_HI : 0);
	}
	if (in->op == PTXMN_ATOM || in->op == PTXMN_RED)
		for (size_t i = 0; i < countof(atom_quals); i++)
			if (ptx_has(s, atom_quals[i].q))
				in->aop = atom_quals[i].aop;
	for (size_t i = 0; i < countof(unmodelled); i++)
		if (in->op == unmodelled[i].op && ptx_has(s, unmodelled[i].q))
			fail(rd, PT_E_EMU_UNSUPPORTED, "modifier %s of %s is not "
			     "modelled", ptx_qual_text(unmodelled[i].q), in->name);
}

/* The type a float immediate of operand i takes: the selected form's
 * type for that operand when it is a scalar float type (the .f32 c of
 * add.f32.f16, whose last type is .f16), else the instruction's last. */
static PtxType
immediate_type(const Insn *in, unsigned i)
{
	PtxType last = in->nty ? (PtxType)in->ty[in->nty - 1] : PTY_NONE;
	if (!in->sel || in->sel->nops != (int)in->nop)
		return last;
	PtxType t = (PtxType)in->sel->ops[i].type; /* one id space: types.def */
	return t == PTY_F16 || t == PTY_BF16 || t == PTY_F32 || t == PTY_F64
		       ? t
		       : last;
}

/* Gives a float immediate the bits of its type. */
static void
type_immediates(Reader *rd, Insn *in)
{
	for (unsigned i = 0; i < in->nop; i++) {
		Opnd *o = &in->o[i];
		if (o->kind != K_IMM || !o->fimm)
			continue;
		PtxType ty = immediate_type(in, i);
		double d;
		if (o->fimm == 2) {
			float f;
			uint32_t b = (uint32_t)o->imm;
			memcpy(&f, &b, 4);
			d = f;
		} else {
			memcpy(&d, &o->imm, 8);
		}
		if (ty == PTY_F32) {
			float f = (float)d;
			uint32_t b;
			memcpy(&b, &f, 4);
			o->imm = b;
		} else if (ty == PTY_F64) {
			memcpy(&o->imm, &d, 8);
		} else if (ty == PTY_F16 || ty == PTY_F16X2) {
			o->imm = emu_round_small(d, RND_RN, 5, 10);
		} else if (ty == PTY_BF16 || ty == PTY_BF16X2) {
			o->imm = emu_round_small(d, RND_RN, 8, 7);
		} else if (o->fimm == 1) {
			fail(rd, PT_E_EMU_PARSE, "float literal in %s",
			     in->name);
		}
		o->fimm = 0;
	}
}

/* A 256-bit ld/st (.v8 of 32-bit, .v4 of 64-bit elements) exists only on
 * global memory, from PTX 8.8, on targets with wide_ldst (ptxas:
 * "Feature '256 bit wide load/store' requires ..."). */
static void
check_wide_access(Reader *rd, const Insn *in)
{
	if ((in->op != PTXMN_LD && in->op != PTXMN_ST) || !in->vec || !in->nty)
		return;
	unsigned bytes = in->vec * emu_ty[in->ty[in->nty - 1]].bytes;
	if (bytes <= 16)
		return;
	if (in->space != PSP_GLOBAL)
		fail(rd, PT_E_EMU_TARGET, "%s: a 256-bit access must be to "
		     ".global", in->name);
	const EmuTarget *t = rd->m->target;
	if (rd->m->version && rd->m->version < 88)
		fail(rd, PT_E_EMU_TARGET, "%s: a 256-bit access needs .version "
		     "8.8 or later", in->name);
	if (t && !t->wide_ldst)
		fail(rd, PT_E_EMU_TARGET, "%s: a 256-bit access needs .target "
		     "sm_100 or higher, not %s", in->name, t->name);
}

/* call's function: the declared vprintf (operand() reads it as its row's
 * constant operand), the only function ptxtile calls. */
static void
check_call(Reader *rd, const Insn *in)
{
	const Opnd *f = &in->o[1];
	if (in->nop == 3 && f->kind == K_SINK && f->imm == 1)
		return;
	const char *name = f->kind == K_LABEL && rd->refs.n
				   ? rd->refs.v[rd->refs.n - 1].name
				   : "a non-function";
	fail(rd, PT_E_EMU_UNSUPPORTED,
	     "call of %s (only a declared vprintf is modelled)", name);
}

static void
read_instruction(Reader *rd, const char *first)
{
	Insn in = {0};
	in.guard = NOREG;
	in.line = rd->line;
	in.sfile = rd->loc_file;
	in.sline = rd->loc_line;
	const char *mn = first;
	if (first[0] == '@') {
		const char *g = first + 1;
		if (*g == '!') {
			in.guard_neg = 1;
			g++;
		}
		if (!*g)
			g = word(rd);
		Opnd o = {0};
		special_or_reg(rd, g, &o);
		if (o.kind != K_REG)
			fail(rd, PT_E_EMU_PARSE, "bad guard");
		in.guard = o.reg;
		mn = word(rd);
	}
	in.name = mn;
	/* the mnemonic tells bra (a label operand) before selection; a
	 * selected instruction takes its form's */
	in.op = (uint16_t)ptx_mnem_prefix(mn);
	if (in.op == PTXMN_NONE)
		fail(rd, PT_E_EMU_UNSUPPORTED, "instruction %s is not modelled",
		     mn);
	rd->callp_used = false;
	uint32_t pairs = 0; /* operands written d|p */
	if (!accept(rd, ';')) {
		do {
			if (in.nop == MAX_OPND)
				fail(rd, PT_E_EMU_PARSE, "too many operands");
			Opnd *o = &in.o[in.nop++];
			operand(rd, o);
			if (accept(rd, '|')) {
				/* d|p: a pair of destinations */
				Opnd second;
				operand(rd, &second);
				Opnd head = *o;
				o->kind = K_VEC;
				o->n = 2;
				o->vec = (uint32_t)rd->pool.n;
				vec_push(rd->a, &rd->pool, head);
				vec_push(rd->a, &rd->pool, second);
				pairs |= 1u << (in.nop - 1);
			}
		} while (accept(rd, ','));
		expect(rd, ';');
	}
	if (in.op == PTXMN_BRA) {
		/* a label operand: its row (forms_scalar.def) checks the
		 * spelling; the loader resolves the label (resolve_labels) */
		if (in.nop != 1)
			fail(rd, PT_E_EMU_OPERAND_COUNT,
			     "%s takes 1 operand, not %u", mn, in.nop);
		if (rd->vocab)
			vocab_select(rd, &in, pairs);
		else
			select_branch(rd, &in);
		in.fam = PTXF_CONTROL;
	} else if (rd->vocab) {
		vocab_select(rd, &in, pairs);
	} else {
		select_form(rd, &in, pairs);
		decode_selection(rd, &in);
		check_wide_access(rd, &in);
		if (in.op == PTXMN_CALL)
			check_call(rd, &in);
	}
	/* st.param / ld.param of a call block's .param: the thread's
	 * local memory */
	if (in.space == PSP_PARAM && rd->callp_used)
		in.space = PSP_LOCAL;
	for (unsigned i = 0; i < in.nop; i++)
		if (in.o[i].kind == K_LABEL)
			rd->refs.v[rd->refs.n - 1].opnd = i;
	if (!rd->vocab) /* the executors' immediates: nothing runs */
		type_immediates(rd, &in);
	in.quiet = emu_quiet_op((PtxMnem)in.op);
	if (rd->code.n >= 1u << 24)
		fail(rd, PT_E_EMU_PARSE, "kernel too long");
	vec_push(rd->a, &rd->code, in);
}

static void
read_params(Reader *rd)
{
	expect(rd, '(');
	if (accept(rd, ')'))
		return;
	do {
		const char *w = word(rd);
		if (strcmp(w, ".param"))
			fail(rd, PT_E_EMU_PARSE, "expected .param");
		uint64_t align = 0, elem = 0, count = 1;
		for (;;) {
			w = word(rd);
			if (!strcmp(w, ".align"))
				align = number(rd);
			else if (w[0] == '.' && type_of(w + 1))
				elem = emu_ty[type_of(w + 1)].bytes;
			else if (!strcmp(w, ".ptr") || !strncmp(w, ".global", 7))
				continue;
			else
				break;
		}
		if (accept(rd, '[')) {
			count = number(rd);
			expect(rd, ']');
		}
		if (!elem || count == 0 || count > 4096)
			fail(rd, PT_E_EMU_PARSE, "bad parameter '%s'", w);
		if (!align)
			align = elem;
		if (align > 256 || (align & (align - 1)))
			fail(rd, PT_E_EMU_PARSE, "bad parameter alignment");
		uint32_t off = (uint32_t)((rd->k->param_size + align - 1) &
					  ~(align - 1));
		Param p = {w, off, (uint32_t)(elem * count)};
		if (off + p.size > 32768)
			fail(rd, PT_E_EMU_PARSE, "parameters too large");
		vec_push(rd->a, &rd->params, p);
		rd->k->param_size = off + p.size;
		Sym *s = sym_add(rd, w);
		s->kind = 3;
		s->value = off;
	} while (accept(rd, ','));
	expect(rd, ')');
}

static void
read_dims(Reader *rd, unsigned d[3])
{
	for (int i = 0; i < 3; i++) {
		uint64_t v = number(rd);
		if (v == 0 || v > 1024)
			fail(rd, PT_E_EMU_PARSE, "bad dimension");
		d[i] = (unsigned)v;
		if (!accept(rd, ','))
			break;
	}
}

static int
label_cmp(const void *a, const void *b)
{
	return strcmp(((const Sym *)a)->name, ((const Sym *)b)->name);
}

/* Labels sorted by name, each reference a binary search: n log n for a
 * kernel of any size (a linear search per reference was quadratic). */
static void
resolve_labels(Reader *rd)
{
	if (rd->labels.n)
		qsort(rd->labels.v, rd->labels.n, sizeof(Sym), label_cmp);
	for (size_t i = 0; i < rd->refs.n; i++) {
		LabelRef *ref = &rd->refs.v[i];
		Sym key = {.name = ref->name};
		const Sym *l = rd->labels.n ? bsearch(&key, rd->labels.v,
						      rd->labels.n, sizeof(Sym),
						      label_cmp)
					    : NULL;
		if (!l) {
			rd->line = ref->line;
			fail(rd, PT_E_EMU_PARSE, "unknown name '%s'", ref->name);
		}
		rd->code.v[ref->insn].o[ref->opnd].imm = (int64_t)l->value;
	}
}

static void
read_body(Reader *rd)
{
	int depth = 1;
	while (depth > 0) {
		char c = peek(rd);
		if (!c)
			fail(rd, PT_E_EMU_PARSE, "unterminated kernel body");
		if (c == '{') {
			rd->p++;
			depth++;
			continue;
		}
		if (c == '}') {
			rd->p++;
			depth--;
			continue;
		}
		if (c == '@') {
			rd->p++;
			bool neg = accept(rd, '!');
			const char *g = word(rd);
			read_instruction(rd, arena_printf(rd->a, "@%s%s",
							  neg ? "!" : "", g));
			continue;
		}
		const char *w = word(rd);
		size_t wl = strlen(w);
		if (w[wl - 1] == ':' && (wl < 2 || w[wl - 2] != ':')) {
			Sym l = {.name = arena_strndup(rd->a, w, wl - 1),
				 .kind = 4, .value = (uint64_t)rd->code.n};
			/* ptxas: "Duplicate definition of label" */
			if (!strset_add(rd->a, &rd->label_names, l.name))
				fail(rd, PT_E_EMU_PARSE, "label '%s' defined "
				     "twice", l.name);
			vec_push(rd->a, &rd->labels, l);
			continue;
		}
		if (!strcmp(w, ".reg")) {
			read_reg_decl(rd);
		} else if (!strcmp(w, ".shared")) {
			read_var_decl(rd, 1, false);
		} else if (!strcmp(w, ".extern")) {
			if (strcmp(word(rd), ".shared"))
				fail(rd, PT_E_EMU_UNSUPPORTED, "extern non-shared");
			read_var_decl(rd, 1, true);
		} else if (!strcmp(w, ".local")) {
			read_var_decl(rd, 2, false);
		} else if (!strcmp(w, ".param") && depth > 1) {
			/* a call block's argument: local memory of the
			 * thread, which st.param / ld.param then address */
			Sym *s = read_var_decl(rd, 2, false);
			if (s)
				s->callp = true;
		} else if (!strcmp(w, ".loc")) {
			read_loc(rd);
		} else if (!strcmp(w, ".pragma")) {
			skip_statement(rd);
		} else if (w[0] == '.') {
			fail(rd, PT_E_EMU_UNSUPPORTED, "directive %s", w);
		} else {
			read_instruction(rd, w);
		}
	}
}

/* .visible .entry name(params) directives { body } */
static void
read_entry(Reader *rd, Module *m, const char *ext_dyn, uint32_t ext_align)
{
	Kernel *k = NEW(rd->a, Kernel);
	rd->k = k;
	rd->syms = NULL;
	rd->nsyms = rd->capsyms = 0;
	memset(&rd->code, 0, sizeof(rd->code));
	memset(&rd->pool, 0, sizeof(rd->pool));
	memset(&rd->slot_bits, 0, sizeof(rd->slot_bits));
	memset(&rd->params, 0, sizeof(rd->params));
	memset(&rd->refs, 0, sizeof(rd->refs));
	memset(&rd->labels, 0, sizeof(rd->labels));
	memset(&rd->label_names, 0, sizeof(rd->label_names));
	rd->dyn_name = ext_dyn;
	rd->dyn_align = ext_align;
	rd->dyn_used = false;
	k->name = word(rd);
	if (!strset_add(rd->a, &rd->kernel_names, k->name))
		fail(rd, PT_E_EMU_DUPLICATE, "kernel '%s' is defined twice",
		     k->name);
	if (ext_dyn)
		sym_add(rd, ext_dyn)->kind = 5;
	read_params(rd);
	for (;;) {
		char c = peek(rd);
		if (c == '{')
			break;
		const char *w = word(rd);
		if (!strcmp(w, ".reqntid")) {
			read_dims(rd, k->reqntid);
		} else if (!strcmp(w, ".reqnctapercluster")) {
			read_dims(rd, k->reqcluster);
		} else if (!strcmp(w, ".maxntid") || !strcmp(w, ".maxnreg") ||
			   !strcmp(w, ".minnctapersm") ||
			   !strcmp(w, ".maxclusterrank") ||
			   !strcmp(w, ".maxnctapersm")) {
			unsigned d[3];
			read_dims(rd, d);
		} else if (!strcmp(w, ".explicitcluster") ||
			   !strcmp(w, ".noreturn")) {
			continue;
		} else {
			fail(rd, PT_E_EMU_UNSUPPORTED, "kernel directive %s", w);
		}
	}
	expect(rd, '{');
	read_body(rd);
	resolve_labels(rd);

	/* dynamic shared memory starts after the static variables */
	k->dyn_align = rd->dyn_align ? rd->dyn_align : 16;
	k->code = rd->code.v;
	k->ncode = (uint32_t)rd->code.n;
	k->pool = rd->pool.v;
	k->npool = (uint32_t)rd->pool.n;
	k->params = rd->params.v;
	k->nparams = (uint32_t)rd->params.n;
	k->next = m->kernels;
	m->kernels = k;
}

static const EmuTarget emu_targets[] = {
#define EMU_TARGET(name, ver, smem, wide) {name, ver, smem, wide},
#include "emu/emu_targets.def"
#undef EMU_TARGET
};

/* The highest minor version of each major that ptxas 13.0 accepts
 * (6.3-6.5, 7.0-7.8, 8.0-8.8, 9.0; measured): ptxas says "Unsupported
 * .version" for any other. */
static bool
version_known(uint64_t major, uint64_t minor)
{
	static const uint8_t last_minor[] = {[6] = 5, [7] = 8, [8] = 8,
					     [9] = 0};
	return major >= 1 && major < countof(last_minor) &&
	       minor <= last_minor[major];
}

/* .version MAJOR.MINOR (a minor of 10 is read as ptxas does, as 1) */
static void
read_version(Reader *rd, Module *m)
{
	if (m->version || m->target || m->kernels)
		fail(rd, PT_E_EMU_TARGET, ".version must come first, once");
	uint64_t major = number(rd);
	if (!accept(rd, '.') || !isdigit((unsigned char)peek(rd)))
		fail(rd, PT_E_EMU_PARSE, ".version needs MAJOR.MINOR");
	uint64_t minor = 0;
	const char *d = rd->p;
	while (rd->p < rd->end && isdigit((unsigned char)*rd->p))
		rd->p++;
	size_t nd = (size_t)(rd->p - d);
	while (nd > 1 && d[nd - 1] == '0')
		nd--;
	if (nd != 1 || (minor = (uint64_t)(d[0] - '0'), !version_known(major,
								      minor)))
		fail(rd, PT_E_EMU_TARGET, "unsupported .version %llu.%.*s "
		     "(ptxas 13.0 reads 6.3 to 9.0)",
		     (unsigned long long)major, (int)(nd < 16 ? nd : 16), d);
	m->version = (int)(major * 10 + minor);
	skip_line(rd);
}

/* .target NAME[, texmode_... | debug]: a name ptxas knows, that the
 * .version can state */
static void
read_target(Reader *rd, Module *m)
{
	if (m->target || m->kernels)
		fail(rd, PT_E_EMU_TARGET, ".target must come once, before the "
		     "kernels");
	const char *w = word(rd);
	const EmuTarget *t = NULL;
	for (size_t i = 0; i < countof(emu_targets) && !t; i++)
		if (!strcmp(emu_targets[i].name, w))
			t = &emu_targets[i];
	if (!t)
		fail(rd, PT_E_EMU_TARGET, "unsupported .target '%s'", w);
	if (m->version && m->version < t->min_version)
		fail(rd, PT_E_EMU_TARGET, "PTX .version %d.%d does not support "
		     ".target %s (it needs %d.%d)", m->version / 10,
		     m->version % 10, w, t->min_version / 10,
		     t->min_version % 10);
	m->target = t;
	skip_line(rd);
}

/* The static shared memory one kernel may declare: the target's, or
 * without a .target the largest of any (227 KiB). */
static uint32_t
static_smem_max(const Module *m)
{
	if (m->target)
		return m->target->static_smem_max;
	uint32_t best = 0;
	for (size_t i = 0; i < countof(emu_targets); i++)
		if (emu_targets[i].static_smem_max > best)
			best = emu_targets[i].static_smem_max;
	return best;
}

/* True when the next word is w (nothing is consumed). */
static bool
peek_word_is(Reader *rd, const char *w)
{
	skip_space(rd);
	size_t n = strlen(w);
	return (size_t)(rd->end - rd->p) > n && !strncmp(rd->p, w, n) &&
	       !is_word(rd->p[n]);
}

/* .extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);
 * the one function ptxtile declares (device printf) */
static void
read_vprintf_decl(Reader *rd)
{
	const char *start = rd->p;
	while (rd->p < rd->end && *rd->p != ';')
		rd->p++;
	if (rd->p >= rd->end)
		fail(rd, PT_E_EMU_PARSE, "unterminated .extern .func");
	const char *name = strstr(arena_strndup(rd->a, start,
						(size_t)(rd->p - start)),
				  ") vprintf(");
	if (!name)
		fail(rd, PT_E_EMU_UNSUPPORTED,
		     ".extern .func other than vprintf");
	rd->p++;
	rd->vprintf = true;
}

/* .global .align A .b8 NAME[N] = {b, ...}; a constant byte array (a
 * printf format), copied into an emulated global allocation. */
static void
read_global_array(Reader *rd)
{
	const char *w = word(rd);
	if (!strcmp(w, ".align")) {
		number(rd);
		w = word(rd);
	}
	if (strcmp(w, ".b8") && strcmp(w, ".u8"))
		fail(rd, PT_E_EMU_UNSUPPORTED, "a .global variable of %s", w);
	const char *name = word(rd);
	expect(rd, '[');
	uint64_t n = number(rd);
	expect(rd, ']');
	if (n == 0 || n > 1u << 16)
		fail(rd, PT_E_EMU_PARSE, ".global array '%s' of %llu bytes",
		     name, (unsigned long long)n);
	uint8_t *bytes = arena_alloc(rd->a, n);
	expect(rd, '=');
	expect(rd, '{');
	for (uint64_t i = 0; i < n; i++) {
		uint64_t b = number(rd);
		if (b > 255)
			fail(rd, PT_E_EMU_PARSE, "byte %llu of '%s' is not a byte",
			     (unsigned long long)i, name);
		bytes[i] = (uint8_t)b;
		if (i + 1 < n)
			expect(rd, ',');
	}
	expect(rd, '}');
	expect(rd, ';');
	for (size_t i = 0; i < rd->globals.n; i++)
		if (!strcmp(rd->globals.v[i].name, name))
			fail(rd, PT_E_EMU_PARSE, "'%s' declared twice", name);
	Sym s = {.name = name, .kind = 6};
	if (ptem_alloc(rd->e, (size_t)n, &s.value) != PT_OK)
		fail(rd, PT_E_EMU_NOMEM, "no memory for '%s'", name);
	memcpy(ptem_host(rd->e, s.value, (size_t)n), bytes, (size_t)n);
	vec_push(rd->a, &rd->globals, s);
}

static void
read_module(Reader *rd, Module *m)
{
	const char *ext_dyn = NULL;
	uint32_t ext_align = 0;
	for (;;) {
		skip_space(rd);
		if (rd->p >= rd->end)
			break;
		const char *w = word(rd);
		if (!strcmp(w, ".version")) {
			read_version(rd, m);
		} else if (!strcmp(w, ".target")) {
			read_target(rd, m);
		} else if (!strcmp(w, ".address_size")) {
			skip_line(rd);
		} else if (!strcmp(w, ".visible") || !strcmp(w, ".weak")) {
			continue;
		} else if (!strcmp(w, ".file")) {
			read_file_directive(rd);
		} else if (!strcmp(w, ".entry")) {
			read_entry(rd, m, ext_dyn, ext_align);
		} else if (!strcmp(w, ".global")) {
			read_global_array(rd);
		} else if (!strcmp(w, ".extern") && peek_word_is(rd, ".func")) {
			read_vprintf_decl(rd);
		} else if (!strcmp(w, ".extern")) {
			if (strcmp(word(rd), ".shared"))
				fail(rd, PT_E_EMU_UNSUPPORTED, "extern non-shared");
			Kernel tmp = {0};
			rd->k = &tmp;
			rd->syms = NULL;
			rd->nsyms = rd->capsyms = 0;
			read_var_decl(rd, 1, true);
			rd->k = NULL;
			if (tmp.smem_static)
				fail(rd, PT_E_EMU_UNSUPPORTED,
				     "module-scope shared variable");
			ext_dyn = rd->dyn_name;
			ext_align = rd->dyn_align;
		} else {
			fail(rd, PT_E_EMU_UNSUPPORTED, "module directive %s", w);
		}
	}
}

/* A reader over text whose failures jump to jb. */
static Reader
reader_over(ptem *e, const char *text, size_t len, jmp_buf *jb)
{
	return (Reader){.e = e,
			.a = &e->arena,
			.p = text,
			.end = text + len,
			.line = 1,
			.fail = jb};
}

/* The one reader body of emu_load and emu_vocab: the arena's
 * out-of-memory guard, the NUL check and the module read.  fn NULL: a
 * load, whose module e->m keeps; else fn hears every instruction line
 * and the module is dropped (it cannot run). */
static int
read_text(ptem *e, const char *text, size_t len, EmuVocabFn fn, void *ud)
{
	jmp_buf jb;
	Reader rd = reader_over(e, text, len, &jb);
	rd.vocab = fn;
	rd.vocab_ud = ud;
	e->err[0] = 0;
	e->arena.oom = &e->oom;
	if (setjmp(e->oom)) {
		e->arena.oom = NULL;
		snprintf(e->err, sizeof(e->err), "out of memory");
		return PT_E_EMU_NOMEM;
	}
	if (setjmp(jb)) {
		e->arena.oom = NULL;
		return rd.status;
	}
	if (memchr(text, 0, len))
		fail(&rd, PT_E_EMU_PARSE, "NUL byte in the PTX text");
	Module *m = NEW(rd.a, Module);
	rd.m = m;
	read_module(&rd, m);
	if (!fn && !m->kernels)
		fail(&rd, PT_E_EMU_PARSE, "no .entry kernel");
	if (!fn)
		e->m = m;
	e->arena.oom = NULL;
	return PT_OK;
}

int
emu_load(ptem *e, const char *text, size_t len)
{
	return read_text(e, text, len, NULL, NULL);
}

int
emu_vocab(ptem *e, const char *text, size_t len, EmuVocabFn fn, void *ud)
{
	return read_text(e, text, len, fn, ud);
}

const Kernel *
emu_find_kernel(const Module *m, const char *name)
{
	for (const Kernel *k = m ? m->kernels : NULL; k; k = k->next)
		if (!name || !strcmp(k->name, name))
			return k;
	return NULL;
}
