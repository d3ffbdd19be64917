/* Unit tests of src/script/lex.c: tokens and Python indentation rules. */
#include "base/base.h"
#include "script/lex.h"
#include "test.h"

/* Token kinds of src as one string: names by text, others by symbol. */
static const char *
lex_kinds(Ctx *c, const char *src, bool *ok)
{
	uint32_t f = ctx_add_source(c, "t.py", src, strlen(src));
	TokenVec toks = {0};
	*ok = lex_source(c, f, &toks);
	StrBuf b;
	sb_init(&b, &c->arena);
	for (size_t i = 0; i < toks.n; i++) {
		Token *t = &toks.v[i];
		if (i)
			sb_putc(&b, ' ');
		switch (t->kind) {
		case TK_NAME: case TK_KW: sb_puts(&b, t->str); break;
		case TK_INT: sb_printf(&b, "%llu", (unsigned long long)t->ival); break;
		case TK_FLOAT: sb_printf(&b, "%g", t->fval); break;
		case TK_STR: sb_printf(&b, "'%s'", t->str); break;
		case TK_NEWLINE: sb_puts(&b, "NL"); break;
		case TK_INDENT: sb_puts(&b, "IN"); break;
		case TK_DEDENT: sb_puts(&b, "DE"); break;
		case TK_EOF: sb_puts(&b, "EOF"); break;
		default: sb_puts(&b, tok_kind_name(t->kind)); break;
		}
	}
	return sb_cstr(&b);
}

static int
first_code(Ctx *c)
{
	return c->diags ? c->diags->code : 0;
}

TEST(lex_indent_dedent)
{
	Ctx *c = pt_ctx_new(NULL);
	bool ok;
	CHECK_STR(lex_kinds(c, "if a:\n    b\n    c\nd\n", &ok),
		  "if a : NL IN b NL c NL DE d NL EOF");
	CHECK(ok);
	/* two dedents at once, and EOF closes open blocks */
	CHECK_STR(lex_kinds(c, "a:\n  b:\n    c\nd", &ok),
		  "a : NL IN b : NL IN c NL DE DE d NL EOF");
	CHECK_STR(lex_kinds(c, "a:\n  b:\n    c", &ok),
		  "a : NL IN b : NL IN c NL DE DE EOF");
	pt_ctx_free(c);
}

TEST(lex_blank_and_comment_lines)
{
	Ctx *c = pt_ctx_new(NULL);
	bool ok;
	/* blank lines and comments at any indentation produce nothing */
	CHECK_STR(lex_kinds(c, "a:\n\n        # deep comment\n  b  # tail\n"
			       "# col0\n\n  c\n", &ok),
		  "a : NL IN b NL c NL DE EOF");
	CHECK(ok);
	CHECK_STR(lex_kinds(c, "", &ok), "EOF");
	CHECK_STR(lex_kinds(c, "\n\n   \n# only\n", &ok), "EOF");
	CHECK(ok);
	pt_ctx_free(c);
}

TEST(lex_brackets_join_lines)
{
	Ctx *c = pt_ctx_new(NULL);
	bool ok;
	CHECK_STR(lex_kinds(c, "f(a,\n        b,\n  c)\nd\n", &ok),
		  "f ( a , b , c ) NL d NL EOF");
	CHECK_STR(lex_kinds(c, "x = [1,\n# c\n\n 2]\n", &ok),
		  "x = [ 1 , 2 ] NL EOF");
	/* backslash continuation */
	CHECK_STR(lex_kinds(c, "x = 1 + \\\n        2\ny\n", &ok),
		  "x = 1 + 2 NL y NL EOF");
	CHECK(ok);
	pt_ctx_free(c);
}

TEST(lex_numbers_strings_ops)
{
	Ctx *c = pt_ctx_new(NULL);
	bool ok;
	CHECK_STR(lex_kinds(c, "0x1F 0b101 0o17 1_000 0 2.5 1e3 .5 3.", &ok),
		  "31 5 15 1000 0 2.5 1000 0.5 3 NL EOF");
	CHECK(ok);
	CHECK_STR(lex_kinds(c, "'a\\n' \"b'c\" r'\\d' '''x\ny'''", &ok),
		  "'a\n' 'b'c' '\\d' 'x\ny' NL EOF");
	CHECK_STR(lex_kinds(c, "a//=b<<=c**d->e:=f!=g@h", &ok),
		  "a //= b <<= c ** d -> e := f != g @ h NL EOF");
	CHECK_STR(lex_kinds(c, "18446744073709551615", &ok),
		  "18446744073709551615 NL EOF");
	CHECK(ok);
	pt_ctx_free(c);
}

/* An f-string: its pieces and fields as tokens; {{ }} are braces, a
 * field may hold brackets, strings of the other quote and newlines-free
 * code; rf keeps backslashes. */
TEST(lex_fstrings)
{
	Ctx *c = pt_ctx_new(NULL);
	bool ok;
	CHECK_STR(lex_kinds(c, "f\"a{x}b{{c}}\"", &ok),
		  "f-string 'a' { x } 'b{c}' end of f-string NL EOF");
	CHECK(ok);
	CHECK_STR(lex_kinds(c, "f'{d[\"k\"]}{(1, 2)}'", &ok),
		  "f-string { d [ 'k' ] } { ( 1 , 2 ) } end of f-string NL EOF");
	CHECK(ok);
	CHECK_STR(lex_kinds(c, "rf'\\d{n}' f'\\n'", &ok),
		  "f-string '\\d' { n } end of f-string f-string '\n' end of f-string NL EOF");
	CHECK(ok);
	CHECK_STR(lex_kinds(c, "f'{a != b}'", &ok),
		  "f-string { a != b } end of f-string NL EOF");
	CHECK(ok);
	pt_ctx_free(c);
}

TEST(lex_errors)
{
	static const struct {
		const char *src;
		int code;
	} cases[] = {
		{"a:\n\tb\n", PT_E_LEX_TAB},
		{"a:\n    b\n  c\n", PT_E_LEX_DEDENT},
		{"  a\n", PT_E_LEX_INDENT},
		{"f(a\n", PT_E_LEX_BRACKET},
		{"f(a]\n", PT_E_LEX_BRACKET},
		{")\n", PT_E_LEX_BRACKET},
		{"'abc\n", PT_E_LEX_STRING},
		{"'a\\x0'\n", PT_E_LEX_STRING},
		{"'a\\x00'\n", PT_E_LEX_STRING},
		{"'''abc", PT_E_LEX_STRING},
		{"12ab\n", PT_E_LEX_NUMBER},
		{"007\n", PT_E_LEX_NUMBER},
		{"0x\n", PT_E_LEX_NUMBER},
		{"18446744073709551616\n", PT_E_LEX_NUMBER},
		{"1e400\n", PT_E_LEX_NUMBER},
		{"a $ b\n", PT_E_LEX_CHAR},
		{"a \\ b\n", PT_E_LEX_CHAR},
		{"\xc3\xa9\n", PT_E_LEX_CHAR},
		{"b'x'\n", PT_E_PARSE_UNSUPPORTED},
		{"f'''x'''\n", PT_E_PARSE_UNSUPPORTED},
		{"f'{a:3}'\n", PT_E_FSTRING_FIELD},
		{"f'{a!r}'\n", PT_E_FSTRING_FIELD},
		{"f'{a'\n", PT_E_FSTRING_FIELD},
		{"f'{}'\n", PT_E_FSTRING_FIELD},
		{"f'a}b'\n", PT_E_FSTRING_FIELD},
		{"f'{(a}'\n", PT_E_FSTRING_FIELD},
		{"f'{(a]}'\n", PT_E_LEX_BRACKET},
		{"f'{a\n", PT_E_FSTRING_FIELD},
		{"f'x\n", PT_E_LEX_STRING},
	};
	for (size_t i = 0; i < countof(cases); i++) {
		Ctx *c = pt_ctx_new(NULL);
		bool ok;
		lex_kinds(c, cases[i].src, &ok);
		CHECK(!ok);
		if (first_code(c) != cases[i].code)
			test_fail(t, __FILE__, __LINE__, "case %zu (%s): code %d",
				  i, cases[i].src, first_code(c));
		pt_ctx_free(c);
	}
}

TEST(lex_nul_byte_is_an_error)
{
	Ctx *c = pt_ctx_new(NULL);
	const char src[] = "a = 1\0b";
	uint32_t f = ctx_add_source(c, "t.py", src, sizeof(src) - 1);
	TokenVec toks = {0};
	CHECK(!lex_source(c, f, &toks));
	CHECK_INT(first_code(c), PT_E_LEX_CHAR);
	CHECK(toks.n > 0 && toks.v[toks.n - 1].kind == TK_EOF);
	pt_ctx_free(c);
}
