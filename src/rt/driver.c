/*
 * driver.c - opens the CUDA driver and fills the entry point table.
 *
 * Input: libcuda.so.1 (dlopen) or, in tests, a fake cuGetProcAddress.
 * Output: a CuDriver whose every field points at the ABI that
 * cuda_syms.def declares.  Only cuGetProcAddress itself comes from dlsym;
 * every other symbol is asked for by base name and explicit version
 * (DESIGN.md §9), with the legacy default stream semantics.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "rt/rt.h"

typedef struct SymRow {
	const char *name;
	int version;
	size_t offset; /* of the field in CuDriver */
} SymRow;

static const SymRow sym_rows[] = {
#define CU_FN(field, name, ver, params)                                    \
	{name, ver, offsetof(CuDriver, field)},
#include "rt/cuda_syms.def"
#undef CU_FN
};

_Static_assert(countof(sym_rows) == CUSYM_COUNT, "one row per symbol");

const char *
cuda_sym_name(CuSym s)
{
	return (unsigned)s < CUSYM_COUNT ? sym_rows[s].name : "?";
}

int
cuda_sym_version(CuSym s)
{
	return (unsigned)s < CUSYM_COUNT ? sym_rows[s].version : 0;
}

/* Why a lookup failed, from cuGetProcAddress_v2's symbol status. */
static const char *
lookup_reason(int status)
{
	switch (status) {
	case 1: return "symbol not found";
	case 2: return "the driver is older than this ABI version";
	default: return "lookup failed";
	}
}

int
cuda_resolve(CuDriver *d, CuGetProcV2 v2, CuGetProcV1 v1, RtStatus *st)
{
	memset(d, 0, sizeof(*d));
	for (size_t i = 0; i < countof(sym_rows); i++) {
		const SymRow *row = &sym_rows[i];
		void *fn = NULL;
		int status = 0;
		CUresult r = v2 ? v2(row->name, &fn, row->version,
				     CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status)
				: v1(row->name, &fn, row->version,
				     CU_GET_PROC_ADDRESS_LEGACY_STREAM);
		if (r != CUDA_SUCCESS || !fn || status != 0)
			return rt_fail(st, PT_E_RT_NO_SYMBOL,
				       "the CUDA driver has no %s at ABI version "
				       "%d (%s, result %d)",
				       row->name, row->version,
				       lookup_reason(status), r);
		/* The field is a function pointer of the row's signature;
		 * copying the object representation keeps ISO C happy. */
		memcpy((char *)d + row->offset, &fn, sizeof(fn));
	}
	return PT_OK;
}

int
cuda_load(CuDriver *d, void **dl, RtStatus *st)
{
	*dl = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!*dl) {
		const char *why = dlerror();
		return rt_fail(st, PT_E_RT_NO_DRIVER,
			       "cannot open the CUDA driver libcuda.so.1: %s",
			       why ? why : "unknown reason");
	}
	CuGetProcV2 v2 = NULL;
	CuGetProcV1 v1 = NULL;
	void *p = dlsym(*dl, "cuGetProcAddress_v2");
	if (p) {
		memcpy(&v2, &p, sizeof(p));
	} else {
		p = dlsym(*dl, "cuGetProcAddress");
		memcpy(&v1, &p, sizeof(p));
	}
	if (!v2 && !v1) {
		dlclose(*dl);
		*dl = NULL;
		return rt_fail(st, PT_E_RT_NO_SYMBOL,
			       "libcuda.so.1 has no cuGetProcAddress "
			       "(a driver for CUDA 11.3 or later is needed)");
	}
	int rc = cuda_resolve(d, v2, v1, st);
	if (rc != PT_OK) {
		dlclose(*dl);
		*dl = NULL;
	}
	return rc;
}

void
cuda_unload(void *dl)
{
	dlclose(dl);
}
