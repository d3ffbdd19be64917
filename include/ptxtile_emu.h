/*
 * ptxtile_emu.h - the PTX emulator: runs the PTX text ptxtile emits on the
 * CPU (docs/emulator.md says what is modelled).
 *
 *     ptem *e = ptem_new();
 *     ptem_load(e, ptx, strlen(ptx));          // the module's PTX text
 *     uint64_t a; ptem_alloc(e, 256, &a);      // emulated global memory
 *     memcpy(ptem_host(e, a, 256), data, 256);
 *     ptem_arg args[] = {{&a, 8}};
 *     ptem_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}};
 *     if (ptem_run(e, "kernel", &l, args, 1)) puts(ptem_errmsg(e));
 *
 * A ptem owns one arena holding the module, the global memory and every
 * run's state; nothing is global, so independent ptem objects may be used
 * from different threads.  Every call returns PT_OK or a PT_E_EMU_* code
 * (include/ptxtile/codes/emu.def) with the details, naming the CTA, thread
 * and PTX line where a run failed, in ptem_errmsg().
 */
#ifndef PTXTILE_EMU_H
#define PTXTILE_EMU_H

#include <stddef.h>
#include <stdint.h>

#include "ptxtile.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ptem ptem;

enum {
	/* Each asynchronous copy completes only when the program must
	 * observe it (an mbarrier wait or wait_group that would otherwise
	 * block), and reading its destination or overwriting its source
	 * before then is an error: a missing wait shows, not a lucky result. */
	PTEM_LATE_COMPLETION = 1u << 0,
	/* Report shared-memory races: two threads touch the same bytes, at
	 * least one writing, with no synchronisation between (a CTA or
	 * cluster barrier, an mbarrier phase completing, a warp collective;
	 * docs/emulator.md says how coarse this is). */
	PTEM_CHECK_RACES = 1u << 1,
	/* Group runs: report a global access that races with another
	 * device's write - no release/acquire (or fence) synchronisation
	 * between them at .sys scope (docs/emulator.md, "Several devices"). */
	PTEM_CHECK_ORDER = 1u << 2,
};

typedef struct ptem_launch {
	unsigned grid[3];    /* CTAs; 0 counts as 1 */
	unsigned block[3];   /* threads per CTA; 0 counts as 1 */
	unsigned cluster[3]; /* CTAs per cluster; 0 counts as 1 */
	unsigned dynamic_smem; /* bytes of dynamic shared memory */
	unsigned flags;        /* PTEM_* */
	uint64_t max_steps;    /* instructions over all threads; 0: 2^32 */
} ptem_launch;

/* One kernel parameter: its bytes, exactly the size the PTX declares (a
 * pointer is 8 bytes holding an address from ptem_alloc, a tensor map 128). */
typedef struct ptem_arg {
	const void *data;
	size_t size;
} ptem_arg;

/* A tensor map: the arguments of cuTensorMapEncodeTiled (CUDA driver API;
 * arrays innermost first, strides in bytes for dims 1..rank-1, enums with
 * the driver's numbers).  The driver's 128-byte image is undocumented, so
 * the emulator has its own: ptem_tensormap_encode writes it, and a kernel
 * parameter (or global/param memory) holding it is what
 * cp.async.bulk.tensor reads. */
typedef struct ptem_tma_desc {
	int format;       /* CUtensorMapDataType */
	int rank;         /* 1..5 */
	uint64_t addr;    /* global address from ptem_alloc */
	uint64_t dims[5];
	uint64_t strides[4];
	uint32_t box[5];
	uint32_t elem_strides[5];
	int interleave;   /* 0 none, 1 16B, 2 32B */
	int swizzle;      /* CUtensorMapSwizzle 0..6 */
	int oob_fill;     /* 0 zeros, 1 NaN */
} ptem_tma_desc;

PT_API int ptem_tensormap_encode(const ptem_tma_desc *d, void *map128);

PT_API ptem *ptem_new(void);
PT_API void ptem_free(ptem *e);
/* Reads a PTX module (replacing one loaded before). */
PT_API int ptem_load(ptem *e, const char *ptx, size_t len);
/* Zeroed emulated global memory of the given size; *addr its address. */
PT_API int ptem_alloc(ptem *e, size_t bytes, uint64_t *addr);
/* The host view of [addr, addr + bytes) of global memory, or NULL when
 * that range is not inside one allocation. */
PT_API void *ptem_host(ptem *e, uint64_t addr, size_t bytes);
/* Runs kernel to completion (clusters one after another, the CTAs of a
 * cluster and the threads of a CTA interleaved). */
PT_API int ptem_run(ptem *e, const char *kernel, const ptem_launch *l,
		    const ptem_arg *args, size_t nargs);
PT_API const char *ptem_errmsg(const ptem *e);
/* Instructions executed by the last run, over all threads. */
PT_API uint64_t ptem_steps(const ptem *e);

/* ---- several devices ----
 * A group of 1..PTEM_MAX_DEVICES emulated devices, each a ptem with its
 * own module and global memory.  Device d allocates from its own address
 * window, WIN(d) = 0x100000000 + d * PTEM_DEVICE_WINDOW, and every device
 * reaches every other's allocations through those addresses (a peer
 * pointer is just an address in another window, as with CUDA's unified
 * addressing); ptem_host of any group member sees them all.
 *
 *     ptem_group *g = ptem_group_new(2);
 *     for (d = 0; d < 2; d++) ptem_load(ptem_group_device(g, d), ptx, len);
 *     ... ptem_alloc(ptem_group_device(g, d), ...) ...
 *     ptem_device_launch ls[2] = {{"k", l0, args0, n0}, {"k", l1, args1, n1}};
 *     if (ptem_group_run(g, ls, 2)) puts(ptem_group_errmsg(g));
 *
 * ptem_group_run runs one launch per device, interleaved (a scheduling
 * round of one device, then of the next), so a device spinning on a flag
 * another device sets makes progress.  When every unfinished device has
 * run PTEM_LIVELOCK_WINDOW instructions in a row that cannot end a spin
 * (loads, ALU, branches, fences) the run fails with
 * PT_E_EMU_LIVELOCK, naming the spinning instruction. */
#define PTEM_MAX_DEVICES 8
#define PTEM_DEVICE_WINDOW (1ull << 40)
#define PTEM_LIVELOCK_WINDOW (1ull << 22)

typedef struct ptem_group ptem_group;

typedef struct ptem_device_launch {
	const char *kernel;
	ptem_launch launch;
	const ptem_arg *args;
	size_t nargs;
} ptem_device_launch;

PT_API ptem_group *ptem_group_new(unsigned ndevices);
/* Frees the group and its devices (ptem_free of a device is a no-op). */
PT_API void ptem_group_free(ptem_group *g);
PT_API unsigned ptem_group_size(const ptem_group *g);
/* Device d (NULL when out of range). */
PT_API ptem *ptem_group_device(ptem_group *g, unsigned d);
/* Launch ls[d] on device d, for every device (n == the group's size). */
PT_API int ptem_group_run(ptem_group *g, const ptem_device_launch *ls,
			  size_t n);
/* "device D: " and that device's message, for the last failed run. */
PT_API const char *ptem_group_errmsg(const ptem_group *g);

#ifdef __cplusplus
}
#endif

#endif
