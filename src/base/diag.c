/*
 * diag.c - the context, diagnostics and their rendering.
 *
 * Diagnostics accumulate on the context; each phase runs only when the
 * previous one left no error.  Line and column are computed only when a
 * diagnostic is shown, from a lazily built table of line starts.
 */
#include <stdio.h>
#include <string.h>

#include "base/base.h"

static const struct {
	int code;
	const char *name; /* the id in its codes .def: "RT_ARG_DTYPE" */
	const char *summary;
} code_table[] = {
#define DIAG(num, id, summary) {num, #id, summary},
#include "ptxtile/codes.def"
#undef DIAG
};

const char *
pt_code_summary(int code)
{
	for (size_t i = 0; i < countof(code_table); i++)
		if (code_table[i].code == code)
			return code_table[i].summary;
	return NULL;
}

const char *
pt_code_name(int code, char buf[8])
{
	if (!pt_code_summary(code))
		return NULL;
	snprintf(buf, 8, "E%04d", code % 10000);
	return buf;
}

int
pt_code_number(const char *name)
{
	if (!name)
		return 0;
	for (size_t i = 0; i < countof(code_table); i++)
		if (strcmp(code_table[i].name, name) == 0)
			return code_table[i].code;
	return 0;
}

int
pt_abi_version(void)
{
	return PT_ABI_VERSION;
}

/* Renders a code as E0001 (zero padded to four digits). */
static void
code_text(int code, char out[16])
{
	snprintf(out, 16, "E%04d", code);
}

pt_ctx *
pt_ctx_new(const pt_allocator *alloc)
{
	pt_allocator al = {0};
	Arena tmp;
	arena_init(&tmp, alloc);
	al = tmp.alloc;
	Ctx *c = al.realloc(al.ud, NULL, sizeof(Ctx));
	if (!c)
		return NULL;
	memset(c, 0, sizeof(*c));
	c->alloc = al;
	arena_init(&c->arena, &al);
	c->target = TARGET_DEFAULT;
	for (int i = 0; i < PT_BUDGET_COUNT; i++)
		pt_set_budget(c, (pt_budget)i, 0);
	return c;
}

int
pt_set_budget(pt_ctx *c, pt_budget which, size_t limit)
{
	static const size_t dflt[PT_BUDGET_COUNT] = {
		PT_BUDGET_INPUT_BYTES_DEFAULT, PT_BUDGET_STATEMENTS_DEFAULT,
		PT_BUDGET_PTX_BYTES_DEFAULT, PT_BUDGET_ARENA_BYTES_DEFAULT};
	if ((unsigned)which >= PT_BUDGET_COUNT)
		return PT_E_USAGE;
	c->budget[which] = limit ? limit : dflt[which];
	if (which == PT_BUDGET_ARENA_BYTES)
		c->arena.limit = c->budget[which];
	return PT_OK;
}

size_t
pt_get_budget(const pt_ctx *c, pt_budget which)
{
	return (unsigned)which < PT_BUDGET_COUNT ? c->budget[which] : 0;
}

void
pt_ctx_free(pt_ctx *c)
{
	if (!c)
		return;
	ctx_free_constants(c);
	arena_free(&c->arena);
	c->alloc.realloc(c->alloc.ud, c, 0);
}

void
ctx_reset(Ctx *c)
{
	Target t = c->target;
	bool lineinfo = c->lineinfo;
	size_t fail_after = c->arena.fail_after;
	size_t budget[PT_BUDGET_COUNT];
	memcpy(budget, c->budget, sizeof(budget));
	ConstOverride *consts = c->consts;
	arena_free(&c->arena);
	pt_allocator al = c->alloc;
	memset(c, 0, sizeof(*c));
	c->alloc = al;
	arena_init(&c->arena, &al);
	c->arena.fail_after = fail_after;
	c->target = t;
	memcpy(c->budget, budget, sizeof(budget));
	c->arena.limit = budget[PT_BUDGET_ARENA_BYTES];
	c->lineinfo = lineinfo;
	c->consts = consts;
}

uint32_t
ctx_add_source(Ctx *c, const char *name, const char *text, size_t len)
{
	SourceFile f = {0};
	f.name = arena_strdup(&c->arena, name ? name : "<input>");
	f.text = arena_strndup(&c->arena, text, len);
	f.len = len;
	vec_push(&c->arena, &c->files, f);
	return (uint32_t)c->files.n;
}

const SourceFile *
ctx_file(const Ctx *c, uint32_t id)
{
	if (id == 0 || id > c->files.n)
		return NULL;
	return &c->files.v[id - 1];
}

static void
build_lines(Ctx *c, SourceFile *f)
{
	size_t n = 1;
	for (size_t i = 0; i < f->len; i++)
		n += f->text[i] == '\n';
	f->line_starts = NEWN(&c->arena, uint32_t, n);
	size_t k = 0;
	f->line_starts[k++] = 0;
	for (size_t i = 0; i < f->len; i++)
		if (f->text[i] == '\n')
			f->line_starts[k++] = (uint32_t)(i + 1);
	f->nlines = n;
}

void
ctx_line_col(Ctx *c, uint32_t id, uint32_t off, int *line, int *col)
{
	*line = *col = 0;
	if (id == 0 || id > c->files.n)
		return;
	SourceFile *f = &c->files.v[id - 1];
	if (!f->line_starts)
		build_lines(c, f);
	size_t lo = 0, hi = f->nlines;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (f->line_starts[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	*line = (int)lo + 1;
	*col = (int)(off - f->line_starts[lo]) + 1;
}

static Diag *
new_diag(Ctx *c, int code, Severity sev, Span sp, const char *fmt,
	 va_list ap)
{
	Diag *d = NEW(&c->arena, Diag);
	d->code = code;
	d->sev = sev;
	d->span = sp;
	d->msg = arena_vprintf(&c->arena, fmt, ap);
	return d;
}

bool
diag_verror(Ctx *c, int code, Span sp, const char *fmt, va_list ap)
{
	c->nerrors++;
	if (c->nerrors > PT_MAX_ERRORS)
		return false;
	Diag *d = new_diag(c, code, SEV_ERROR, sp, fmt, ap);
	if (c->diags_tail)
		c->diags_tail->next = d;
	else
		c->diags = d;
	c->diags_tail = d;
	return false;
}

bool
diag_error(Ctx *c, int code, Span sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(c, code, sp, fmt, ap);
	va_end(ap);
	return false;
}

void
diag_warning(Ctx *c, int code, Span sp, const char *fmt, ...)
{
	if (c->nerrors > PT_MAX_ERRORS)
		return;
	va_list ap;
	va_start(ap, fmt);
	Diag *d = new_diag(c, code, SEV_WARNING, sp, fmt, ap);
	va_end(ap);
	if (c->diags_tail)
		c->diags_tail->next = d;
	else
		c->diags = d;
	c->diags_tail = d;
}

void
diag_note(Ctx *c, Span sp, const char *fmt, ...)
{
	if (!c->diags_tail || c->nerrors > PT_MAX_ERRORS)
		return;
	va_list ap;
	va_start(ap, fmt);
	Diag *n = new_diag(c, 0, SEV_NOTE, sp, fmt, ap);
	va_end(ap);
	Diag **p = &c->diags_tail->notes;
	while (*p)
		p = &(*p)->next;
	*p = n;
}

bool
ctx_has_errors(const Ctx *c)
{
	return c->nerrors > 0;
}

int
ctx_fail(Ctx *c, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	c->errmsg = arena_vprintf(&c->arena, fmt, ap);
	va_end(ap);
	c->status = status;
	return status;
}

const char *
pt_ctx_errmsg(const pt_ctx *c)
{
	return c->errmsg ? c->errmsg : "";
}

static const Diag *
diag_at(const Ctx *c, size_t i)
{
	const Diag *d = c->diags;
	while (d && i--)
		d = d->next;
	return d;
}

size_t
pt_diag_count(const pt_ctx *c)
{
	size_t n = 0;
	for (const Diag *d = c->diags; d; d = d->next)
		n++;
	return n;
}

int
pt_diag_code(const pt_ctx *c, size_t i)
{
	const Diag *d = diag_at(c, i);
	return d ? d->code : 0;
}

const char *
pt_diag_message(const pt_ctx *c, size_t i)
{
	const Diag *d = diag_at(c, i);
	return d ? d->msg : NULL;
}

void
pt_diag_position(const pt_ctx *c, size_t i, int *line, int *col)
{
	const Diag *d = diag_at(c, i);
	*line = *col = 0;
	if (d)
		ctx_line_col((Ctx *)c, d->span.file, d->span.lo, line, col);
}

/* Control bytes (ESC, OSC, BEL, CR, ...) from the input would drive the
 * reader's terminal: they are shown as \xNN.  Tabs stay when keep_tab. */
static bool
is_control(unsigned char ch, bool keep_tab)
{
	return (ch < 0x20 && !(keep_tab && ch == '\t')) || ch == 0x7f;
}

static void
put_escaped(StrBuf *b, const char *s, size_t n, bool keep_tab)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (is_control(ch, keep_tab))
			sb_printf(b, "\\x%02x", ch);
		else
			sb_putc(b, (char)ch);
	}
}

static void
puts_escaped(StrBuf *b, const char *s)
{
	put_escaped(b, s, strlen(s), false);
}

/* s on f with control bytes as \xNN, as diagnostics show file names:
 * for the CLI's own messages about paths and arguments. */
void
fputs_escaped(const char *s, FILE *f)
{
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (is_control(ch, false))
			fprintf(f, "\\x%02x", ch);
		else
			fputc(ch, f);
	}
}

/* Longest excerpt shown; a longer line is clipped around the caret. */
enum { EXCERPT_MAX = 160, EXCERPT_BEFORE = 60 };

/* Source line containing the span, and a caret under it. */
static void
render_excerpt(Ctx *c, StrBuf *b, Span sp)
{
	const SourceFile *f = ctx_file(c, sp.file);
	if (!f || sp.lo > f->len)
		return;
	int line, col;
	ctx_line_col(c, sp.file, sp.lo, &line, &col);
	size_t start = sp.lo - (size_t)(col - 1);
	size_t end = start;
	while (end < f->len && f->text[end] != '\n')
		end++;
	size_t ws = start, we = end;
	if (end - start > EXCERPT_MAX) {
		if (sp.lo - start > EXCERPT_BEFORE)
			ws = sp.lo - EXCERPT_BEFORE;
		we = end - ws > EXCERPT_MAX ? ws + EXCERPT_MAX : end;
	}
	sb_puts(b, "    ");
	if (ws > start)
		sb_puts(b, "...");
	put_escaped(b, f->text + ws, we - ws, true);
	if (we < end)
		sb_puts(b, "...");
	sb_puts(b, "\n    ");
	if (ws > start)
		sb_puts(b, "   ");
	for (size_t i = ws; i < sp.lo && i < we; i++) {
		unsigned char ch = (unsigned char)f->text[i];
		sb_puts(b, ch == '\t' ? "\t" : is_control(ch, true) ? "    "
								   : " ");
	}
	size_t width = sp.hi > sp.lo ? sp.hi - sp.lo : 1;
	if (sp.lo + width > we)
		width = we > sp.lo ? we - sp.lo : 1;
	sb_putc(b, '^');
	for (size_t i = 1; i < width; i++)
		sb_putc(b, '~');
	sb_putc(b, '\n');
}

static void
render_one(Ctx *c, StrBuf *b, const Diag *d, pt_diag_style style)
{
	int line = 0, col = 0;
	char code[16];
	ctx_line_col(c, d->span.file, d->span.lo, &line, &col);
	code_text(d->code, code);
	if (style == PT_DIAG_SHORT) {
		sb_printf(b, "%s %d:%d\n", code, line, col);
		return;
	}
	const SourceFile *f = ctx_file(c, d->span.file);
	if (f) {
		puts_escaped(b, f->name);
		sb_printf(b, ":%d:%d: ", line, col);
	}
	sb_printf(b, "%s[%s]: ", d->sev == SEV_WARNING ? "warning" : "error",
		  code);
	puts_escaped(b, d->msg);
	sb_putc(b, '\n');
	render_excerpt(c, b, d->span);
	for (const Diag *n = d->notes; n; n = n->next) {
		const SourceFile *nf = ctx_file(c, n->span.file);
		if (nf) {
			ctx_line_col(c, n->span.file, n->span.lo, &line, &col);
			puts_escaped(b, nf->name);
			sb_printf(b, ":%d:%d: ", line, col);
		}
		sb_puts(b, "note: ");
		puts_escaped(b, n->msg);
		sb_putc(b, '\n');
	}
}

const char *
pt_diag_render(pt_ctx *c, pt_diag_style style)
{
	StrBuf b;
	sb_init(&b, &c->arena);
	for (const Diag *d = c->diags; d; d = d->next)
		render_one(c, &b, d, style);
	if (c->nerrors > PT_MAX_ERRORS && style == PT_DIAG_FULL)
		sb_printf(&b, "%zu more errors not shown\n",
			  c->nerrors - PT_MAX_ERRORS);
	return sb_cstr(&b);
}
