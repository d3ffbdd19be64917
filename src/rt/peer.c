/*
 * peer.c - where each pointer argument of a launch lives, and whether the
 * launch device can reach it.
 *
 * Input: the tensor arguments of a planned launch and the driver's
 * cuPointerGetAttributes.  Output: PT_OK, with peer access enabled where a
 * plain allocation of another device needs it, or a refusal naming the
 * argument and both devices: PT_E_RT_PEER_UNREACHABLE (no peer access
 * between the devices), PT_E_RT_PEER_NO_ACCESS (mapped or pool memory
 * whose access flags leave the launch device out), PT_E_RT_PEER_ENABLE
 * (cuCtxEnablePeerAccess failed).
 *
 * The launch path stays cheap: an accepted pointer's allocation range is
 * remembered (a small cache on the ptrt_ctx), so a pointer into it costs
 * a few compares on later launches and no driver call.  A verdict holds
 * until ptrt_free of a pointer in the range or ptrt_forget_pointers; a
 * range freed elsewhere and reused by another device's allocation keeps
 * its old verdict, which is the runtime's behaviour before this check.
 *
 * The common case (an allocation of the launch device's own context) is
 * decided by the long-standing attributes alone; the access flags
 * (CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, the flags the current context's
 * device has - what cuMemSetAccess and cuMemPoolSetAccess grant) are read
 * only for device memory of another device or of no context.
 */
#include <stdio.h>
#include <string.h>

#include "rt/rt.h"

/* CUpointer_attribute and CUmemorytype values (cuda.h). */
enum {
	CU_POINTER_ATTRIBUTE_CONTEXT = 1,
	CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
	CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
	CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
	CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
	CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
	CU_POINTER_ATTRIBUTE_ACCESS_FLAGS = 16,
	CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE = 17,
	CU_MEMORYTYPE_HOST = 1,
	CU_MEMORYTYPE_DEVICE = 2,
	CU_ACCESS_FLAG_READ = 1,
	CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
};

PtrClass
ptr_class_basic(const PtrAttrs *a, int launch_ordinal)
{
	if (a->memtype == 0)
		return PTR_UNKNOWN; /* not the driver's: HMM host memory, or
				     * garbage the kernel will fault on */
	if (a->managed || a->memtype != CU_MEMORYTYPE_DEVICE)
		return PTR_HOST; /* host, unified or managed memory */
	if (a->ctx && a->ordinal == launch_ordinal)
		return PTR_LOCAL;
	return PTR_ASK_ACCESS;
}

PtrClass
ptr_class_access(const PtrAttrs *a, int launch_ordinal)
{
	if (a->access & CU_ACCESS_FLAG_READ)
		return PTR_GRANTED;
	/* a plain allocation of another device's context: peer access */
	if (a->ctx && !a->pool && a->ordinal != launch_ordinal)
		return PTR_PEER;
	return PTR_NO_ACCESS;
}

/* 8 zeroed bytes per attribute: the driver writes an int, an unsigned,
 * a bool, a pointer or a 64-bit value at the start of each, and on a
 * little-endian host the low bytes read back the same whatever width it
 * wrote. */
static CUresult
query(ptrt_ctx *rt, uint64_t p, const int *ids, unsigned n, uint64_t *vals)
{
	void *data[8];
	memset(vals, 0, n * sizeof(*vals));
	for (unsigned i = 0; i < n; i++)
		data[i] = &vals[i];
	return rt->drv.pointer_get_attributes(n, (int *)ids, data, p);
}

static bool
read_basic(ptrt_ctx *rt, uint64_t p, PtrAttrs *a)
{
	static const int ids[] = {
		CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
		CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
		CU_POINTER_ATTRIBUTE_IS_MANAGED,
		CU_POINTER_ATTRIBUTE_CONTEXT,
		CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
		CU_POINTER_ATTRIBUTE_RANGE_SIZE,
	};
	uint64_t v[countof(ids)];
	memset(a, 0, sizeof(*a));
	if (query(rt, p, ids, countof(ids), v) != CUDA_SUCCESS)
		return false;
	a->memtype = (unsigned)(uint32_t)v[0];
	a->ordinal = (int)(int32_t)(uint32_t)v[1];
	a->managed = (v[2] & 0xff) != 0;
	memcpy(&a->ctx, &v[3], sizeof(a->ctx));
	a->start = v[4];
	a->size = v[5];
	return true;
}

static CUresult
read_access(ptrt_ctx *rt, uint64_t p, PtrAttrs *a)
{
	static const int ids[] = {
		CU_POINTER_ATTRIBUTE_ACCESS_FLAGS,
		CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
	};
	uint64_t v[countof(ids)];
	CUresult r = query(rt, p, ids, countof(ids), v);
	a->access = (unsigned)(v[0] & 0xff);
	a->pool = v[1];
	return r;
}

static bool
cached(const ptrt_ctx *rt, uint64_t p)
{
	for (unsigned i = 0; i < rt->nptr_ok; i++)
		if (p - rt->ptr_ok[i].start < rt->ptr_ok[i].size)
			return true;
	return false;
}

static void
remember(ptrt_ctx *rt, uint64_t p, const PtrAttrs *a)
{
	PtrRange r = {a->start, a->size};
	if (a->size == 0 || p - a->start >= a->size)
		r = (PtrRange){p, 1}; /* the driver gave no range */
	unsigned i = rt->nptr_ok < RT_PTR_CACHE ? rt->nptr_ok++
						: rt->ptr_next++ % RT_PTR_CACHE;
	rt->ptr_ok[i] = r;
}

void
peer_forget(ptrt_ctx *rt, uint64_t p)
{
	for (unsigned i = 0; i < rt->nptr_ok;)
		if (p - rt->ptr_ok[i].start < rt->ptr_ok[i].size)
			rt->ptr_ok[i] = rt->ptr_ok[--rt->nptr_ok];
		else
			i++;
}

void
ptrt_forget_pointers(ptrt_ctx *rt)
{
	if (rt)
		rt->nptr_ok = rt->ptr_next = 0;
}

/* "device 1", or "an unknown device" when the driver gave no ordinal. */
static const char *
device_word(char *buf, size_t n, int ordinal)
{
	if (ordinal < 0)
		return "an unknown device";
	snprintf(buf, n, "CUDA device %d", ordinal);
	return buf;
}

/* Enables access from the launch context to a's device (its context);
 * "already enabled" is success. */
static int
enable_peer(ptrt_ctx *rt, const char *who, uint64_t p, const PtrAttrs *a)
{
	CUdevice peer;
	int can = 0, rc;
	char what[240];
	snprintf(what, sizeof(what),
		 "%s: pointer 0x%llx of CUDA device %d, "
		 "launching on device %d",
		 who, (unsigned long long)p, a->ordinal, rt->ordinal);
	if ((rc = CU(rt, what, device_get, &peer, a->ordinal)) != PT_OK ||
	    (rc = CU(rt, what, device_can_access_peer, &can, rt->dev, peer)) !=
		    PT_OK)
		return rc;
	if (!can)
		return rt_fail(&rt->st, PT_E_RT_PEER_UNREACHABLE,
			       "%s: device %d cannot reach device %d's memory "
			       "(cuDeviceCanAccessPeer says no peer access "
			       "between them); copy the data to device %d or "
			       "launch on device %d",
			       what, rt->ordinal, a->ordinal, rt->ordinal,
			       a->ordinal);
	CUresult r = rt->drv.ctx_enable_peer_access(a->ctx, 0);
	if (r == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
		return PT_OK;
	return rt_cu_check(rt, r, CUSYM_ctx_enable_peer_access,
			   PT_E_RT_PEER_ENABLE, what);
}

/* who: "argument 1 (\"x\")", what messages call the pointer. */
static int
check_pointer(ptrt_ctx *rt, const char *who, uint64_t p)
{
	PtrAttrs a;
	if (!read_basic(rt, p, &a))
		return PT_OK; /* no verdict: launched as before this check */
	PtrClass c = ptr_class_basic(&a, rt->ordinal);
	if (c == PTR_UNKNOWN)
		return PT_OK;
	if (c == PTR_ASK_ACCESS) {
		char what[160];
		snprintf(what, sizeof(what),
			 "%s: reading the access flags of "
			 "pointer 0x%llx",
			 who, (unsigned long long)p);
		int rc = rt_cu_check(rt, read_access(rt, p, &a),
				     CUSYM_pointer_get_attributes, 0, what);
		if (rc != PT_OK)
			return rc;
		c = ptr_class_access(&a, rt->ordinal);
	}
	if (c == PTR_PEER) {
		int rc = enable_peer(rt, who, p, &a);
		if (rc != PT_OK)
			return rc;
	} else if (c == PTR_NO_ACCESS) {
		char dev[40];
		return rt_fail(
			&rt->st, PT_E_RT_PEER_NO_ACCESS,
			"%s: pointer 0x%llx is %s memory of %s without "
			"access for the launch device %d (its access "
			"flags for device %d are none; cuMemSetAccess or "
			"cuMemPoolSetAccess grants it)",
			who, (unsigned long long)p,
			a.pool ? "memory-pool" : "mapped (cuMemMap)",
			device_word(dev, sizeof(dev), a.ordinal), rt->ordinal,
			rt->ordinal);
	}
	remember(rt, p, &a);
	return PT_OK;
}

int
peer_check_args(ptrt_ctx *rt, const RtKernelMeta *k, const ptrt_arg *args)
{
	for (size_t i = 0; i < k->nparams; i++) {
		const RtParam *q = &k->params[i];
		if (q->kind != RP_TENSOR)
			continue;
		uint64_t p = args[q->arg].tensor.ptr;
		if (cached(rt, p))
			continue;
		char who[100];
		snprintf(who, sizeof(who), "argument %d (\"%.60s\")",
			 q->arg + 1, q->name);
		int rc = check_pointer(rt, who, p);
		if (rc != PT_OK)
			return rc;
	}
	return PT_OK;
}

int
ptrt_reach_pointer(ptrt_ctx *rt, ptrt_devptr p, const char *name)
{
	if (!rt)
		return PT_E_RT_BAD_CALL;
	rt->st.code = PT_OK;
	if (!rt->cuctx)
		return rt_fail(&rt->st, PT_E_RT_BAD_CALL,
			       "the runtime context was not opened");
	int rc = CU(rt, NULL, ctx_set_current, rt->cuctx);
	if (rc != PT_OK || cached(rt, p))
		return rc;
	char who[100];
	snprintf(who, sizeof(who), "\"%.80s\"", name ? name : "pointer");
	return check_pointer(rt, who, p);
}
