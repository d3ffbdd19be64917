/*
 * parse.c - tokens -> AST, by recursive descent over a Python subset.
 *
 * Input: the token array of lex.c.  Output: an A_MODULE tree (ast.h).
 * The parser stops at the first error: it reports one diagnostic, sets
 * `failed`, and from then on every token read is EOF so that all loops
 * end at once.  Nesting is bounded: blocks and expressions deeper than
 * AST_MAX_DEPTH are PT_E_PARSE_DEPTH, so later passes may recurse freely.
 * Python constructs outside the script language (lambda, comprehension,
 * class, with, try, dict, ...) are PT_E_PARSE_UNSUPPORTED naming the
 * construct.
 *
 * Grammar (Python's, reduced):
 *   module     := (NEWLINE | stmt)* EOF
 *   expression := exprlist [NEWLINE] EOF   (a constant override's value)
 *   stmt       := compound | simple (';' simple)* [';'] NEWLINE
 *   compound   := if | while | for | decorated | def
 *   block      := NEWLINE INDENT stmt+ DEDENT | simple-statements
 *   simple     := pass | break | continue | return [exprlist]
 *               | import | from-import | expr_stmt
 *   expr_stmt  := exprlist (':' test ['=' exprlist] | augop exprlist
 *                          | ['=' exprlist])
 *   test       := or ['if' or 'else' test] ; or := and ('or' and)*
 *   and        := not ('and' not)*
 *   not        := 'not' not | comparison
 *   comparison := bor [cmpop bor]
 *   bor/bxor/band/shift/arith/term: left-associative binary levels
 *   factor     := ('-'|'+'|'~') factor | primary
 *   primary    := atom ('.' NAME | '(' args ')' | '[' subscripts ']')*
 *   atom       := ... | (STRING | FSTRING)+   (an f-string's fields are tests)
 *   arg        := test | NAME '=' (test | lambda) | '*' test | lambda
 *   lambda     := 'lambda' NAME ':' test
 */
#include <string.h>

#include "script/ast.h"

#define MAX_BLOCK_DEPTH 100

typedef struct Parser {
	Ctx *c;
	Token *t;
	size_t n, i;
	Token eof;
	bool failed;
	int block_depth;
	int depth; /* recursion depth of the expression parser */
} Parser;

static Ast *parse_test(Parser *P);
static Ast *parse_factor_inner(Parser *P);
static Ast *parse_exprlist(Parser *P, bool allow_star);
static void parse_stmt(Parser *P, AstVec *out);

/* ---- token access ---- */

static Token *
cur(Parser *P)
{
	return P->failed ? &P->eof : &P->t[P->i];
}

static Token *
peek_at(Parser *P, size_t k)
{
	if (P->failed || P->i + k >= P->n)
		return &P->eof;
	return &P->t[P->i + k];
}

static bool
at(Parser *P, TokKind k)
{
	return cur(P)->kind == k;
}

static bool
at_kw(Parser *P, Keyword kw)
{
	return cur(P)->kind == TK_KW && cur(P)->kw == kw;
}

static Token *
advance(Parser *P)
{
	Token *t = cur(P);
	if (!P->failed && t->kind != TK_EOF)
		P->i++;
	return t;
}

static bool
error_at(Parser *P, int code, Span sp, const char *fmt, const char *arg)
{
	if (!P->failed)
		diag_error(P->c, code, sp, fmt, arg);
	P->failed = true;
	return false;
}

static const char *
tok_text(Token *t)
{
	if (t->kind == TK_NAME || t->kind == TK_KW)
		return t->str;
	return tok_kind_name(t->kind);
}

static bool
syntax_error(Parser *P, const char *expected)
{
	Token *t = cur(P);
	if (P->failed)
		return false;
	if (t->kind == TK_INDENT)
		return error_at(P, PT_E_LEX_INDENT, t->span,
				"unexpected indent%s", "");
	char *msg = arena_printf(&P->c->arena, "expected %s, found '%s'",
				 expected, tok_text(t));
	return error_at(P, PT_E_PARSE_SYNTAX, t->span, "%s", msg);
}

static bool
unsupported(Parser *P, Span sp, const char *what)
{
	return error_at(P, PT_E_PARSE_UNSUPPORTED, sp,
			"%s is not supported in the script language", what);
}

static bool
expect(Parser *P, TokKind k, const char *what)
{
	if (at(P, k)) {
		advance(P);
		return true;
	}
	return syntax_error(P, what);
}

static bool
expect_kw(Parser *P, Keyword k, const char *what)
{
	if (at_kw(P, k)) {
		advance(P);
		return true;
	}
	return syntax_error(P, what);
}

/* ---- nodes ---- */

static Ast *
node(Parser *P, AstKind k, Span sp)
{
	Ast *a = NEW(&P->c->arena, Ast);
	a->kind = k;
	a->span = sp;
	return a;
}

static int
max_depth(int d, const Ast *a)
{
	return a && a->depth > d ? a->depth : d;
}

/* Sets a's depth from its children; rejects trees that are too deep. */
static Ast *
seal(Parser *P, Ast *a)
{
	int d = 0;
	d = max_depth(d, a->a);
	d = max_depth(d, a->b);
	d = max_depth(d, a->c);
	for (size_t k = 0; k < a->list.n; k++)
		d = max_depth(d, a->list.v[k]);
	a->depth = d + 1;
	if (a->depth > AST_MAX_DEPTH) {
		error_at(P, PT_E_PARSE_DEPTH, a->span,
			 "expression nested too deeply%s", "");
		return NULL;
	}
	return a;
}

static Span
join(Span a, Span b)
{
	if (b.hi > a.hi)
		a.hi = b.hi;
	return a;
}

static Ast *
binary(Parser *P, AstKind k, int op, Ast *l, Ast *r)
{
	if (!l || !r)
		return NULL;
	Ast *a = node(P, k, join(l->span, r->span));
	a->op = op;
	a->a = l;
	a->b = r;
	return seal(P, a);
}

/* ---- atoms ---- */

/* Elements of a tuple/list display up to `close`; a comprehension or a
 * trailing-comma-less single parenthesised element is reported to the
 * caller via *is_tuple. */
static bool
parse_display(Parser *P, Ast *a, TokKind close, bool *is_tuple)
{
	*is_tuple = false;
	while (!at(P, close) && !P->failed) {
		Ast *e;
		if (at(P, TK_STAR)) {
			Token *st = advance(P);
			Ast *v = parse_test(P);
			if (!v)
				return false;
			e = node(P, A_STAR, join(st->span, v->span));
			e->a = v;
			*is_tuple = true;
		} else {
			e = parse_test(P);
		}
		if (!e)
			return false;
		if (at_kw(P, KW_FOR) || at_kw(P, KW_ASYNC))
			return unsupported(P, cur(P)->span, "a comprehension");
		vec_push(&P->c->arena, &a->list, e);
		if (!at(P, TK_COMMA))
			break;
		advance(P);
		*is_tuple = true;
	}
	return !P->failed;
}

static Ast *
parse_paren(Parser *P)
{
	Token *open = advance(P);
	Ast *a = node(P, A_TUPLE, open->span);
	bool is_tuple;
	if (!parse_display(P, a, TK_RPAREN, &is_tuple))
		return NULL;
	Token *close = cur(P);
	if (!expect(P, TK_RPAREN, "')'"))
		return NULL;
	if (a->list.n == 1 && !is_tuple)
		return a->list.v[0];
	a->span = join(open->span, close->span);
	return seal(P, a);
}

static Ast *
parse_list(Parser *P)
{
	Token *open = advance(P);
	Ast *a = node(P, A_LIST, open->span);
	bool is_tuple;
	if (!parse_display(P, a, TK_RBRACK, &is_tuple))
		return NULL;
	Token *close = cur(P);
	if (!expect(P, TK_RBRACK, "']'"))
		return NULL;
	a->span = join(open->span, close->span);
	return seal(P, a);
}

/* One f-string (at TK_FSTART) into the parts of f: its pieces as A_STR
 * and each field's expression. */
static bool
parse_fstring_parts(Parser *P, Ast *f)
{
	advance(P);
	while (!P->failed && !at(P, TK_FEND)) {
		Token *t = cur(P);
		if (t->kind == TK_STR) {
			advance(P);
			Ast *s = node(P, A_STR, t->span);
			s->str = t->str;
			vec_push(&P->c->arena, &f->list, seal(P, s));
			continue;
		}
		if (!expect(P, TK_LBRACE, "an f-string field"))
			return false;
		Ast *e = parse_test(P);
		if (!e || !expect(P, TK_RBRACE, "'}' closing the f-string field"))
			return false;
		vec_push(&P->c->arena, &f->list, e);
	}
	f->span = join(f->span, cur(P)->span);
	return expect(P, TK_FEND, "the end of the f-string");
}

/* Adjacent literals, some of them f-strings: an A_FSTRING of all their
 * parts (plain literals are pieces). */
static Ast *
parse_fstrings(Parser *P)
{
	Ast *f = node(P, A_FSTRING, cur(P)->span);
	while (!P->failed && (at(P, TK_STR) || at(P, TK_FSTART))) {
		if (at(P, TK_FSTART)) {
			if (!parse_fstring_parts(P, f))
				return NULL;
			continue;
		}
		Token *t = advance(P);
		Ast *s = node(P, A_STR, t->span);
		s->str = t->str;
		vec_push(&P->c->arena, &f->list, seal(P, s));
		f->span = join(f->span, t->span);
	}
	return seal(P, f);
}

static bool
fstring_follows(Parser *P)
{
	for (size_t k = 0; peek_at(P, k)->kind == TK_STR ||
			   peek_at(P, k)->kind == TK_FSTART; k++)
		if (peek_at(P, k)->kind == TK_FSTART)
			return true;
	return false;
}

static Ast *
parse_strings(Parser *P)
{
	if (fstring_follows(P))
		return parse_fstrings(P);
	Token *t = advance(P);
	Ast *a = node(P, A_STR, t->span);
	if (!at(P, TK_STR)) {
		a->str = t->str;
		return seal(P, a);
	}
	StrBuf b;
	sb_init(&b, &P->c->arena);
	sb_puts(&b, t->str);
	while (at(P, TK_STR)) {
		Token *n = advance(P);
		sb_puts(&b, n->str);
		a->span = join(a->span, n->span);
	}
	a->str = sb_cstr(&b);
	return seal(P, a);
}

static Ast *
parse_keyword_atom(Parser *P)
{
	Token *t = cur(P);
	switch (t->kw) {
	case KW_TRUE:
	case KW_FALSE: {
		advance(P);
		Ast *a = node(P, A_BOOL, t->span);
		a->ival = t->kw == KW_TRUE;
		return seal(P, a);
	}
	case KW_NONE:
		advance(P);
		return seal(P, node(P, A_NONE, t->span));
	case KW_LAMBDA:
		unsupported(P, t->span, "lambda");
		return NULL;
	case KW_AWAIT:
		unsupported(P, t->span, "await");
		return NULL;
	case KW_YIELD:
		unsupported(P, t->span, "yield");
		return NULL;
	default:
		syntax_error(P, "an expression");
		return NULL;
	}
}

static Ast *
parse_atom(Parser *P)
{
	Token *t = cur(P);
	Ast *a;
	switch (t->kind) {
	case TK_NAME:
		advance(P);
		a = node(P, A_NAME, t->span);
		a->name = t->str;
		return seal(P, a);
	case TK_INT:
		advance(P);
		a = node(P, A_INT, t->span);
		a->ival = t->ival;
		return seal(P, a);
	case TK_FLOAT:
		advance(P);
		a = node(P, A_FLOAT, t->span);
		a->fval = t->fval;
		return seal(P, a);
	case TK_STR:
	case TK_FSTART:
		return parse_strings(P);
	case TK_KW:
		return parse_keyword_atom(P);
	case TK_LPAREN:
		return parse_paren(P);
	case TK_LBRACK:
		return parse_list(P);
	case TK_LBRACE:
		unsupported(P, t->span, "a dict or set display");
		return NULL;
	case TK_ELLIPSIS:
		unsupported(P, t->span, "'...'");
		return NULL;
	default:
		syntax_error(P, "an expression");
		return NULL;
	}
}

/* ---- trailers ---- */

/* lambda NAME: test -- only as a call argument (T.cuda.wait_until's
 * predicate); elsewhere a lambda stays PT_E_PARSE_UNSUPPORTED. */
static Ast *
parse_lambda(Parser *P)
{
	Token *kw = advance(P);
	Token *name = cur(P);
	if (!expect(P, TK_NAME, "one parameter name (lambda v: ...)") ||
	    !expect(P, TK_COLON, "':' after the lambda parameter"))
		return NULL;
	Ast *body = parse_test(P);
	if (!body)
		return NULL;
	Ast *a = node(P, A_LAMBDA, join(kw->span, body->span));
	a->name = name->str;
	a->a = body;
	return seal(P, a);
}

static Ast *
parse_arg(Parser *P)
{
	Token *t = cur(P);
	if (at(P, TK_STAR)) {
		advance(P);
		Ast *v = parse_test(P);
		if (!v)
			return NULL;
		Ast *a = node(P, A_STAR, join(t->span, v->span));
		a->a = v;
		return seal(P, a);
	}
	if (at(P, TK_DSTAR)) {
		unsupported(P, t->span, "'**' argument unpacking");
		return NULL;
	}
	if (t->kind == TK_NAME && peek_at(P, 1)->kind == TK_ASSIGN) {
		advance(P);
		advance(P);
		Ast *v = at_kw(P, KW_LAMBDA) ? parse_lambda(P) : parse_test(P);
		if (!v)
			return NULL;
		Ast *a = node(P, A_KWARG, join(t->span, v->span));
		a->name = t->str;
		a->a = v;
		return seal(P, a);
	}
	Ast *v = at_kw(P, KW_LAMBDA) ? parse_lambda(P) : parse_test(P);
	if (v && (at_kw(P, KW_FOR) || at_kw(P, KW_ASYNC))) {
		unsupported(P, cur(P)->span, "a generator expression");
		return NULL;
	}
	return v;
}

static Ast *
parse_call(Parser *P, Ast *callee)
{
	advance(P);
	Ast *a = node(P, A_CALL, callee->span);
	a->a = callee;
	while (!at(P, TK_RPAREN) && !P->failed) {
		Ast *arg = parse_arg(P);
		if (!arg)
			return NULL;
		vec_push(&P->c->arena, &a->list, arg);
		if (!at(P, TK_COMMA))
			break;
		advance(P);
	}
	Token *close = cur(P);
	if (!expect(P, TK_RPAREN, "',' or ')'"))
		return NULL;
	a->span = join(a->span, close->span);
	return seal(P, a);
}

/* subscript := test | [test] ':' [test] [':' [test]] */
static Ast *
parse_subscript_item(Parser *P)
{
	Token *t = cur(P);
	Ast *lo = NULL;
	if (!at(P, TK_COLON)) {
		lo = parse_test(P);
		if (!lo || !at(P, TK_COLON))
			return lo;
	}
	Ast *s = node(P, A_SLICE, t->span);
	s->a = lo;
	Token *colon = advance(P);
	s->span = join(s->span, colon->span);
	if (!at(P, TK_COLON) && !at(P, TK_COMMA) && !at(P, TK_RBRACK)) {
		s->b = parse_test(P);
		if (!s->b)
			return NULL;
		s->span = join(s->span, s->b->span);
	}
	if (at(P, TK_COLON)) {
		advance(P);
		if (!at(P, TK_COMMA) && !at(P, TK_RBRACK)) {
			s->c = parse_test(P);
			if (!s->c)
				return NULL;
			s->span = join(s->span, s->c->span);
		}
	}
	return seal(P, s);
}

static Ast *
parse_subscript(Parser *P, Ast *obj)
{
	advance(P);
	Ast *a = node(P, A_SUBSCRIPT, obj->span);
	a->a = obj;
	do {
		if (at(P, TK_RBRACK) && a->list.n > 0)
			break;
		Ast *item = parse_subscript_item(P);
		if (!item)
			return NULL;
		vec_push(&P->c->arena, &a->list, item);
	} while (at(P, TK_COMMA) && advance(P));
	Token *close = cur(P);
	if (!expect(P, TK_RBRACK, "',' or ']'"))
		return NULL;
	a->span = join(a->span, close->span);
	return seal(P, a);
}

static Ast *
parse_primary(Parser *P)
{
	Ast *a = parse_atom(P);
	while (a && !P->failed) {
		if (at(P, TK_DOT)) {
			advance(P);
			Token *t = cur(P);
			if (t->kind != TK_NAME && t->kind != TK_KW) {
				syntax_error(P, "an attribute name");
				return NULL;
			}
			advance(P);
			Ast *n = node(P, A_ATTR, join(a->span, t->span));
			n->a = a;
			n->name = t->str;
			a = seal(P, n);
		} else if (at(P, TK_LPAREN)) {
			a = parse_call(P, a);
		} else if (at(P, TK_LBRACK)) {
			a = parse_subscript(P, a);
		} else {
			break;
		}
	}
	return a;
}

/* ---- operators ---- */

/* Bounds the C recursion of the expression parser. */
static bool
enter(Parser *P)
{
	if (++P->depth <= AST_MAX_DEPTH)
		return true;
	return error_at(P, PT_E_PARSE_DEPTH, cur(P)->span,
			"expression nested too deeply%s", "");
}

static Ast *
parse_factor(Parser *P)
{
	if (!enter(P))
		return NULL;
	Ast *a = parse_factor_inner(P);
	P->depth--;
	return a;
}

static Ast *
parse_factor_inner(Parser *P)
{
	Token *t = cur(P);
	if (at(P, TK_MINUS) || at(P, TK_PLUS) || at(P, TK_TILDE)) {
		advance(P);
		Ast *v = parse_factor(P);
		if (!v)
			return NULL;
		Ast *a = node(P, A_UNARY, join(t->span, v->span));
		a->op = t->kind;
		a->a = v;
		return seal(P, a);
	}
	Ast *a = parse_primary(P);
	if (a && at(P, TK_DSTAR)) {
		unsupported(P, cur(P)->span, "the '**' operator");
		return NULL;
	}
	return a;
}

typedef Ast *(*ParseFn)(Parser *);

/* One left-associative binary level over the operators in ops[]. */
static Ast *
parse_level(Parser *P, ParseFn next, const TokKind *ops, size_t nops)
{
	Ast *l = next(P);
	while (l && !P->failed) {
		TokKind k = cur(P)->kind;
		size_t j = 0;
		while (j < nops && ops[j] != k)
			j++;
		if (j == nops)
			break;
		advance(P);
		l = binary(P, A_BINARY, k, l, next(P));
	}
	return l;
}

static Ast *
parse_term(Parser *P)
{
	static const TokKind ops[] = {TK_STAR, TK_SLASH, TK_DSLASH,
				      TK_PERCENT, TK_AT};
	return parse_level(P, parse_factor, ops, countof(ops));
}

static Ast *
parse_arith(Parser *P)
{
	static const TokKind ops[] = {TK_PLUS, TK_MINUS};
	return parse_level(P, parse_term, ops, countof(ops));
}

static Ast *
parse_shift(Parser *P)
{
	static const TokKind ops[] = {TK_LSHIFT, TK_RSHIFT};
	return parse_level(P, parse_arith, ops, countof(ops));
}

static Ast *
parse_band(Parser *P)
{
	static const TokKind ops[] = {TK_AMP};
	return parse_level(P, parse_shift, ops, countof(ops));
}

static Ast *
parse_bxor(Parser *P)
{
	static const TokKind ops[] = {TK_CARET};
	return parse_level(P, parse_band, ops, countof(ops));
}

static Ast *
parse_bor(Parser *P)
{
	static const TokKind ops[] = {TK_PIPE};
	return parse_level(P, parse_bxor, ops, countof(ops));
}

static bool
is_compare(Parser *P)
{
	switch (cur(P)->kind) {
	case TK_LT: case TK_GT: case TK_LE: case TK_GE: case TK_EQ:
	case TK_NE:
		return true;
	default:
		return false;
	}
}

static Ast *
parse_comparison(Parser *P)
{
	Ast *l = parse_bor(P);
	if (l && (at_kw(P, KW_IN) || at_kw(P, KW_IS) ||
		  (at_kw(P, KW_NOT) && peek_at(P, 1)->kw == KW_IN))) {
		unsupported(P, cur(P)->span, "'in'/'is' comparison");
		return NULL;
	}
	if (!l || !is_compare(P))
		return l;
	TokKind op = advance(P)->kind;
	l = binary(P, A_COMPARE, op, l, parse_bor(P));
	if (l && is_compare(P)) {
		error_at(P, PT_E_PARSE_CHAIN, cur(P)->span,
			 "chained comparisons are not supported; use "
			 "'and'%s", "");
		return NULL;
	}
	return l;
}

static Ast *
parse_not(Parser *P)
{
	if (!at_kw(P, KW_NOT))
		return parse_comparison(P);
	Token *t = advance(P);
	if (!enter(P))
		return NULL;
	Ast *v = parse_not(P);
	P->depth--;
	if (!v)
		return NULL;
	Ast *a = node(P, A_NOT, join(t->span, v->span));
	a->a = v;
	return seal(P, a);
}

static Ast *
parse_and(Parser *P)
{
	Ast *l = parse_not(P);
	while (l && at_kw(P, KW_AND)) {
		advance(P);
		l = binary(P, A_AND, 0, l, parse_not(P));
	}
	return l;
}

static Ast *
parse_or(Parser *P)
{
	Ast *l = parse_and(P);
	while (l && at_kw(P, KW_OR)) {
		advance(P);
		l = binary(P, A_OR, 0, l, parse_and(P));
	}
	return l;
}

static Ast *parse_test_inner(Parser *P);

static Ast *
parse_test(Parser *P)
{
	if (!enter(P))
		return NULL;
	Ast *a = parse_test_inner(P);
	P->depth--;
	return a;
}

static Ast *
parse_test_inner(Parser *P)
{
	if (at_kw(P, KW_LAMBDA)) {
		unsupported(P, cur(P)->span, "lambda");
		return NULL;
	}
	Ast *a = parse_or(P);
	if (a && at_kw(P, KW_IF)) {
		advance(P);
		Ast *cond = parse_or(P);
		if (!cond || !expect_kw(P, KW_ELSE, "'else' of the conditional "
					"expression"))
			return NULL;
		Ast *other = parse_test(P);
		if (!other)
			return NULL;
		Ast *x = node(P, A_IFEXP, join(a->span, other->span));
		x->a = cond;
		x->b = a;
		x->c = other;
		return seal(P, x);
	}
	if (a && at(P, TK_WALRUS)) {
		unsupported(P, cur(P)->span, "':='");
		return NULL;
	}
	return a;
}

/* exprlist := test (',' test)* [','] -- a tuple when a comma appears. */
static Ast *
parse_exprlist(Parser *P, bool allow_star)
{
	Token *t = cur(P);
	Ast *first = at(P, TK_STAR) && allow_star ? parse_arg(P) : parse_test(P);
	if (!first || !at(P, TK_COMMA))
		return first;
	Ast *tup = node(P, A_TUPLE, t->span);
	vec_push(&P->c->arena, &tup->list, first);
	while (at(P, TK_COMMA)) {
		advance(P);
		if (at(P, TK_NEWLINE) || at(P, TK_ASSIGN) || at(P, TK_SEMI) ||
		    at(P, TK_COLON) || at(P, TK_EOF))
			break;
		Ast *e = at(P, TK_STAR) && allow_star ? parse_arg(P)
						      : parse_test(P);
		if (!e)
			return NULL;
		vec_push(&P->c->arena, &tup->list, e);
		tup->span = join(tup->span, e->span);
	}
	return seal(P, tup);
}

/* ---- simple statements ---- */

static bool
parse_dotted(Parser *P, const char **out)
{
	StrBuf b;
	sb_init(&b, &P->c->arena);
	while (at(P, TK_DOT)) {
		sb_putc(&b, '.');
		advance(P);
	}
	for (;;) {
		if (!at(P, TK_NAME)) {
			return syntax_error(P, "a module name");
		}
		sb_puts(&b, advance(P)->str);
		if (!at(P, TK_DOT))
			break;
		advance(P);
		sb_putc(&b, '.');
	}
	*out = sb_cstr(&b);
	return true;
}

static Ast *
parse_alias(Parser *P, bool dotted)
{
	Token *t = cur(P);
	Ast *a = node(P, A_ALIAS, t->span);
	if (dotted) {
		if (!parse_dotted(P, &a->name))
			return NULL;
	} else {
		if (!at(P, TK_NAME)) {
			syntax_error(P, "a name to import");
			return NULL;
		}
		a->name = advance(P)->str;
	}
	if (at_kw(P, KW_AS)) {
		advance(P);
		if (!at(P, TK_NAME)) {
			syntax_error(P, "a name after 'as'");
			return NULL;
		}
		a->str = advance(P)->str;
	}
	return a;
}

static Ast *
parse_import(Parser *P)
{
	Token *t = advance(P);
	Ast *s = node(P, t->kw == KW_IMPORT ? S_IMPORT : S_FROM, t->span);
	if (t->kw == KW_FROM) {
		if (!parse_dotted(P, &s->str))
			return NULL;
		if (!at_kw(P, KW_IMPORT)) {
			syntax_error(P, "'import'");
			return NULL;
		}
		advance(P);
		if (at(P, TK_STAR)) {
			unsupported(P, cur(P)->span, "'import *'");
			return NULL;
		}
	}
	bool paren = s->kind == S_FROM && at(P, TK_LPAREN);
	if (paren)
		advance(P);
	do {
		if (paren && at(P, TK_RPAREN))
			break;
		Ast *a = parse_alias(P, s->kind == S_IMPORT);
		if (!a)
			return NULL;
		vec_push(&P->c->arena, &s->list, a);
	} while (at(P, TK_COMMA) && advance(P));
	if (paren && !expect(P, TK_RPAREN, "')'"))
		return NULL;
	return s;
}

static bool
is_augop(TokKind k, int *op)
{
	static const TokKind aug[][2] = {
		{TK_PLUSEQ, TK_PLUS},     {TK_MINUSEQ, TK_MINUS},
		{TK_STAREQ, TK_STAR},     {TK_SLASHEQ, TK_SLASH},
		{TK_DSLASHEQ, TK_DSLASH}, {TK_PERCENTEQ, TK_PERCENT},
		{TK_AMPEQ, TK_AMP},       {TK_PIPEEQ, TK_PIPE},
		{TK_CARETEQ, TK_CARET},   {TK_LSHIFTEQ, TK_LSHIFT},
		{TK_RSHIFTEQ, TK_RSHIFT}, {TK_ATEQ, TK_AT},
		{TK_DSTAREQ, TK_DSTAR},
	};
	for (size_t i = 0; i < countof(aug); i++)
		if (aug[i][0] == k) {
			*op = aug[i][1];
			return true;
		}
	return false;
}

static Ast *
parse_expr_stmt(Parser *P)
{
	Ast *lhs = parse_exprlist(P, true);
	if (!lhs)
		return NULL;
	int op;
	if (at(P, TK_COLON)) {
		advance(P);
		Ast *s = node(P, S_ANNASSIGN, lhs->span);
		s->a = lhs;
		s->b = parse_test(P);
		if (s->b && at(P, TK_ASSIGN)) {
			advance(P);
			s->c = parse_exprlist(P, true);
			if (!s->c)
				return NULL;
		}
		return s->b ? s : NULL;
	}
	if (is_augop(cur(P)->kind, &op)) {
		advance(P);
		Ast *s = node(P, S_AUGASSIGN, lhs->span);
		s->op = op;
		s->a = lhs;
		s->b = parse_exprlist(P, true);
		return s->b ? s : NULL;
	}
	if (at(P, TK_ASSIGN)) {
		advance(P);
		Ast *s = node(P, S_ASSIGN, lhs->span);
		s->a = lhs;
		s->b = parse_exprlist(P, true);
		if (s->b && at(P, TK_ASSIGN)) {
			unsupported(P, cur(P)->span, "chained assignment");
			return NULL;
		}
		return s->b ? s : NULL;
	}
	Ast *s = node(P, S_EXPR, lhs->span);
	s->a = lhs;
	return s;
}

static Ast *
parse_small_stmt(Parser *P)
{
	Token *t = cur(P);
	if (t->kind != TK_KW)
		return parse_expr_stmt(P);
	switch (t->kw) {
	case KW_PASS:
		advance(P);
		return node(P, S_PASS, t->span);
	case KW_BREAK:
		advance(P);
		return node(P, S_BREAK, t->span);
	case KW_CONTINUE:
		advance(P);
		return node(P, S_CONTINUE, t->span);
	case KW_RETURN: {
		advance(P);
		Ast *s = node(P, S_RETURN, t->span);
		if (!at(P, TK_NEWLINE) && !at(P, TK_SEMI) && !at(P, TK_EOF)) {
			s->a = parse_exprlist(P, false);
			if (!s->a)
				return NULL;
		}
		return s;
	}
	case KW_IMPORT:
	case KW_FROM:
		return parse_import(P);
	case KW_ASSERT: { /* assert test[, message] */
		advance(P);
		Ast *s = node(P, S_ASSERT, t->span);
		s->a = parse_test(P);
		if (s->a && at(P, TK_COMMA)) {
			advance(P);
			s->b = parse_test(P);
			if (!s->b)
				return NULL;
		}
		return s->a ? seal(P, s) : NULL;
	}
	case KW_GLOBAL: case KW_NONLOCAL: case KW_DEL:
	case KW_RAISE: {
		const char *what = arena_printf(&P->c->arena, "'%s'",
						keyword_name(t->kw));
		unsupported(P, t->span, what);
		return NULL;
	}
	default:
		return parse_expr_stmt(P);
	}
}

static void
parse_simple_stmts(Parser *P, AstVec *out)
{
	for (;;) {
		Ast *s = parse_small_stmt(P);
		if (!s)
			return;
		vec_push(&P->c->arena, out, s);
		if (!at(P, TK_SEMI))
			break;
		advance(P);
		if (at(P, TK_NEWLINE))
			break;
	}
	expect(P, TK_NEWLINE, "end of line");
}

/* ---- compound statements ---- */

static void
parse_block(Parser *P, AstVec *out)
{
	if (!expect(P, TK_COLON, "':'"))
		return;
	if (!at(P, TK_NEWLINE)) {
		parse_simple_stmts(P, out);
		return;
	}
	advance(P);
	if (!at(P, TK_INDENT)) {
		error_at(P, PT_E_PARSE_BLOCK, cur(P)->span,
			 "expected an indented block%s", "");
		return;
	}
	if (++P->block_depth > MAX_BLOCK_DEPTH) {
		error_at(P, PT_E_PARSE_DEPTH, cur(P)->span,
			 "blocks nested too deeply%s", "");
		return;
	}
	advance(P);
	while (!at(P, TK_DEDENT) && !at(P, TK_EOF))
		parse_stmt(P, out);
	expect(P, TK_DEDENT, "dedent");
	P->block_depth--;
}

static Ast *
parse_if(Parser *P)
{
	Token *t = advance(P);
	Ast *s = node(P, S_IF, t->span);
	s->a = parse_test(P);
	if (!s->a)
		return NULL;
	parse_block(P, &s->body);
	if (at_kw(P, KW_ELIF)) {
		Ast *e = parse_if(P);
		if (e)
			vec_push(&P->c->arena, &s->orelse, e);
	} else if (at_kw(P, KW_ELSE)) {
		advance(P);
		parse_block(P, &s->orelse);
	}
	return P->failed ? NULL : s;
}

static Ast *
parse_while(Parser *P)
{
	Token *t = advance(P);
	Ast *s = node(P, S_WHILE, t->span);
	s->a = parse_test(P);
	if (!s->a)
		return NULL;
	parse_block(P, &s->body);
	if (at_kw(P, KW_ELSE))
		unsupported(P, cur(P)->span, "'while ... else'");
	return P->failed ? NULL : s;
}

static Ast *
parse_for(Parser *P)
{
	Token *t = advance(P);
	Ast *s = node(P, S_FOR, t->span);
	s->a = parse_bor(P);
	if (!s->a)
		return NULL;
	if (at(P, TK_COMMA)) { /* for a, b in ...: lowering decides */
		Ast *tup = node(P, A_TUPLE, s->a->span);
		vec_push(&P->c->arena, &tup->list, s->a);
		while (at(P, TK_COMMA) && !P->failed) {
			advance(P);
			if (at_kw(P, KW_IN))
				break;
			Ast *e = parse_bor(P);
			if (!e)
				return NULL;
			vec_push(&P->c->arena, &tup->list, e);
			tup->span = join(tup->span, e->span);
		}
		s->a = seal(P, tup);
	}
	if (!at_kw(P, KW_IN)) {
		syntax_error(P, "'in'");
		return NULL;
	}
	advance(P);
	s->b = parse_test(P);
	if (!s->b)
		return NULL;
	parse_block(P, &s->body);
	if (at_kw(P, KW_ELSE))
		unsupported(P, cur(P)->span, "'for ... else'");
	return P->failed ? NULL : s;
}

static bool
parse_params(Parser *P, Ast *def)
{
	if (!expect(P, TK_LPAREN, "'('"))
		return false;
	while (!at(P, TK_RPAREN) && !P->failed) {
		Token *t = cur(P);
		if (at(P, TK_STAR) || at(P, TK_DSTAR) || at(P, TK_SLASH))
			return unsupported(P, t->span,
					   "'*', '**' or '/' in parameters");
		if (!at(P, TK_NAME))
			return syntax_error(P, "a parameter name");
		advance(P);
		Ast *p = node(P, A_PARAM, t->span);
		p->name = t->str;
		if (at(P, TK_COLON)) {
			advance(P);
			p->a = parse_test(P);
			if (!p->a)
				return false;
		}
		if (at(P, TK_ASSIGN))
			return unsupported(P, cur(P)->span,
					   "a parameter default value");
		vec_push(&P->c->arena, &def->params, p);
		if (!at(P, TK_COMMA))
			break;
		advance(P);
	}
	return expect(P, TK_RPAREN, "')'");
}

static Ast *
parse_def(Parser *P, AstVec *decorators)
{
	Token *t = advance(P);
	Ast *s = node(P, S_DEF, t->span);
	if (decorators)
		s->list = *decorators;
	if (!at(P, TK_NAME)) {
		syntax_error(P, "a function name");
		return NULL;
	}
	s->name = advance(P)->str;
	if (!parse_params(P, s))
		return NULL;
	if (at(P, TK_ARROW)) {
		advance(P);
		s->b = parse_test(P);
		if (!s->b)
			return NULL;
	}
	parse_block(P, &s->body);
	return P->failed ? NULL : s;
}

static Ast *
parse_decorated(Parser *P)
{
	AstVec decos = {0};
	while (at(P, TK_AT)) {
		advance(P);
		Ast *d = parse_test(P);
		if (!d)
			return NULL;
		vec_push(&P->c->arena, &decos, d);
		if (!expect(P, TK_NEWLINE, "end of line after a decorator"))
			return NULL;
	}
	if (at_kw(P, KW_CLASS)) {
		unsupported(P, cur(P)->span, "a class");
		return NULL;
	}
	if (!at_kw(P, KW_DEF)) {
		syntax_error(P, "'def' after decorators");
		return NULL;
	}
	return parse_def(P, &decos);
}

static void
parse_stmt(Parser *P, AstVec *out)
{
	Token *t = cur(P);
	Ast *s = NULL;
	if (t->kind == TK_AT) {
		s = parse_decorated(P);
	} else if (t->kind == TK_KW) {
		switch (t->kw) {
		case KW_IF: s = parse_if(P); break;
		case KW_WHILE: s = parse_while(P); break;
		case KW_FOR: s = parse_for(P); break;
		case KW_DEF: s = parse_def(P, NULL); break;
		case KW_CLASS: unsupported(P, t->span, "a class"); return;
		case KW_WITH: unsupported(P, t->span, "'with'"); return;
		case KW_TRY: unsupported(P, t->span, "'try'"); return;
		case KW_ASYNC: unsupported(P, t->span, "'async'"); return;
		case KW_ELSE: case KW_ELIF: case KW_EXCEPT: case KW_FINALLY:
			syntax_error(P, "a statement");
			return;
		default:
			parse_simple_stmts(P, out);
			return;
		}
	} else if (t->kind == TK_INDENT) {
		error_at(P, PT_E_LEX_INDENT, t->span, "unexpected indent%s", "");
		return;
	} else {
		parse_simple_stmts(P, out);
		return;
	}
	if (s)
		vec_push(&P->c->arena, out, s);
}

Ast *
parse_module(Ctx *c, uint32_t file)
{
	TokenVec toks = {0};
	if (!lex_source(c, file, &toks))
		return NULL;
	Parser P = {0};
	P.c = c;
	P.t = toks.v;
	P.n = toks.n;
	P.eof = toks.v[toks.n - 1];
	Ast *m = node(&P, A_MODULE, P.eof.span);
	m->span.lo = 0;
	while (!at(&P, TK_EOF)) {
		if (at(&P, TK_NEWLINE)) {
			advance(&P);
			continue;
		}
		parse_stmt(&P, &m->body);
	}
	return P.failed ? NULL : m;
}

/* One expression filling a whole source: the value text of a constant
 * override (pt_set_constant), parsed as a module assignment's right-hand
 * side would be. */
Ast *
parse_expression(Ctx *c, uint32_t file)
{
	TokenVec toks = {0};
	if (!lex_source(c, file, &toks))
		return NULL;
	Parser P = {0};
	P.c = c;
	P.t = toks.v;
	P.n = toks.n;
	P.eof = toks.v[toks.n - 1];
	Ast *e = NULL;
	if (at(&P, TK_NEWLINE) || at(&P, TK_EOF))
		syntax_error(&P, "a value");
	else
		e = parse_exprlist(&P, false);
	if (at(&P, TK_NEWLINE))
		advance(&P);
	if (!at(&P, TK_EOF))
		syntax_error(&P, "the end of the value");
	return P.failed ? NULL : e;
}
