/*
 * abi.c - the library's own tables, read by bindings that must not copy
 * them (the Python package, issue 21): dtypes, targets, axes, importable
 * builtin names, and the layout of every struct the package passes to
 * the libraries through ctypes.  Each row comes straight from the .def
 * table or the public header the compiler itself uses, so a binding that
 * reads them at load cannot drift from the C side.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ptxtile.h"
#include "ptxtile_emu.h"
#include "ptxtile_rt.h"

#define countof(a) (sizeof(a) / sizeof((a)[0]))

typedef struct AbiRow {
	const char *name;
	long long a, b;
} AbiRow;

enum { K_BOOL, K_INT, K_UINT, K_FLOAT, K_BITS };
static const AbiRow dtypes[] = {
#define DTYPE(id, name, bits, kind, ptx) {name, bits, K_##kind},
#include "ir/dtypes.def"
#undef DTYPE
};

static const AbiRow targets[] = {
#define TARGET(id, name, sm, specific) {name, sm, specific},
#include "base/targets.def"
#undef TARGET
};

enum { STORAGE, THREAD, CTA, TMEM };
static const AbiRow axes[] = {
#define AXIS(id, name, kind) {name, kind, 0},
#include "layout/axes.def"
#undef AXIS
};

enum { LAYOUT, AXIS };
static const AbiRow imports[] = {
#define IMPORT(name, module) {name, module, 0},
#include "ir/imports.def"
#undef IMPORT
};

/* "T": sizeof and alignment; "T.f": offset and size of field f (the
 * braces at each row keep the macros plain expression lists). */
#define STRUCT(T) #T, sizeof(T), _Alignof(T)
#define FIELD(T, f) #T "." #f, offsetof(T, f), sizeof(((T *)0)->f)
static const AbiRow structs[] = {
	{STRUCT(ptrt_packed_launch)},
	{FIELD(ptrt_packed_launch, kernel)},
	{FIELD(ptrt_packed_launch, args)},
	{FIELD(ptrt_packed_launch, nargs)},
	{FIELD(ptrt_packed_launch, nslots)},
	{FIELD(ptrt_packed_launch, slot_offset)},
	{FIELD(ptrt_packed_launch, slot_size)},
	{FIELD(ptrt_packed_launch, stream)},
	{FIELD(ptrt_packed_launch, slot)},
	{STRUCT(ptrt_plan_tma)},
	{FIELD(ptrt_plan_tma, format)},
	{FIELD(ptrt_plan_tma, rank)},
	{FIELD(ptrt_plan_tma, addr)},
	{FIELD(ptrt_plan_tma, dims)},
	{FIELD(ptrt_plan_tma, strides)},
	{FIELD(ptrt_plan_tma, box)},
	{FIELD(ptrt_plan_tma, elem_strides)},
	{FIELD(ptrt_plan_tma, interleave)},
	{FIELD(ptrt_plan_tma, swizzle)},
	{FIELD(ptrt_plan_tma, oob_fill)},
	{STRUCT(ptrt_plan_param)},
	{FIELD(ptrt_plan_param, size)},
	{FIELD(ptrt_plan_param, is_tma)},
	{FIELD(ptrt_plan_param, bytes)},
	{FIELD(ptrt_plan_param, tma)},
	{STRUCT(ptrt_plan)},
	{FIELD(ptrt_plan, grid)},
	{FIELD(ptrt_plan, block)},
	{FIELD(ptrt_plan, cluster)},
	{FIELD(ptrt_plan, smem)},
	{FIELD(ptrt_plan, nparams)},
	{FIELD(ptrt_plan, params)},
	{STRUCT(ptem_launch)},
	{FIELD(ptem_launch, grid)},
	{FIELD(ptem_launch, block)},
	{FIELD(ptem_launch, cluster)},
	{FIELD(ptem_launch, dynamic_smem)},
	{FIELD(ptem_launch, flags)},
	{FIELD(ptem_launch, max_steps)},
	{STRUCT(ptem_arg)},
	{FIELD(ptem_arg, data)},
	{FIELD(ptem_arg, size)},
	{STRUCT(ptem_tma_desc)},
	{FIELD(ptem_tma_desc, format)},
	{FIELD(ptem_tma_desc, rank)},
	{FIELD(ptem_tma_desc, addr)},
	{FIELD(ptem_tma_desc, dims)},
	{FIELD(ptem_tma_desc, strides)},
	{FIELD(ptem_tma_desc, box)},
	{FIELD(ptem_tma_desc, elem_strides)},
	{FIELD(ptem_tma_desc, interleave)},
	{FIELD(ptem_tma_desc, swizzle)},
	{FIELD(ptem_tma_desc, oob_fill)},
};
#undef FIELD
#undef STRUCT

static const struct {
	const char *name;
	const AbiRow *rows;
	size_t n;
} tables[] = {
	{"dtype", dtypes, countof(dtypes)},
	{"target", targets, countof(targets)},
	{"axis", axes, countof(axes)},
	{"import", imports, countof(imports)},
	{"struct", structs, countof(structs)},
};

const char *
pt_abi_row(const char *table, int i, long long *a, long long *b)
{
	if (!table || i < 0)
		return NULL;
	for (size_t t = 0; t < countof(tables); t++) {
		if (strcmp(tables[t].name, table) || (size_t)i >= tables[t].n)
			continue;
		const AbiRow *r = &tables[t].rows[i];
		if (a)
			*a = r->a;
		if (b)
			*b = r->b;
		return r->name;
	}
	return NULL;
}
