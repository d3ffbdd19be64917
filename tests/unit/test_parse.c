/* Unit tests of src/script/parse.c and the print/parse round trip over
 * every example, golden input and round-trip input. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/base.h"
#include "ir/ir.h"
#include "script/ast.h"
#include "test.h"

static Ast *
parse_text(Ctx *c, const char *src)
{
	uint32_t f = ctx_add_source(c, "t.py", src, strlen(src));
	return parse_module(c, f);
}

static int
parse_code(const char *src)
{
	Ctx *c = pt_ctx_new(NULL);
	Ast *m = parse_text(c, src);
	int code = c->diags ? c->diags->code : 0;
	if (m && code)
		code = -1; /* a tree and an error: never */
	pt_ctx_free(c);
	return code;
}

TEST(parse_statements_shape)
{
	Ctx *c = pt_ctx_new(NULL);
	Ast *m = parse_text(c, "from a.b import tirx as T, S\n"
			       "@T.function\n"
			       "def f(x: T.int32, y) -> T.int32:\n"
			       "    if x < 1:\n        return 1\n"
			       "    elif x:\n        pass\n"
			       "    else:\n        x += 2; y = x\n"
			       "    for i in range(3): x = i\n"
			       "    while x: break\n"
			       "    z: T.int32 = x\n");
	CHECK(m != NULL);
	CHECK_INT(m->body.n, 2);
	CHECK_INT(m->body.v[0]->kind, S_FROM);
	CHECK_STR(m->body.v[0]->str, "a.b");
	CHECK_INT(m->body.v[0]->list.n, 2);
	CHECK_STR(m->body.v[0]->list.v[0]->str, "T");
	Ast *f = m->body.v[1];
	CHECK_INT(f->kind, S_DEF);
	CHECK_INT(f->list.n, 1);
	CHECK_INT(f->params.n, 2);
	CHECK(f->params.v[1]->a == NULL);
	CHECK_INT(f->body.n, 4);
	Ast *i = f->body.v[0];
	CHECK_INT(i->kind, S_IF);
	CHECK_INT(i->orelse.n, 1);
	CHECK_INT(i->orelse.v[0]->kind, S_IF);
	CHECK_INT(i->orelse.v[0]->orelse.n, 2); /* x += 2; y = x */
	CHECK_INT(i->orelse.v[0]->orelse.v[0]->kind, S_AUGASSIGN);
	CHECK_INT(f->body.v[3]->kind, S_ANNASSIGN);
	pt_ctx_free(c);
}

TEST(parse_expression_precedence)
{
	Ctx *c = pt_ctx_new(NULL);
	/* a + b * c << d & e | f ^ g  ->  (((a + (b*c)) << d) & e) | (f ^ g) */
	Ast *m = parse_text(c, "x = a + b * c << d & e | f ^ g\n");
	CHECK(m != NULL);
	Ast *e = m->body.v[0]->b;
	CHECK_INT(e->op, TK_PIPE);
	CHECK_INT(e->b->op, TK_CARET);
	CHECK_INT(e->a->op, TK_AMP);
	CHECK_INT(e->a->a->op, TK_LSHIFT);
	CHECK_INT(e->a->a->a->op, TK_PLUS);
	CHECK_INT(e->a->a->a->b->op, TK_STAR);
	/* 4@laneid binds like *, tighter than + */
	m = parse_text(c, "L = S[(8, 4):(4@laneid, 1)] + 5@warpid + 64\n");
	CHECK(m != NULL);
	e = m->body.v[0]->b;
	CHECK_INT(e->op, TK_PLUS);
	CHECK_INT(e->a->b->op, TK_AT);
	CHECK_INT(e->a->a->kind, A_SUBSCRIPT);
	CHECK_INT(e->a->a->list.v[0]->kind, A_SLICE);
	/* not binds looser than ==, and looser than or's operands */
	m = parse_text(c, "y = not a == b or c\n");
	e = m->body.v[0]->b;
	CHECK_INT(e->kind, A_OR);
	CHECK_INT(e->a->kind, A_NOT);
	CHECK_INT(e->a->a->kind, A_COMPARE);
	/* unary minus binds tighter than * */
	m = parse_text(c, "z = -a * b\n");
	e = m->body.v[0]->b;
	CHECK_INT(e->op, TK_STAR);
	CHECK_INT(e->a->kind, A_UNARY);
	pt_ctx_free(c);
}

TEST(parse_calls_subscripts_stars)
{
	Ctx *c = pt_ctx_new(NULL);
	Ast *m = parse_text(c, "f(a, *[b, c], *d, k=1)[1:2, :, 3, ::2].x\n"
			       "t = 1,\n"
			       "e = ()\n"
			       "s = 'a' \"b\"\n");
	CHECK(m != NULL);
	Ast *e = m->body.v[0]->a;
	CHECK_INT(e->kind, A_ATTR);
	Ast *sub = e->a;
	CHECK_INT(sub->kind, A_SUBSCRIPT);
	CHECK_INT(sub->list.n, 4);
	CHECK(sub->list.v[1]->kind == A_SLICE && !sub->list.v[1]->a &&
	      !sub->list.v[1]->b);
	CHECK_INT(sub->list.v[2]->kind, A_INT);
	CHECK(sub->list.v[3]->c != NULL);
	Ast *call = sub->a;
	CHECK_INT(call->list.n, 4);
	CHECK_INT(call->list.v[1]->kind, A_STAR);
	CHECK_INT(call->list.v[3]->kind, A_KWARG);
	CHECK_INT(m->body.v[1]->b->kind, A_TUPLE);
	CHECK_INT(m->body.v[1]->b->list.n, 1);
	CHECK_INT(m->body.v[2]->b->list.n, 0);
	CHECK_STR(m->body.v[3]->b->str, "ab");
	pt_ctx_free(c);
}

TEST(parse_errors)
{
	static const struct {
		const char *src;
		int code;
	} cases[] = {
		{"x = = 1\n", PT_E_PARSE_SYNTAX},
		{"def f(:)\n", PT_E_PARSE_SYNTAX},
		{"if a\n    b\n", PT_E_PARSE_SYNTAX},
		{"else:\n    b\n", PT_E_PARSE_SYNTAX},
		{"if a:\nb\n", PT_E_PARSE_BLOCK},
		{"a\n    b\n", PT_E_LEX_INDENT},
		{"a < b < c\n", PT_E_PARSE_CHAIN},
		{"f = lambda: 1\n", PT_E_PARSE_UNSUPPORTED},
		{"x = [i for i in y]\n", PT_E_PARSE_UNSUPPORTED},
		{"x = {1: 2}\n", PT_E_PARSE_UNSUPPORTED},
		{"class A:\n    pass\n", PT_E_PARSE_UNSUPPORTED},
		{"with a:\n    pass\n", PT_E_PARSE_UNSUPPORTED},
		{"try:\n    pass\n", PT_E_PARSE_UNSUPPORTED},
		{"global x\n", PT_E_PARSE_UNSUPPORTED},
		{"x = a if b\n", PT_E_PARSE_SYNTAX},
		{"x = lambda v: v\n", PT_E_PARSE_UNSUPPORTED},
		{"f(lambda: 1)\n", PT_E_PARSE_SYNTAX},
		{"f'{a b}'\n", PT_E_PARSE_SYNTAX},
		{"x = a ** 2\n", PT_E_PARSE_UNSUPPORTED},
		{"x = a is b\n", PT_E_PARSE_UNSUPPORTED},
		{"f(**k)\n", PT_E_PARSE_UNSUPPORTED},
		{"def f(x=1):\n    pass\n", PT_E_PARSE_UNSUPPORTED},
		{"a = b = 1\n", PT_E_PARSE_UNSUPPORTED},
		/* a tuple target parses (lowering unpacks constant
		 * sequences); for ... else does not */
		{"for a, b in c:\n    pass\nelse:\n    pass\n",
		 PT_E_PARSE_UNSUPPORTED},
		{"assert a, b, c\n", PT_E_PARSE_SYNTAX},
		{"while a:\n    pass\nelse:\n    pass\n", PT_E_PARSE_UNSUPPORTED},
		{"@T.function\nclass A:\n    pass\n", PT_E_PARSE_UNSUPPORTED},
	};
	for (size_t i = 0; i < countof(cases); i++) {
		int code = parse_code(cases[i].src);
		if (code != cases[i].code)
			test_fail(t, __FILE__, __LINE__, "case %zu (%s): code %d",
				  i, cases[i].src, code);
	}
}

TEST(parse_depth_is_bounded)
{
	/* deep unary chains, parentheses and blocks: an error, no crash */
	size_t n = 100000;
	char *s = malloc(n + 16);
	memcpy(s, "x = ", 4);
	memset(s + 4, '-', n);
	memcpy(s + 4 + n, "1\n", 3);
	CHECK_INT(parse_code(s), PT_E_PARSE_DEPTH);
	memset(s + 4, '(', 250);
	memcpy(s + 254, "1\n", 3);
	int code = parse_code(s);
	CHECK(code == PT_E_PARSE_DEPTH || code == PT_E_LEX_BRACKET);
	memset(s + 4, '~', 150);
	memset(s + 154, 'a', 1);
	memcpy(s + 155, "+a" , 2);
	memcpy(s + 157, "\n", 2);
	CHECK_INT(parse_code(s), 0);
	free(s);
	StrBuf b;
	Arena a;
	arena_init(&a, NULL);
	sb_init(&b, &a);
	for (int i = 0; i < 150; i++) {
		for (int k = 0; k < i; k++)
			sb_putc(&b, ' ');
		sb_puts(&b, "if a:\n");
	}
	CHECK_INT(parse_code(sb_cstr(&b)), PT_E_PARSE_DEPTH);
	/* a long flat sum is fine up to the depth limit */
	sb_init(&b, &a);
	sb_puts(&b, "x = 1");
	for (int i = 0; i < 300; i++)
		sb_puts(&b, " + 1");
	sb_puts(&b, "\n");
	CHECK_INT(parse_code(sb_cstr(&b)), PT_E_PARSE_DEPTH);
	arena_free(&a);
}

/* ---- print/parse round trip over files ---- */

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	*len = fread(s, 1, (size_t)n, f);
	s[*len] = 0;
	fclose(f);
	return s;
}

/* x -> print -> parse: IR equal, and the second print is the same text. */
static void
roundtrip_file(TestCtx *t, const char *path)
{
	size_t len;
	char *src = slurp(path, &len);
	if (!src)
		return;
	pt_ctx *c1 = pt_ctx_new(NULL), *c2 = pt_ctx_new(NULL);
	pt_module *m1, *m2;
	const char *p1 = NULL, *p2 = NULL;
	int st = pt_load(c1, path, src, len, &m1);
	if (st == PT_OK)
		st = pt_print(c1, m1, &p1);
	if (st != PT_OK) {
		test_fail(t, __FILE__, __LINE__, "%s: load/print status %d",
			  path, st);
	} else if (pt_load(c2, "printed.py", p1, strlen(p1), &m2) != PT_OK ||
		   pt_print(c2, m2, &p2) != PT_OK) {
		test_fail(t, __FILE__, __LINE__, "%s: printed text fails: %s",
			  path, pt_diag_render(c2, PT_DIAG_FULL));
	} else {
		if (!ir_module_equal(m1, m2))
			test_fail(t, __FILE__, __LINE__,
				  "%s: IR differs after print/parse", path);
		if (strcmp(p1, p2))
			test_fail(t, __FILE__, __LINE__,
				  "%s: print is not a fixed point", path);
	}
	pt_ctx_free(c1);
	pt_ctx_free(c2);
	free(src);
}

static int
roundtrip_dir(TestCtx *t, const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 4 || strcmp(e->d_name + l - 3, ".py"))
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		roundtrip_file(t, path);
		n++;
	}
	closedir(d);
	return n;
}

TEST(roundtrip_all_inputs)
{
	int n = roundtrip_dir(t, "examples");
	n += roundtrip_dir(t, "tests/golden");
	int r = roundtrip_dir(t, "tests/roundtrip");
	CHECK(r >= 2);
	CHECK(n + r >= 4);
}
