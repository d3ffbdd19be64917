/*
 * test_hardemu.c - front-end defects the structure-aware mutation
 * campaign (tools/mutate_examples.py, issue #19) found outside the known
 * list: IR JSON literals whose kind and dtype disagree reached PTX that
 * ptxas refuses ("Arguments mismatch for instruction 'setp'").
 */
#include <stdio.h>
#include <string.h>

#include "ir/ir_json.h"
#include "test.h"

/* One kernel whose loop runs to the literal LIT (the mutant's edit). */
static const char loop_doc[] =
	"{\"format\": \"ptxtile-ir\", \"version\": 1, \"dyn\": [],\n"
	" \"funcs\": [{\"name\": \"k\", \"kernel\": true, \"params\": [],\n"
	"  \"ret\": null, \"launch\": {\"grid\": [{\"expr\": \"int\","
	" \"dtype\": \"int32\", \"value\": 1}], \"grid_tuple\": false,"
	" \"block\": [{\"expr\": \"int\", \"dtype\": \"int32\", \"value\": "
	"32}],"
	" \"block_tuple\": false, \"cluster\": [], \"cluster_tuple\": false},\n"
	"  \"body\": [{\"stmt\": \"for\", \"kind\": \"serial\", \"var\":"
	" {\"id\": 1, \"name\": \"i\", \"dtype\": \"int32\"},"
	" \"begin\": null, \"end\": %s, \"step\": null, \"body\": []}]}]}\n";

static int
first_code(const char *lit)
{
	char text[2048];
	snprintf(text, sizeof(text), loop_doc, lit);
	Ctx *c = pt_ctx_new(NULL);
	Module *m = ir_module_from_json(c, text, strlen(text), 0);
	int code = m ? 0 : c->diags ? c->diags->code : -1;
	if (code && code != PT_E_JSON_VALUE)
		fprintf(stderr, "  %s: E%d %s\n", lit, code,
			c->diags ? c->diags->msg : "");
	pt_ctx_free(c);
	return code;
}

TEST(ir_json_literal_kind_matches_dtype)
{
	CHECK_INT(first_code("{\"expr\": \"int\", \"dtype\": \"int32\", "
			     "\"value\": 8}"),
		  0);
	/* the mutant: a float node with the int32 dtype of the bound */
	CHECK_INT(first_code("{\"expr\": \"float\", \"dtype\": \"int32\", "
			     "\"value\": 8.0}"),
		  PT_E_JSON_VALUE);
	CHECK_INT(first_code("{\"expr\": \"int\", \"dtype\": \"float32\", "
			     "\"value\": 8}"),
		  PT_E_JSON_VALUE);
}
