/*
 * ptxvocab.c - the one-vocabulary check (issue 21): every instruction
 * line of the given PTX files, as the compiler emitted them, is a row of
 * the PTX form table.  Driven by tests/suites/vocab.sh.
 *
 *   ptxvocab FILE.ptx...
 *
 * Each file is read by the emulator's loader in its vocabulary mode
 * (emu_vocab, src/emu/load.c): the loader's own parse of the operands
 * and its selection through ptx_select, so the rows that pass here are
 * the rows a load would run, and the ptxas differential
 * (tests/suites/ptx_diff.sh) covers them like every other row.
 * Output, one line each:
 *   FAIL vocab/FILE:LINE: INSN: why     a line no form row takes
 *   FAIL vocab/FILE: message            a refusal that is no selection
 *                                       miss (the loader cannot read it)
 *   PASS vocab/FILE                     every line is a row
 * then a summary: files, instruction lines (table rows, lines without
 * one) and distinct spellings.  printf's call sequence is rows too
 * (src/ptx/forms_call.def).  Exit 1 on any FAIL, 2 on usage or I/O
 * errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "emu/emu.h"

typedef struct Tally {
	Arena *a;
	const char *file;
	unsigned lines, rows, misses;
	StrSet spellings;
} Tally;

static void
line_seen(void *ud, int line, const char *insn, EmuVocabLine kind,
	  const char *why)
{
	Tally *t = ud;
	t->lines++;
	const char *sp = arena_strdup(t->a, insn);
	strset_add(t->a, &t->spellings, sp);
	switch (kind) {
	case EMU_VOCAB_ROW:
		t->rows++;
		break;
	case EMU_VOCAB_MISS:
		t->misses++;
		printf("FAIL vocab/%s:%d: %s: %s\n", t->file, line, insn, why);
		break;
	}
}

/* One file: false on a miss or refusal (reported). */
static bool
check_file(Tally *t, const char *path)
{
	size_t len;
	char *text = read_file(t->a, path, &len);
	if (!text) {
		fprintf(stderr, "ptxvocab: cannot read %s\n", path);
		exit(2);
	}
	ptem *e = ptem_new();
	if (!e) {
		fprintf(stderr, "ptxvocab: out of memory\n");
		exit(2);
	}
	t->file = path;
	unsigned misses = t->misses;
	int st = emu_vocab(e, text, len, line_seen, t);
	bool ok = st == PT_OK && t->misses == misses;
	if (st != PT_OK)
		printf("FAIL vocab/%s: %s\n", path, ptem_errmsg(e));
	else if (ok)
		printf("PASS vocab/%s\n", path);
	ptem_free(e);
	return ok;
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: ptxvocab FILE.ptx...\n");
		return 2;
	}
	Arena a;
	arena_init(&a, NULL);
	Tally t = {0};
	t.a = &a;
	int bad = 0;
	for (int i = 1; i < argc; i++)
		bad += !check_file(&t, argv[i]);
	printf("vocab: %d files, %u instruction lines (%u table rows, %u "
	       "without a row), %zu distinct spellings\n",
	       argc - 1, t.lines, t.rows, t.misses, t.spellings.n);
	arena_free(&a);
	return bad ? 1 : 0;
}
