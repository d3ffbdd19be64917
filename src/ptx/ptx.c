/*
 * ptx.c - spelling parser, operand checks, target gating, PTX version
 * choice, T.ptx chain conversion and generic operand printing.
 *
 * Input: spellings and operand lists from tile and raw T.ptx calls.
 * Output: validated PtxInst values or PT_E_PTX_* diagnostics.
 * Invariant: a PtxInst exists only for a spelling some table row accepts.
 */
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx.h"

static const struct {
	const char *name;
	int bits;
} types[] = {
#define PTYPE(id, name, bits, bytes, cls) [PTY_##id] = {name, bits},
#include "ptx/types.def"
#undef PTYPE
};

static const struct {
	const char *name;
	int bits;
} spaces[] = {
#define PSPACE(id, name, bits) [PSP_##id] = {name, bits},
#include "ptx/spaces.def"
#undef PSPACE
};

static const struct {
	const char *name;
} families[] = {
#define PFAM(id, name, contract) [PTXF_##id] = {name},
#include "ptx/families.def"
#undef PFAM
};

static const struct {
	const char *min_target;
	int sm;
	bool specific;
	unsigned mask;
} gates[] = {
#define GATE(id, name, sm, spec, mask) [PTXG_##id] = {name, sm, spec, mask},
#include "ptx/gates.def"
#undef GATE
};

static const PtxSregRow sregs[] = {
#define SREG(id, name, min_ptx, gate) [PTXR_##id] = {name, min_ptx, PTXG_##gate},
#include "ptx/sregs.def"
#undef SREG
};

const PtxSregRow *
ptx_sreg(PtxSreg r)
{
	return &sregs[r];
}

static const PtxDirectiveRow directives[] = {
#define DIRECTIVE(id, name, min_ptx, gate)                                 \
	[PTXD_##id] = {name, min_ptx, PTXG_##gate},
#include "ptx/directives.def"
#undef DIRECTIVE
};

const PtxDirectiveRow *
ptx_directive(PtxDirective d)
{
	return &directives[d];
}

const char *
ptx_type_name(PtxType t)
{
	return types[t].name;
}

int
ptx_type_bits(PtxType t)
{
	return types[t].bits;
}

const char *
ptx_space_name(PtxSpace s)
{
	return spaces[s].name;
}

int
ptx_space_addr_bits(PtxSpace s)
{
	return spaces[s].bits;
}

const char *
ptx_family_name(PtxFamily f)
{
	return families[f].name;
}

bool
ptx_gate_allows(PtxGate g, Target t)
{
	return (gates[g].mask >> t) & 1u;
}

const char *
ptx_gate_min_target(PtxGate g)
{
	return gates[g].min_target;
}

/* ---- spelling parser ---- */

static bool
is_word_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_' || ch == ':';
}

const char *
ptx_spelling_bad_char(const char *s)
{
	for (; *s; s++)
		if (*s != '.' && !is_word_char(*s))
			return s;
	return NULL;
}

/* A spelling is letters, digits, '_' and ':' in non-empty '.'-separated
 * parts, starting with a letter. */
static bool
spelling_is_clean(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')) ||
	    ptx_spelling_bad_char(s))
		return false;
	for (const char *p = s; *p; p++)
		if (*p == '.' && (p[1] == 0 || p[1] == '.'))
			return false;
	return true;
}

static size_t
mnemonic_prefix(const char *s, const char *mn)
{
	if (s[0] != mn[0]) /* most rows: rejected without strlen */
		return 0;
	size_t l = strlen(mn);
	if (strncmp(s, mn, l) == 0 && (s[l] == 0 || s[l] == '.'))
		return l;
	return 0;
}

typedef struct TokenSeen {
	const char *tok;
	int len;
	bool found;
} TokenSeen;

/* Callback of ptx_form_each_alt: marks the token when an alternative
 * contains it as one of its '.'-parts. */
static void
alt_has_token(void *ud, const char *alt, int len)
{
	TokenSeen *ts = ud;
	for (int i = 0; i < len;) {
		int j = i + 1;
		while (j < len && alt[j] != '.')
			j++;
		if (j - i == ts->len && strncmp(alt + i, ts->tok, (size_t)ts->len) == 0)
			ts->found = true;
		i = j;
	}
}

static bool
token_known(const char *mn, const char *tok, int len)
{
	TokenSeen ts = {tok, len, false};
	for (int i = 0; i < ptx_form_count() && !ts.found; i++)
		if (strcmp(ptx_form(i)->mnemonic, mn) == 0)
			ptx_form_each_alt(i, alt_has_token, &ts);
	return ts.found;
}

/* A register type's qualifier: repeating one is no duplicate (cvt.u32.u32).
 * The MMA byte formats (.e4m3, .e5m2) are left out, so a repeated one
 * is reported as before they were types. */
static bool
is_type_token(const char *tok, int len)
{
	for (int t = 1; t < PTY_COUNT; t++) {
		if (t == PTY_E4M3 || t == PTY_E5M2)
			continue;
		if ((int)strlen(types[t].name) == len - 1 &&
		    strncmp(types[t].name, tok + 1, (size_t)len - 1) == 0)
			return true;
	}
	return false;
}

/* The distinct qualifier tokens (".global") of mnemonic mn's rows. */
typedef struct TokenList {
	Arena *a;
	VEC(const char *) v;
} TokenList;

static void
collect_tokens(void *ud, const char *alt, int len)
{
	TokenList *tl = ud;
	for (int i = 0; i < len;) {
		int j = i + 1;
		while (j < len && alt[j] != '.')
			j++;
		bool seen = false;
		for (size_t k = 0; k < tl->v.n && !seen; k++)
			seen = (int)strlen(tl->v.v[k]) == j - i &&
			       !strncmp(tl->v.v[k], alt + i, (size_t)(j - i));
		if (!seen && j > i + 1)
			vec_push(tl->a, &tl->v,
				 arena_strndup(tl->a, alt + i, (size_t)(j - i)));
		i = j;
	}
}

/* False for a row of printf's call sequence (family CALL,
 * forms_call.def): its operands name a call block's .params, which no
 * script call fills, so a hint never offers such a row's qualifiers. */
static bool
row_for_scripts(int i)
{
	return ptx_form(i)->family != PTXF_CALL;
}

/* "; did you mean `.global`? (`ld` takes .global .shared ...)" */
static const char *
qualifier_hint(Ctx *c, const char *mn, const char *tok, int len)
{
	TokenList tl = {&c->arena, {0}};
	for (int i = 0; i < ptx_form_count(); i++)
		if (strcmp(ptx_form(i)->mnemonic, mn) == 0 &&
		    row_for_scripts(i))
			ptx_form_each_alt(i, collect_tokens, &tl);
	StrBuf b;
	sb_init(&b, &c->arena);
	const char *near = suggest_name(arena_strndup(&c->arena, tok,
						      (size_t)len),
					tl.v.v, tl.v.n);
	if (near)
		sb_printf(&b, "; did you mean `%s`?", near);
	sb_printf(&b, " (`%s` takes", mn);
	for (size_t k = 0; k < tl.v.n && k < 48; k++)
		sb_printf(&b, " %s", tl.v.v[k]);
	sb_puts(&b, tl.v.n > 48 ? " ...)" : ")");
	return sb_cstr(&b);
}

/* "; did you mean `ld`?" for an unknown mnemonic. */
static const char *
mnemonic_hint(Ctx *c, const char *mn)
{
	VEC(const char *) names = {0};
	for (int i = 0; i < ptx_form_count(); i++) {
		const char *m = ptx_form(i)->mnemonic;
		if (!names.n || strcmp(names.v[names.n - 1], m) != 0)
			vec_push(&c->arena, &names, m);
	}
	const char *near = suggest_name(mn, names.v, names.n);
	return near ? arena_printf(&c->arena, "; did you mean `%s`?", near)
		    : "";
}

/* Explains why no row of mnemonic mn accepted quals. */
static bool
diagnose_quals(Ctx *c, const char *spelling, const char *mn,
	       const char *quals, Span sp)
{
	const char *toks[64];
	int lens[64], n = 0;
	for (const char *p = quals; *p && n < 64;) {
		const char *q = p + 1;
		while (*q && *q != '.')
			q++;
		toks[n] = p;
		lens[n++] = (int)(q - p);
		p = q;
	}
	for (int i = 0; i < n; i++)
		if (!token_known(mn, toks[i], lens[i]))
			return diag_error(c, PT_E_PTX_BAD_QUALIFIER, sp,
					  "qualifier `%.*s` is not allowed for `%s` in `%s`%s",
					  lens[i], toks[i], mn, spelling,
					  qualifier_hint(c, mn, toks[i], lens[i]));
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (lens[i] == lens[j] &&
			    strncmp(toks[i], toks[j], (size_t)lens[i]) == 0 &&
			    !is_type_token(toks[i], lens[i]))
				return diag_error(c, PT_E_PTX_DUPLICATE_QUALIFIER, sp,
						  "qualifier `%.*s` appears twice in `%s`",
						  lens[i], toks[i], spelling);
	return diag_error(c, PT_E_PTX_QUALIFIER_COMBINATION, sp,
			  "`%s` is not a valid `%s` form (qualifiers missing, "
			  "misordered or not allowed together)", spelling, mn);
}

static void
fill_gate(PtxInst *in)
{
	in->min_sm = gates[in->gate].sm;
	in->needs_arch_specific = gates[in->gate].specific;
}

/* ---- the selector ---- */

/* One reading k of argument a for operand op; *imm_bad when it is an
 * immediate outside the operand's set. */
static bool
reading_fits(const PtxOperand *op, PtxOpKind k, const PtxArg *a,
	     bool *imm_bad)
{
	int bits = ptx_type_bits(op->type);
	switch (op->kind) {
	case PTXOP_REG:
		if (k == PTXOP_IMM) {
			if (op->imm_ok && a->has_value && !ptx_imm_ok(op, a->value))
				*imm_bad = true;
			return op->imm_ok;
		}
		return k == PTXOP_REG && (a->bits == 0 || a->bits == bits);
	case PTXOP_VEC:
		return k == PTXOP_VEC && a->vec == op->vec &&
		       (a->bits == 0 || a->bits == bits);
	case PTXOP_IMM:
		if (k != PTXOP_IMM)
			return false;
		if (a->has_value && !ptx_imm_ok(op, a->value))
			*imm_bad = true;
		return true;
	case PTXOP_TENSOR:
		return k == PTXOP_TENSOR && a->vec == op->vec;
	case PTXOP_PARAMS:
		return k == PTXOP_PARAMS && a->vec == op->vec;
	default:
		return k == op->kind;
	}
}

/* Whether argument a, in any of its readings, is operand op. */
static bool
arg_fits(const PtxOperand *op, const PtxArg *a, bool *imm_bad)
{
	/* a call block's .param may also be read as any .param (ld.param
	 * of a call's return), never the reverse */
	if (op->kind == PTXOP_SINK || (op->callp && !a->callp))
		return false;
	if (a->any)
		return true;
	if (reading_fits(op, a->kind, a, imm_bad))
		return true;
	for (int k = 0; k <= PTXOP_IMM; k++)
		if (((a->also >> k) & 1u) &&
		    reading_fits(op, (PtxOpKind)k, a, imm_bad))
			return true;
	return false;
}

/* Whether n arguments from a are each one register of type t (a
 * constant element is moved into a register). */
static bool
regs_fit(PtxType t, const PtxArg *a, int n)
{
	PtxOperand one = {.kind = PTXOP_REG, .type = t, .imm_ok = true};
	for (int i = 0; i < n; i++) {
		bool bad = false;
		if (a[i].any || a[i].one || !arg_fits(&one, &a[i], &bad))
			return false;
	}
	return true;
}

/* Whether a (not a stand-in) reads as a group of n s32 coordinates. */
static bool
coords_fit(const PtxArg *a, int n)
{
	PtxOperand c = {.kind = PTXOP_VEC, .type = PTY_S32, .vec = n};
	bool bad = false;
	return !a->any && !a->one && arg_fits(&c, a, &bad);
}

/* The ways operand op may take arguments from a (left of them): one
 * argument, or a group spread over arguments (a vector's registers one
 * by one; a tensor's map then its coordinates as one tuple or one by
 * one; a pair's register then its predicate).  Returns how many ways,
 * their argument counts in take[]. */
static int
operand_takes(const PtxOperand *op, const PtxArg *a, int left, int *take,
	      bool *imm_bad)
{
	int n = 0;
	if (left >= 1 && arg_fits(op, a, imm_bad))
		take[n++] = 1;
	switch (op->kind) {
	case PTXOP_VEC:
		if (left >= op->vec && regs_fit(op->type, a, op->vec))
			take[n++] = op->vec;
		break;
	case PTXOP_TENSOR:
		if (left < 2 || !regs_fit(PTY_B64, a, 1))
			break;
		if (coords_fit(&a[1], op->vec))
			take[n++] = 2;
		else if (left >= 1 + op->vec && regs_fit(PTY_S32, a + 1, op->vec))
			take[n++] = 1 + op->vec;
		break;
	case PTXOP_PAIR:
		if (left >= 2 && regs_fit(PTY_B32, a, 1) && !a[1].any &&
		    !a[1].one && (a[1].kind == PTXOP_PRED ||
				  (a[1].also >> PTXOP_PRED & 1u)))
			take[n++] = 2;
		break;
	default:
		break;
	}
	return n;
}

/* Assigns args[ai..] to in's operands oi.., leaving out optional ones
 * when the arguments do not fill them; take[oi] = arguments taken. */
static bool
fit_from(const PtxInst *in, int oi, const PtxArg *args, int nargs, int ai,
	 int *take, bool *imm_bad)
{
	if (oi == in->nops)
		return ai == nargs;
	const PtxOperand *op = &in->ops[oi];
	int ways[4];
	bool bad = false;
	int nw = operand_takes(op, args + ai, nargs - ai, ways, &bad);
	for (int w = 0; w < nw; w++) {
		take[oi] = ways[w];
		if (fit_from(in, oi + 1, args, nargs, ai + ways[w], take,
			     imm_bad)) {
			*imm_bad |= bad;
			return true;
		}
	}
	take[oi] = 0;
	return op->optional &&
	       fit_from(in, oi + 1, args, nargs, ai, take, imm_bad);
}

static void
count_range(const PtxInst *in, int *lo, int *hi)
{
	*lo = *hi = 0;
	for (int i = 0; i < in->nops; i++) {
		*hi += 1;
		*lo += !in->ops[i].optional;
	}
}

/* A row against the arguments: true (out->take filled) when they fit
 * it with in-range immediates; adds its operand counts to out. */
static bool
row_fits(const PtxInst *cand, const PtxArg *args, int nargs, PtxSel *out,
	 PtxMiss *why)
{
	int lo, hi;
	bool imm_bad = false;
	count_range(cand, &lo, &hi);
	for (int n = lo; n <= hi && n < 32; n++)
		out->counts |= 1u << n;
	if (!fit_from(cand, 0, args, nargs, 0, out->take, &imm_bad))
		return false;
	if (imm_bad) {
		*why = PTXM_IMMEDIATE;
		return false;
	}
	return true;
}

PtxMiss
ptx_select(const char *spelling, const PtxArg *args, int nargs, PtxSel *out)
{
	memset(out, 0, sizeof *out);
	out->inst.spelling = spelling;
	if (!spelling || !spelling_is_clean(spelling))
		return PTXM_JUNK;
	size_t bestlen = 0;
	PtxMiss why = PTXM_OPERAND_KIND;
	PtxInst cand;
	bool found = false;
	for (int i = 0; i < ptx_form_count(); i++) {
		const char *mn = ptx_form(i)->mnemonic;
		size_t l = mnemonic_prefix(spelling, mn);
		/* once a row accepts the spelling, only its mnemonic's rows */
		if (!l || (found && strcmp(mn, out->inst.mnemonic) != 0))
			continue;
		if (!ptx_form_match(i, spelling + l, &cand)) {
			if (!found && l > bestlen) {
				bestlen = l;
				out->inst.mnemonic = mn;
				out->inst.mnem = ptx_mnem_named(mn, l);
			}
			continue;
		}
		cand.spelling = spelling;
		fill_gate(&cand);
		if (!found) {
			found = true;
			out->inst = cand; /* reported on an operand miss */
			if (nargs < 0)
				return PTXM_OK;
		}
		if (row_fits(&cand, args, nargs, out, &why)) {
			out->inst = cand;
			return PTXM_OK;
		}
	}
	if (!found)
		return bestlen ? PTXM_QUALIFIERS : PTXM_MNEMONIC;
	if (why == PTXM_IMMEDIATE)
		return why;
	return nargs < 32 && !(out->counts >> nargs & 1u) ? PTXM_OPERAND_COUNT
							 : PTXM_OPERAND_KIND;
}

PtxMiss
ptx_bind(const PtxInst *row, const PtxArg *args, int nargs, int *take)
{
	PtxSel s = {0};
	PtxMiss why = PTXM_OPERAND_KIND;
	bool fits = row_fits(row, args, nargs, &s, &why);
	memcpy(take, s.take, sizeof s.take);
	if (fits)
		return PTXM_OK;
	return why == PTXM_IMMEDIATE || !(nargs >= 0 && nargs < 32 &&
					  !(s.counts >> nargs & 1u))
		       ? why
		       : PTXM_OPERAND_COUNT;
}

bool
ptx_select_report(Ctx *c, PtxMiss why, const PtxSel *s, int nargs, Span sp)
{
	const PtxInst *in = &s->inst;
	const char *sp_text = in->spelling ? in->spelling : "";
	int lo, hi;
	switch (why) {
	case PTXM_OK:
		return true;
	case PTXM_JUNK:
		return diag_error(c, PT_E_PTX_JUNK, sp,
				  "`%s` is not a PTX instruction spelling "
				  "(only a dotted qualifier chain is allowed)",
				  sp_text);
	case PTXM_MNEMONIC:
		lo = (int)strcspn(sp_text, ".");
		return diag_error(c, PT_E_PTX_UNKNOWN_MNEMONIC, sp,
				  "unknown PTX instruction `%.*s` in `%s`%s",
				  lo, sp_text, sp_text,
				  mnemonic_hint(c, arena_strndup(&c->arena,
								 sp_text,
								 (size_t)lo)));
	case PTXM_QUALIFIERS:
		return diagnose_quals(c, sp_text, in->mnemonic,
				      sp_text + strlen(in->mnemonic), sp);
	case PTXM_IMMEDIATE:
		return diag_error(c, PT_E_PTX_IMMEDIATE_RANGE, sp,
				  "an immediate operand of `%s` is outside the "
				  "allowed values (%s)", sp_text,
				  ptx_describe_operands(&c->arena, in));
	case PTXM_OPERAND_COUNT:
		count_range(in, &lo, &hi);
		return diag_error(c, PT_E_PTX_OPERAND_COUNT, sp,
				  "`%s` takes %d%s operands (%s), got %d",
				  sp_text, lo, hi > lo ? " or more" : "",
				  ptx_describe_operands(&c->arena, in), nargs);
	case PTXM_OPERAND_KIND:
		break;
	}
	return diag_error(c, PT_E_PTX_OPERAND_KIND, sp,
			  "operands of `%s` do not match its signature (%s)",
			  sp_text, ptx_describe_operands(&c->arena, in));
}

bool
ptx_parse(Ctx *c, const char *spelling, Span sp, PtxInst *out)
{
	PtxSel s;
	const char *keep = spelling ? arena_strdup(&c->arena, spelling) : NULL;
	PtxMiss why = ptx_select(keep, NULL, -1, &s);
	*out = s.inst;
	return ptx_select_report(c, why, &s, 0, sp);
}

/* ---- target gating and versions ---- */

bool
ptx_check_target(Ctx *c, const PtxInst *in, Span sp)
{
	if (ptx_gate_allows(in->gate, c->target))
		return true;
	Target t = c->target;
	if (!target_is_specific(t) && target_sm(t) >= gates[in->gate].sm)
		return diag_error(c, PT_E_PTX_TARGET_NOT_SPECIFIC, sp,
				  "`%s` needs an arch-specific target "
				  "(minimum %s), not %s", in->spelling,
				  gates[in->gate].min_target, target_name(t));
	StrBuf b;
	sb_init(&b, &c->arena);
	for (int i = 0; i < TGT_COUNT; i++)
		if (ptx_gate_allows(in->gate, (Target)i))
			sb_printf(&b, "%s%s", b.n ? ", " : "",
				  target_name((Target)i));
	return diag_error(c, PT_E_PTX_TARGET_TOO_OLD, sp,
			  "`%s` is not available on %s (minimum target %s; "
			  "supported: %s)", in->spelling, target_name(t),
			  gates[in->gate].min_target, sb_cstr(&b));
}

int
ptx_target_min_version(Target t)
{
	switch (t) {
	case TGT_SM_80: return 70;
	case TGT_SM_90: return 78;
	case TGT_SM_90A: return 80;
	case TGT_SM_100A: return 86;
	case TGT_SM_100F: return 88;
	case TGT_SM_103A: return 88;
	default: PT_ASSERT(!"unknown target");
	}
}

int
ptx_version_for(Target t, const PtxInst *const *insts, int n)
{
	int v = ptx_target_min_version(t);
	for (int i = 0; i < n; i++)
		if (insts[i]->min_ptx > v)
			v = insts[i]->min_ptx;
	return v;
}

/* ---- immediates ---- */

bool
ptx_imm_ok(const PtxOperand *op, long long v)
{
	if (!op->imm)
		return true;
	const char *p = op->imm + 1;
	while (*p && *p != '}') {
		long long lo = strtoll(p, (char **)&p, 10), hi = lo, step = 1;
		if (p[0] == '.' && p[1] == '.') {
			hi = strtoll(p + 2, (char **)&p, 10);
			if (*p == '/')
				step = strtoll(p + 1, (char **)&p, 10);
		}
		if (v >= lo && v <= hi && (v - lo) % step == 0)
			return true;
		if (*p == ',')
			p++;
	}
	return false;
}

/* ---- chains, qualifiers, printing ---- */

const char *
ptx_chain_to_spelling(Arena *a, const char *chain)
{
	if (!chain || !*chain)
		return NULL;
	StrBuf b;
	sb_init(&b, a);
	const char *p = chain;
	while (*p) {
		const char *e = strchr(p, '.');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n > 1 && p[n - 1] == '_')
			n--; /* `async_` -> `async` */
		if (n == 0)
			return NULL;
		for (size_t i = 0; i < n; i++) {
			if (p[i] == '_' && i + 1 < n && p[i + 1] == '_') {
				sb_puts(&b, "::");
				i++;
			} else {
				sb_putc(&b, p[i]);
			}
		}
		if (!e)
			break;
		sb_putc(&b, '.');
		p = e + 1;
		if (!*p)
			return NULL;
	}
	return sb_cstr(&b);
}

int
ptx_addr_space(const PtxInst *in)
{
	for (int i = 0; i < in->nops; i++)
		if (in->ops[i].kind == PTXOP_ADDR)
			return (int)in->ops[i].space;
	return (int)in->space;
}

int
ptx_operand_words(const PtxOperand *op)
{
	switch (op->kind) {
	case PTXOP_VEC: return op->vec;
	case PTXOP_PARAMS:
		return op->vec;
	case PTXOP_TENSOR: return 1 + op->vec;
	case PTXOP_PAIR: return 2;
	default: return 1;
	}
}

static void
emit_list(StrBuf *b, const char *brackets, const char *const *w, int n)
{
	sb_putc(b, brackets[0]);
	for (int i = 0; i < n; i++)
		sb_printf(b, "%s%s", i ? ", " : "", w[i]);
	sb_putc(b, brackets[1]);
}

void
ptx_emit(StrBuf *b, const PtxInst *in, const char *pred, const bool *present,
	 const char *const *w)
{
	if (pred)
		sb_printf(b, "@%s ", pred);
	sb_puts(b, in->spelling);
	bool first = true;
	for (int i = 0; i < in->nops; i++) {
		const PtxOperand *op = &in->ops[i];
		if (present && !present[i])
			continue;
		sb_puts(b, first ? " " : ", ");
		first = false;
		switch (op->kind) {
		case PTXOP_VEC:
			emit_list(b, "{}", w, op->vec);
			break;
		case PTXOP_PARAMS:
			emit_list(b, "()", w, op->vec);
			break;
		case PTXOP_ADDR: sb_printf(b, "[%s]", w[0]); break;
		case PTXOP_TENSOR:
			sb_printf(b, "[%s, ", w[0]);
			emit_list(b, "{}", w + 1, op->vec);
			sb_putc(b, ']');
			break;
		case PTXOP_PAIR: sb_printf(b, "%s|%s", w[0], w[1]); break;
		default: sb_puts(b, w[0]); break;
		}
		w += ptx_operand_words(op);
	}
	sb_putc(b, ';');
}

const char *
ptx_describe_operands(Arena *a, const PtxInst *in)
{
	StrBuf b;
	sb_init(&b, a);
	if (in->nops == 0)
		sb_puts(&b, "no operands");
	for (int i = 0; i < in->nops; i++) {
		const PtxOperand *op = &in->ops[i];
		sb_printf(&b, "%s%s ", i ? ", " : "", op->out ? "out" : "in");
		const char *ty = ptx_type_name(op->type);
		switch (op->kind) {
		case PTXOP_REG: sb_printf(&b, "%s%s", ty, op->imm_ok ? "|imm" : ""); break;
		case PTXOP_PRED: sb_puts(&b, "pred"); break;
		case PTXOP_VEC: sb_printf(&b, "{%s x%d}", ty, op->vec); break;
		case PTXOP_ADDR:
			if (op->callp)
				sb_puts(&b, "[.param of the call block]");
			else
				sb_printf(&b, "[%s]",
					  *ptx_space_name(op->space)
						  ? ptx_space_name(op->space)
						  : "addr");
			break;
		case PTXOP_PARAMS:
			sb_printf(&b, "(%s .param x%d of the call block)", ty,
				  op->vec);
			break;
		case PTXOP_TENSOR: sb_printf(&b, "[tensormap, {s32 x%d}]", op->vec); break;
		case PTXOP_PAIR: sb_puts(&b, "b32|pred"); break;
		case PTXOP_LABEL:
			sb_puts(&b, "label");
			break;
		case PTXOP_SINK:
			if (op->word)
				sb_printf(&b, "%.*s (takes no argument)",
					  (int)strcspn(op->word, ","), op->word);
			else
				sb_puts(&b, "_ (takes no argument)");
			continue;
		case PTXOP_IMM: /* op->imm points into the row text: "{4,8,16}..." */
			sb_puts(&b, "imm");
			if (op->imm)
				sb_putn(&b, op->imm, strcspn(op->imm, "}") +
					(op->imm[strcspn(op->imm, "}")] == '}'));
			break;
		}
		if (op->optional)
			sb_puts(&b, " (optional)");
	}
	return sb_cstr(&b);
}
