/*
 * check.c - ptrt_check_launch: the launch argument checks of launch.c on
 * their own, with no driver, device or module.
 *
 * Input: metadata JSON, a kernel name and the caller's arguments.
 * Output: PT_OK or the status (and message) ptrt_launch would report for
 * them.  Bindings such as Python's use it to report a bad argument the same
 * way on a machine without a GPU, so the checks have one implementation.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/rt.h"

static int
check_body(Arena *a, const char *meta_json, size_t meta_len,
	   const char *name, const ptrt_arg *args, size_t nargs,
	   RtStatus *st)
{
	RtMeta meta;
	int rc = meta_parse(a, meta_json, meta_len, &meta, st);
	if (rc != PT_OK)
		return rc;
	for (size_t i = 0; i < meta.nkernels; i++) {
		if (strcmp(meta.kernels[i].name, name) != 0)
			continue;
		LaunchPlan p;
		return launch_plan(a, &meta.kernels[i], args, nargs, &p, st);
	}
	return rt_fail(st, PT_E_RT_NO_KERNEL,
		       "no kernel \"%.200s\" in the metadata", name);
}

/* On the heap: the status is large, and the arena must keep its value
 * across the longjmp of an allocation failure. */
typedef struct CheckScratch {
	RtStatus st;
	Arena a;
	jmp_buf jb;
} CheckScratch;

int
ptrt_check_launch(const char *meta_json, size_t meta_len, const char *name,
		  const ptrt_arg *args, size_t nargs, char *msg,
		  size_t msg_size)
{
	CheckScratch *s = calloc(1, sizeof(*s));
	int rc;
	if (!s) {
		rc = PT_E_NOMEM;
	} else if (!meta_json || !name) {
		rc = rt_fail(&s->st, PT_E_RT_BAD_CALL,
			     "ptrt_check_launch needs metadata and a kernel "
			     "name");
	} else {
		arena_init(&s->a, NULL);
		s->a.oom = &s->jb;
		if (setjmp(s->jb))
			rc = rt_fail(&s->st, PT_E_NOMEM, "out of memory");
		else
			rc = check_body(&s->a, meta_json, meta_len, name, args,
					nargs, &s->st);
		s->a.oom = NULL;
		arena_free(&s->a);
	}
	if (msg && msg_size)
		snprintf(msg, msg_size, "%s",
			 !s ? "out of memory" : rc != PT_OK ? s->st.msg : "");
	free(s);
	return rc;
}
