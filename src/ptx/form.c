/*
 * form.c - the PTX form table (forms_*.def) and its template language.
 *
 * Input: a row index and the qualifier text of a spelling.
 * Output: whether the row accepts it, and the resolved operand signature.
 * The template and operand mini-languages are described in ptx.h; both
 * are interpreted directly from the static row strings, so the table
 * stays plain data.  Matching backtracks over optional groups and
 * multi-qualifier alternatives, so acceptance is exact for any row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx.h"

static const PtxForm forms[] = {
#define FORM(fam, mn, tpl, ops, ptx, gate)                                 \
	{PTXF_##fam, mn, tpl, ops, ptx, PTXG_##gate},
#include "ptx/forms_arith.def"
#include "ptx/forms_mem.def"
#include "ptx/forms_async.def"
#include "ptx/forms_sync.def"
#include "ptx/forms_tcgen05.def"
#include "ptx/forms_wgmma.def"
#include "ptx/forms_scalar.def"
#include "ptx/forms_call.def" /* last: tools/ptxdiff.c */
#undef FORM
};

#define MAX_GROUPS 24

typedef struct Group {
	char tag;          /* 0, or t u v n s */
	bool optional;
	const char *alts;  /* "a,b,c" (no braces) */
	int len;
} Group;

typedef struct Match {
	const char *chosen[MAX_GROUPS]; /* chosen alternative or NULL */
	int chosen_len[MAX_GROUPS];
} Match;

int
ptx_form_count(void)
{
	return (int)countof(forms);
}

const PtxForm *
ptx_form(int i)
{
	PT_ASSERT(i >= 0 && i < (int)countof(forms));
	return &forms[i];
}

static bool
is_tag(char ch)
{
	return ch == 't' || ch == 'u' || ch == 'v' || ch == 'n' || ch == 's' ||
	       ch == 'w';
}

/* Splits a template into groups; returns the count. */
static int
tpl_groups(const char *t, Group *g)
{
	int n = 0;
	while (*t) {
		if (*t == ' ') {
			t++;
			continue;
		}
		PT_ASSERT(n < MAX_GROUPS);
		Group *gr = &g[n++];
		memset(gr, 0, sizeof *gr);
		if (is_tag(*t) && t[1] == '{')
			gr->tag = *t++;
		if (*t == '{') {
			const char *e = strchr(t, '}');
			PT_ASSERT(e);
			gr->alts = t + 1;
			gr->len = (int)(e - t - 1);
			t = e + 1;
			if (*t == '?') {
				gr->optional = true;
				t++;
			}
		} else {
			/* a literal: up to the next space, '{' or end */
			PT_ASSERT(*t == '.');
			const char *s = t;
			while (*t && *t != ' ' && *t != '{')
				t++;
			gr->alts = s;
			gr->len = (int)(t - s);
		}
	}
	return n;
}

/* Length of the alternative at p (up to ',' or the group end). */
static int
alt_len(const char *p, const char *end)
{
	const char *q = p;
	while (q < end && *q != ',')
		q++;
	return (int)(q - p);
}

static bool
match_from(const Group *g, int ng, int gi, const char *s, Match *m)
{
	if (gi == ng)
		return *s == 0;
	const Group *gr = &g[gi];
	const char *p = gr->alts, *end = gr->alts + gr->len;
	while (p < end) {
		int l = alt_len(p, end);
		if (strncmp(s, p, (size_t)l) == 0 &&
		    (s[l] == 0 || s[l] == '.')) {
			m->chosen[gi] = p;
			m->chosen_len[gi] = l;
			if (match_from(g, ng, gi + 1, s + l, m))
				return true;
		}
		p += l + 1;
	}
	if (gr->optional) {
		m->chosen[gi] = NULL;
		return match_from(g, ng, gi + 1, s, m);
	}
	return false;
}

static PtxType
type_named(const char *s, int len)
{
	static const char *const names[] = {
#define PTYPE(id, name, bits, bytes, cls) name,
#include "ptx/types.def"
#undef PTYPE
	};
	for (int i = 1; i < (int)countof(names); i++)
		if ((int)strlen(names[i]) == len && strncmp(names[i], s, (size_t)len) == 0)
			return (PtxType)i;
	return PTY_NONE;
}

static PtxSpace
space_named(const char *s, int len)
{
	static const char *const names[] = {
#define PSPACE(id, name, bits) name,
#include "ptx/spaces.def"
#undef PSPACE
	};
	for (int i = 1; i < (int)countof(names); i++)
		if ((int)strlen(names[i]) == len && strncmp(names[i], s, (size_t)len) == 0)
			return (PtxSpace)i;
	return PSP_GENERIC;
}

static int
digits_of(const char *p, int len)
{
	for (int i = 0; i < len; i++)
		if (p[i] >= '0' && p[i] <= '9')
			return atoi(p + i);
	return 0;
}

/* N of an .mMnNkK shape (the digits after 'n'). */
static int
shape_n(const char *p, int len)
{
	const char *n = memchr(p, 'n', (size_t)len);
	return n ? digits_of(n, len - (int)(n - p)) : 0;
}

/* Records the tagged groups' values into inst. */
static void
take_tags(const Group *g, int ng, const Match *m, PtxInst *in)
{
	for (int i = 0; i < ng; i++) {
		if (!g[i].tag || !m->chosen[i])
			continue;
		const char *p = m->chosen[i] + 1; /* skip '.' */
		int l = m->chosen_len[i] - 1;
		switch (g[i].tag) {
		case 't': in->type = type_named(p, l); break;
		case 'u': in->type2 = type_named(p, l); break;
		case 'v': in->vec = digits_of(p, l); break;
		case 'n': in->num = digits_of(p, l); break;
		case 'w': in->num = shape_n(p, l); break;
		case 's': in->space = space_named(p, l); break;
		}
	}
}

/* Whether the qualifier q (e.g. ".L2::cache_hint") is in quals. */
static bool
quals_have(const char *quals, const char *q, int len)
{
	for (const char *p = quals; *p; p++) {
		if (*p != '.')
			continue;
		if (strncmp(p, q, (size_t)len) == 0 &&
		    (p[len] == 0 || p[len] == '.'))
			return true;
	}
	return false;
}

static const char *const mnem_texts[PTXMN_COUNT] = {
	[PTXMN_NONE] = "",
#define MNEM(id, text) [PTXMN_##id] = text,
#include "ptx/mnemonics.def"
#undef MNEM
};

const char *
ptx_mnem_text(PtxMnem m)
{
	PT_ASSERT(m >= 0 && m < PTXMN_COUNT);
	return mnem_texts[m];
}

PtxMnem
ptx_mnem_named(const char *text, size_t len)
{
	for (int m = 1; m < PTXMN_COUNT; m++)
		if (strlen(mnem_texts[m]) == len &&
		    memcmp(mnem_texts[m], text, len) == 0)
			return (PtxMnem)m;
	return PTXMN_NONE;
}

PtxMnem
ptx_mnem_prefix(const char *spelling)
{
	PtxMnem best = PTXMN_NONE;
	size_t blen = 0;
	for (int m = 1; m < PTXMN_COUNT; m++) {
		size_t n = strlen(mnem_texts[m]);
		if (n > blen && strncmp(spelling, mnem_texts[m], n) == 0 &&
		    (spelling[n] == '.' || spelling[n] == 0)) {
			best = (PtxMnem)m;
			blen = n;
		}
	}
	return best;
}

static const char *const qual_texts[] = {
#define QUAL(id, text) text,
#include "ptx/quals.def"
#undef QUAL
};

const char *
ptx_qual_text(PtxQual q)
{
	PT_ASSERT(q >= 0 && q < PQ_COUNT);
	return qual_texts[q];
}

bool
ptx_has(const PtxInst *in, PtxQual q)
{
	PT_ASSERT(q >= 0 && q < PQ_COUNT);
	return (in->quals[q / 64] >> (q % 64)) & 1;
}

/* The qualifier set of a matched spelling: each named qualifier at a
 * '.' boundary of the qualifier text (the rule the spelling parser
 * uses for one qualifier: followed by the end or the next '.'). */
static void
take_quals(const char *quals, PtxInst *in)
{
	for (int q = 0; q < PQ_COUNT; q++)
		if (quals_have(quals, qual_texts[q], (int)strlen(qual_texts[q])))
			in->quals[q / 64] |= 1ull << (q % 64);
}

/* The dot-parts of the qualifier text naming a type (in order, at most
 * four) or a state space (the last one), read once like the named
 * qualifiers: a later stage never splits the spelling. */
static void
take_parts(const char *quals, PtxInst *in)
{
	for (const char *p = quals; *p == '.';) {
		const char *s = p + 1;
		int len = (int)strcspn(s, ".");
		PtxType t = type_named(s, len);
		PtxSpace sp = space_named(s, len);
		if (t != PTY_NONE && in->ntypes < (int)countof(in->types))
			in->types[in->ntypes++] = t;
		if (sp != PSP_GENERIC)
			in->spelled_space = sp;
		p = s + len;
	}
}

/* Reads digits at *pp into *v; false when there are none. */
static bool
take_number(const char **pp, int *v)
{
	const char *p = *pp;
	if (*p < '0' || *p > '9')
		return false;
	*v = (int)strtol(p, (char **)pp, 10);
	return true;
}

/* The shape qualifier .mMnN or .mMnNkK, read once into shape_m/n/k. */
static void
take_shape(const char *quals, PtxInst *in)
{
	for (const char *p = quals; *p; p++) {
		if (p[0] != '.' || p[1] != 'm')
			continue;
		const char *q = p + 2;
		int m, n, k = 0;
		if (!take_number(&q, &m) || *q++ != 'n' || !take_number(&q, &n))
			continue;
		if (*q == 'k' && (q++, !take_number(&q, &k)))
			continue;
		if (*q && *q != '.')
			continue;
		in->shape_m = m;
		in->shape_n = n;
		in->shape_k = k;
		return;
	}
}

static PtxType
op_type(const char **pp, const PtxInst *in)
{
	const char *p = *pp;
	if (*p == '$') {
		*pp = p + 2;
		return p[1] == 'u' ? in->type2 : in->type;
	}
	const char *s = p;
	while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))
		p++;
	*pp = p;
	PtxType t = type_named(s, (int)(p - s));
	PT_ASSERT(t != PTY_NONE);
	return t;
}

static int
op_count(const char **pp, const PtxInst *in)
{
	const char *p = *pp;
	int n;
	if (*p == '$') {
		n = p[1] == 'v' ? in->vec : in->num;
		if (n == 0)
			n = 1;
		p += 2;
	} else {
		n = (int)strtol(p, (char **)&p, 10);
	}
	while (*p == '+' || *p == '-' || *p == '*' || *p == '/') {
		char o = *p++;
		int k = (int)strtol(p, (char **)&p, 10);
		n = o == '+' ? n + k : o == '-' ? n - k : o == '*' ? n * k : n / k;
	}
	*pp = p;
	return n;
}

/* Parses one operand spec at *pp into op; false when its @condition
 * leaves it out of this spelling. */
static bool
op_parse(const char **pp, const PtxInst *in, const char *quals, PtxOperand *op)
{
	const char *p = *pp;
	bool present = true;
	memset(op, 0, sizeof *op);
	if (*p == '>') {
		op->out = true;
		p++;
	}
	char k = *p++;
	if (k == 'r' && *p == 'i') {
		op->imm_ok = true;
		p++;
	}
	switch (k) {
	case 'r': op->kind = PTXOP_REG; break;
	case 'p': op->kind = PTXOP_PRED; op->type = PTY_PRED; break;
	case 'g': case 'v': op->kind = PTXOP_VEC; break;
	case 'a': op->kind = PTXOP_ADDR; break;
	case 't': op->kind = PTXOP_TENSOR; break;
	case 'e': op->kind = PTXOP_PAIR; op->type = PTY_B32; break;
	case 'i': op->kind = PTXOP_IMM; break;
	case 'l':
		op->kind = PTXOP_LABEL;
		break;
	case 'c': /* (p0, p1): a call's .params, never a script value */
		op->kind = PTXOP_PARAMS;
		op->callp = true;
		break;
	case '_': /* written, never filled by an argument */
		op->kind = PTXOP_SINK;
		op->out = op->optional = true;
		break;
	case '=': /* "=0": a constant the form always has */
	case '%': { /* "%clock64": a special register read, never an argument */
		const char *s = k == '=' ? p : p - 1;
		while (*p && *p != ',')
			p++;
		op->kind = PTXOP_SINK;
		op->optional = true;
		op->word = s; /* into the row text, up to ',' */
		break;
	}
	default: PT_ASSERT(!"bad operand kind");
	}
	if (*p == ':') {
		p++;
		if (op->kind == PTXOP_ADDR) {
			if (*p == '$') {
				op->space = in->space;
				p += 2;
			} else {
				const char *s = p;
				while (*p && !strchr(",@?^&", *p))
					p++;
				op->space = space_named(s, (int)(p - s));
			}
		} else if (op->kind == PTXOP_IMM) {
			PT_ASSERT(*p == '{');
			op->imm = p;
			p = strchr(p, '}') + 1;
		} else {
			op->type = op_type(&p, in);
			if (*p == '{') { /* "ri:u32{0..1}": allowed values */
				op->imm = p;
				p = strchr(p, '}') + 1;
			}
		}
	}
	if (*p == '*') {
		p++;
		op->vec = op_count(&p, in);
		if (k == 'g' && op->vec == 1)
			op->kind = PTXOP_REG;
	}
	if (*p == '@') {
		bool neg = *++p == '!';
		if (neg)
			p++;
		const char *s = p;
		while (*p && *p != ',' && *p != '?')
			p++;
		present = quals_have(quals, s, (int)(p - s)) != neg;
	}
	if (*p == '^') {
		op->reg_addr = true;
		p++;
	}
	if (*p == '&') {
		op->callp = true;
		p++;
	}
	if (*p == '?') {
		op->optional = true;
		p++;
	}
	PT_ASSERT(*p == ',' || *p == 0);
	if (*p == ',')
		p++;
	*pp = p;
	return present;
}

static void
resolve_ops(const PtxForm *f, const char *quals, PtxInst *in)
{
	const char *p = f->ops;
	in->nops = 0;
	while (*p) {
		PtxOperand op;
		if (op_parse(&p, in, quals, &op)) {
			PT_ASSERT(in->nops < PTX_MAX_OPS);
			in->ops[in->nops++] = op;
		}
	}
}

bool
ptx_form_match(int i, const char *quals, PtxInst *in)
{
	const PtxForm *f = ptx_form(i);
	Group g[MAX_GROUPS];
	Match m;
	int ng = tpl_groups(f->tpl, g);
	memset(&m, 0, sizeof m);
	if (!match_from(g, ng, 0, quals, &m))
		return false;
	memset(in, 0, sizeof *in);
	in->family = f->family;
	in->mnemonic = f->mnemonic;
	in->mnem = ptx_mnem_named(f->mnemonic, strlen(f->mnemonic));
	in->form = i;
	in->min_ptx = f->min_ptx;
	in->gate = f->gate;
	take_tags(g, ng, &m, in);
	take_quals(quals, in);
	take_shape(quals, in);
	take_parts(quals, in);
	resolve_ops(f, quals, in);
	return true;
}

uint64_t
ptx_rng_next(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

void
ptx_form_sample(int i, uint64_t *rng, char *buf, size_t n)
{
	const PtxForm *f = ptx_form(i);
	Group g[MAX_GROUPS];
	int ng = tpl_groups(f->tpl, g);
	size_t at = (size_t)snprintf(buf, n, "%s", f->mnemonic);
	for (int k = 0; k < ng && at < n; k++) {
		int nalt = 1;
		for (int j = 0; j < g[k].len; j++)
			nalt += g[k].alts[j] == ',';
		int pick = (int)(ptx_rng_next(rng) % (uint64_t)(nalt + g[k].optional));
		if (pick == nalt)
			continue; /* optional group left out */
		const char *p = g[k].alts, *end = p + g[k].len;
		for (; pick > 0; pick--)
			p += alt_len(p, end) + 1;
		at += (size_t)snprintf(buf + at, n - at, "%.*s",
				       alt_len(p, end), p);
	}
}

void
ptx_form_each_alt(int i, void (*fn)(void *ud, const char *alt, int len),
		  void *ud)
{
	Group g[MAX_GROUPS];
	int ng = tpl_groups(ptx_form(i)->tpl, g);
	for (int k = 0; k < ng; k++) {
		const char *p = g[k].alts, *end = p + g[k].len;
		while (p < end) {
			int l = alt_len(p, end);
			fn(ud, p, l);
			p += l + 1;
		}
	}
}
