/*
 * lex.h - tokens of the script language (a Python subset).
 *
 * lex_source turns one source file into a token array that always ends in
 * TK_EOF.  Layout is Python's: NEWLINE ends a logical line, INDENT and
 * DEDENT bracket blocks, newlines inside (), [] and {} and after a
 * backslash are joined, comments and blank lines produce nothing.
 * Indentation must be spaces (a tab in indentation is an error, so the
 * meaning of a file never depends on a tab width).
 */
#ifndef PT_LEX_H
#define PT_LEX_H

#include "base/base.h"

/* Keywords: KW(id, "spelling") */
#define PT_KEYWORDS(KW)                                                    \
	KW(FALSE, "False") KW(NONE, "None") KW(TRUE, "True")               \
	KW(AND, "and") KW(AS, "as") KW(ASSERT, "assert")                   \
	KW(ASYNC, "async") KW(AWAIT, "await") KW(BREAK, "break")           \
	KW(CLASS, "class") KW(CONTINUE, "continue") KW(DEF, "def")         \
	KW(DEL, "del") KW(ELIF, "elif") KW(ELSE, "else")                   \
	KW(EXCEPT, "except") KW(FINALLY, "finally") KW(FOR, "for")         \
	KW(FROM, "from") KW(GLOBAL, "global") KW(IF, "if")                 \
	KW(IMPORT, "import") KW(IN, "in") KW(IS, "is")                     \
	KW(LAMBDA, "lambda") KW(NONLOCAL, "nonlocal") KW(NOT, "not")       \
	KW(OR, "or") KW(PASS, "pass") KW(RAISE, "raise")                   \
	KW(RETURN, "return") KW(TRY, "try") KW(WHILE, "while")             \
	KW(WITH, "with") KW(YIELD, "yield")

typedef enum Keyword {
	KW_NOT_A_KEYWORD,
#define KW(id, s) KW_##id,
	PT_KEYWORDS(KW)
#undef KW
} Keyword;

/* Punctuators, longest spellings first: PUNCT(id, "spelling") */
#define PT_PUNCTS(P)                                                       \
	P(DSLASHEQ, "//=") P(LSHIFTEQ, "<<=") P(RSHIFTEQ, ">>=")           \
	P(DSTAREQ, "**=") P(ELLIPSIS, "...")                               \
	P(ARROW, "->") P(WALRUS, ":=") P(DSTAR, "**") P(DSLASH, "//")      \
	P(LSHIFT, "<<") P(RSHIFT, ">>") P(LE, "<=") P(GE, ">=")            \
	P(EQ, "==") P(NE, "!=") P(PLUSEQ, "+=") P(MINUSEQ, "-=")           \
	P(STAREQ, "*=") P(SLASHEQ, "/=") P(PERCENTEQ, "%=")                \
	P(AMPEQ, "&=") P(PIPEEQ, "|=") P(CARETEQ, "^=") P(ATEQ, "@=")      \
	P(LPAREN, "(") P(RPAREN, ")") P(LBRACK, "[") P(RBRACK, "]")        \
	P(LBRACE, "{") P(RBRACE, "}") P(COMMA, ",") P(COLON, ":")          \
	P(DOT, ".") P(SEMI, ";") P(AT, "@") P(ASSIGN, "=") P(PLUS, "+")    \
	P(MINUS, "-") P(STAR, "*") P(SLASH, "/") P(PERCENT, "%")           \
	P(AMP, "&") P(PIPE, "|") P(CARET, "^") P(TILDE, "~") P(LT, "<")    \
	P(GT, ">")

typedef enum TokKind {
	TK_EOF,
	TK_NEWLINE,
	TK_INDENT,
	TK_DEDENT,
	TK_NAME,  /* identifier (not a keyword) */
	TK_KW,    /* keyword: Token.kw */
	TK_INT,   /* Token.ival */
	TK_FLOAT, /* Token.fval */
	TK_STR,   /* Token.str (decoded, NUL-free) */
	TK_FSTART, /* f" : pieces (TK_STR) and { fields } up to TK_FEND */
	TK_FEND,
#define P(id, s) TK_##id,
	PT_PUNCTS(P)
#undef P
	TK_COUNT
} TokKind;

typedef struct Token {
	TokKind kind;
	Keyword kw;
	Span span;
	const char *str; /* TK_NAME, TK_STR */
	uint64_t ival;
	double fval;
} Token;

typedef VEC(Token) TokenVec;

/* Tokens of source file `file` of c.  Lexical errors are diagnostics
 * (PT_E_LEX_*); the array still ends in TK_EOF.  Returns false on
 * error. */
bool lex_source(Ctx *c, uint32_t file, TokenVec *out);

/* Spelling of a token kind for messages ("'('", "NEWLINE"). */
const char *tok_kind_name(TokKind k);
const char *keyword_name(Keyword k);

#endif
