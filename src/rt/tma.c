/*
 * tma.c - cuTensorMapEncodeTiled arguments for a compiler-recorded tensor
 * map slot and the tensor argument it is built from.
 *
 * Input: a TmaSlot (box, element strides, format, interleave, swizzle, L2
 * promotion, OOB fill; innermost first) and a tensor ptrt_arg (shape and
 * byte strides outermost first).  Output: a TmaEncode holding exactly what
 * the driver receives, after checking the limits of ptx_facts.md §4.2, so
 * that a bad tensor gets a clear message instead of the driver's
 * CUDA_ERROR_INVALID_VALUE.  tma_compute is pure (unit-tested without a
 * GPU); tma_encode makes the driver call and applies the §8 workaround.
 */
#include <stdio.h>
#include <string.h>

#include "rt/rt.h"

/* Bits of one element of a driver format. */
static int
format_bits(TmaFormat f)
{
	switch (f) {
	case TMA_UINT8: return 8;
	case TMA_UINT16: case TMA_FLOAT16: case TMA_BFLOAT16: return 16;
	case TMA_UINT64: case TMA_INT64: case TMA_FLOAT64: return 64;
	case TMA_16U4_ALIGN8B: case TMA_16U4_ALIGN16B: return 4;
	case TMA_16U6_ALIGN16B: return 6;
	default: return 32;
	}
}

static bool
format_is_float(TmaFormat f)
{
	return f == TMA_FLOAT16 || f == TMA_FLOAT32 || f == TMA_FLOAT64 ||
	       f == TMA_BFLOAT16 || f == TMA_FLOAT32_FTZ ||
	       f == TMA_TFLOAT32 || f == TMA_TFLOAT32_FTZ;
}

/* The ALIGN16B packed formats and 32-byte interleave need 32-byte
 * alignment of the address and the strides; everything else 16. */
static uint64_t
required_align(const TmaSlot *s)
{
	return (s->interleave == 2 || s->format == TMA_16U4_ALIGN16B ||
		s->format == TMA_16U6_ALIGN16B)
		       ? 32
		       : 16;
}

/* Largest inner box in bytes for a swizzle mode (0 = no limit). */
static uint64_t
swizzle_span(int swizzle)
{
	static const uint64_t span[] = {0, 32, 64, 128, 128, 128, 128};
	return swizzle >= 0 && swizzle < 7 ? span[swizzle] : 0;
}

static uint64_t
sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* Map dim i (innermost first) of size d and, for i > 0, byte stride b:
 * the limits every map shares. */
static int
set_dim(const char *pn, int i, int64_t d, TmaEncode *e, RtStatus *st)
{
	if (d < 1 || d > (int64_t)1 << 32)
		return rt_fail(st, PT_E_RT_TMA_LIMIT,
			       "tensor map \"%s\": size %lld of dim %d "
			       "(innermost first) is outside [1, 2^32]",
			       pn, (long long)d, i);
	e->dims[i] = (uint64_t)d;
	return PT_OK;
}

static int
set_stride(const char *pn, int i, int64_t b, uint64_t al, TmaEncode *e,
	   RtStatus *st)
{
	if (b <= 0 || (uint64_t)b % al != 0 || b >= (int64_t)1 << 40)
		return rt_fail(st, PT_E_RT_ARG_STRIDE,
			       "tensor map \"%s\": stride %lld bytes of "
			       "dim %d (innermost first) must be a "
			       "positive multiple of %llu below 2^40",
			       pn, (long long)b, i, (unsigned long long)al);
	e->strides[i - 1] = (uint64_t)b;
	return PT_OK;
}

/* Interleaved tensors written (N, C_slices, *spatial, Ci): the Ci axis
 * is one dense 16-byte (interleave 16B) or 32-byte (32B) channel slice,
 * the map's unit; the map's dims are the other axes, innermost first,
 * dim 0's stride being that slice.  Returns the slice bytes. */
static int
check_slice_axis(const TmaSlot *s, const char *pn, const ptrt_arg *t,
		 TmaEncode *e, RtStatus *st, uint64_t *slice)
{
	int n = t->tensor.ndim, bits = format_bits(s->format);
	uint64_t want = s->interleave == 2 ? 32 : 16;
	int64_t ci = t->tensor.shape[n - 1];
	*slice = want;
	/* ci bounded before the product: a hostile extent cannot wrap */
	if (ci < 1 || ci > 256 || (uint64_t)ci * (uint64_t)bits != want * 8 ||
	    (bits >= 8 && t->tensor.strides[n - 1] != bits / 8) ||
	    (uint64_t)t->tensor.strides[n - 2] != want)
		return rt_fail(st, PT_E_RT_ARG_STRIDE,
			       "tensor map \"%s\": the innermost axis of an "
			       "interleaved tensor is one dense %llu-byte "
			       "channel slice right after the previous one "
			       "(found %lld elements, strides %lld and %lld "
			       "bytes)", pn, (unsigned long long)want,
			       (long long)ci,
			       (long long)t->tensor.strides[n - 1],
			       (long long)t->tensor.strides[n - 2]);
	uint64_t al = required_align(s);
	int rc;
	for (int i = 0; i < s->rank; i++)
		if ((rc = set_dim(pn, i, t->tensor.shape[n - 2 - i], e, st)) !=
			    PT_OK ||
		    (i > 0 && (rc = set_stride(pn, i,
					       t->tensor.strides[n - 2 - i],
					       al, e, st)) != PT_OK))
			return rc;
	return PT_OK;
}

static int
check_dims_strides(const TmaSlot *s, const char *pn, const ptrt_arg *t,
		   TmaEncode *e, RtStatus *st)
{
	int n = t->tensor.ndim, bits = format_bits(s->format), rc;
	uint64_t al = required_align(s);
	for (int i = 0; i < n; i++)
		if ((rc = set_dim(pn, i, t->tensor.shape[n - 1 - i], e, st)) !=
		    PT_OK)
			return rc;
	if (bits >= 8 && t->tensor.strides[n - 1] != bits / 8)
		return rt_fail(st, PT_E_RT_ARG_STRIDE,
			       "tensor map \"%s\": the innermost stride is %lld "
			       "bytes; TMA needs it to be the element size (%d)",
			       pn, (long long)t->tensor.strides[n - 1], bits / 8);
	for (int i = 1; i < n; i++)
		if ((rc = set_stride(pn, i, t->tensor.strides[n - 1 - i], al,
				     e, st)) != PT_OK)
			return rc;
	return PT_OK;
}

static int
check_box(const TmaSlot *s, const char *pn, const TmaEncode *e, RtStatus *st)
{
	int bits = format_bits(s->format);
	uint64_t inner = (uint64_t)s->box[0] * (uint64_t)bits / 8;
	bool align16b = s->format == TMA_16U4_ALIGN16B ||
			s->format == TMA_16U6_ALIGN16B;
	if (s->interleave == 0 && ((uint64_t)s->box[0] * bits) % 128 != 0)
		return rt_fail(st, PT_E_RT_TMA_LIMIT,
			       "tensor map \"%s\": the inner box (%u elements) "
			       "is not a multiple of 16 bytes",
			       pn, s->box[0]);
	if (align16b && s->box[0] != 128)
		return rt_fail(st, PT_E_RT_TMA_LIMIT,
			       "tensor map \"%s\": packed 16-byte-aligned "
			       "formats need an inner box of 128, not %u",
			       pn, s->box[0]);
	if (align16b && e->dims[0] % 128 != 0)
		return rt_fail(st, PT_E_RT_TMA_LIMIT,
			       "tensor map \"%s\": packed 16-byte-aligned "
			       "formats need the inner size to be a multiple of "
			       "128, not %llu",
			       pn, (unsigned long long)e->dims[0]);
	if (s->format == TMA_16U4_ALIGN8B && e->dims[0] % 2 != 0)
		return rt_fail(st, PT_E_RT_TMA_LIMIT,
			       "tensor map \"%s\": packed 4-bit data needs an "
			       "even inner size, not %llu",
			       pn, (unsigned long long)e->dims[0]);
	uint64_t span = swizzle_span(s->swizzle);
	if (s->interleave == 0 && span && inner > span)
		return rt_fail(st, PT_E_RT_TMA_LIMIT,
			       "tensor map \"%s\": the inner box is %llu bytes, "
			       "more than the %llu-byte swizzle span",
			       pn, (unsigned long long)inner,
			       (unsigned long long)span);
	return PT_OK;
}

static int
check_modes(const TmaSlot *s, const char *pn, RtStatus *st)
{
	if (s->interleave != 0 && s->rank < 3)
		return rt_fail(st, PT_E_RT_TMA_LIMIT,
			       "tensor map \"%s\": interleaved maps need rank "
			       ">= 3, not %d", pn, s->rank);
	if (s->interleave == 2 && s->swizzle != 1)
		return rt_fail(st, PT_E_RT_TMA_LIMIT,
			       "tensor map \"%s\": 32-byte interleave needs "
			       "the 32B swizzle", pn);
	if (s->oob_fill == 1 && !format_is_float(s->format))
		return rt_fail(st, PT_E_RT_TMA_LIMIT,
			       "tensor map \"%s\": NaN out-of-bounds fill needs "
			       "a floating-point format", pn);
	return PT_OK;
}

/* Index of the last byte the map can touch, as the driver workaround
 * measures it: sum over dims of (size - 1) * byte stride. */
static uint64_t
max_byte_index(const TmaEncode *e, int bits)
{
	uint64_t m = sat_mul(e->dims[0] - 1, (uint64_t)bits) / 8;
	for (uint32_t i = 1; i < e->rank; i++)
		m = sat_add(m, sat_mul(e->dims[i] - 1, e->strides[i - 1]));
	return m;
}

/* A region of the tensor: the map starts at the region origin (byte
 * offset sum origin[i] * stride[i]) and its dims are the region's
 * extents, so out-of-bounds fill happens at the region's edges. */
static int
apply_region(const TmaSlot *s, const char *pn, int bits, TmaEncode *e,
	     RtStatus *st)
{
	uint64_t off = 0;
	for (int i = 0; i < s->rank; i++) {
		uint64_t o = s->region_origin[i], d = e->dims[i];
		uint64_t x = s->region_extent[i] ? s->region_extent[i]
						 : (o < d ? d - o : 0);
		if (o >= d || x == 0 || x > d - o)
			return rt_fail(st, PT_E_RT_TMA_LIMIT,
				       "tensor map \"%s\": the region %llu..%llu "
				       "of dim %d (innermost first) leaves the "
				       "tensor's %llu elements", pn,
				       (unsigned long long)o,
				       (unsigned long long)(o + x - 1), i,
				       (unsigned long long)d);
		off = sat_add(off, i == 0 ? sat_mul(o, (uint64_t)bits) / 8
					  : sat_mul(o, e->strides[i - 1]));
		e->dims[i] = x;
	}
	uint64_t al = required_align(s);
	if (sat_add(e->addr, off) % al != 0)
		return rt_fail(st, PT_E_RT_ARG_ALIGN,
			       "tensor map \"%s\": the region starts %llu bytes "
			       "into the tensor, at an address not %llu-byte "
			       "aligned", pn, (unsigned long long)off,
			       (unsigned long long)al);
	e->addr += off;
	return PT_OK;
}

int
tma_compute(const TmaSlot *slot, const char *pname, const ptrt_arg *t,
	    TmaEncode *out, RtStatus *st)
{
	memset(out, 0, sizeof(*out));
	int bits = format_bits(slot->format);
	bool sliced = slot->interleave && t->kind == PTRT_ARG_TENSOR &&
		      t->tensor.ndim == slot->rank + 1;
	if (t->kind != PTRT_ARG_TENSOR ||
	    (t->tensor.ndim != slot->rank && !sliced))
		return rt_fail(st, PT_E_RT_TMA_LIMIT,
			       "tensor map \"%s\": needs a tensor of rank %d",
			       pname, slot->rank);
	if (sliced && slot->region)
		return rt_fail(st, PT_E_RT_TMA_LIMIT,
			       "tensor map \"%s\": an interleaved map covers "
			       "the whole tensor, not a region", pname);
	if (dtype_bits_rt(t->dtype) != bits)
		return rt_fail(st, PT_E_RT_TMA_LIMIT,
			       "tensor map \"%s\": the format has %d-bit "
			       "elements but the tensor is %s",
			       pname, bits, ptrt_dtype_name(t->dtype));
	uint64_t al = required_align(slot);
	if (t->tensor.ptr % al != 0)
		return rt_fail(st, PT_E_RT_ARG_ALIGN,
			       "tensor map \"%s\": global address 0x%llx is not "
			       "%llu-byte aligned",
			       pname, (unsigned long long)t->tensor.ptr,
			       (unsigned long long)al);
	out->format = slot->format;
	out->rank = (uint32_t)slot->rank;
	out->addr = t->tensor.ptr;
	int rc;
	uint64_t slice = 0;
	if ((rc = check_modes(slot, pname, st)) != PT_OK ||
	    (rc = sliced ? check_slice_axis(slot, pname, t, out, st, &slice)
			 : check_dims_strides(slot, pname, t, out, st)) !=
		    PT_OK ||
	    (slot->region &&
	     (rc = apply_region(slot, pname, bits, out, st)) != PT_OK) ||
	    (rc = check_box(slot, pname, out, st)) != PT_OK)
		return rc;
	memcpy(out->box, slot->box, sizeof(out->box));
	memcpy(out->elem_strides, slot->elem_strides,
	       sizeof(out->elem_strides));
	out->interleave = slot->interleave;
	out->swizzle = slot->swizzle;
	out->l2_promotion = slot->l2_promotion;
	out->oob_fill = slot->oob_fill;
	/* a slice-axis map steps dim 0 by whole slices */
	out->max_byte_index = max_byte_index(out, slice ? (int)slice * 8
							: bits);
	return PT_OK;
}

bool
tma_needs_bit85_fix(int driver_version, const TmaEncode *e)
{
	return driver_version <= 13010 && e->max_byte_index < 128 * 1024 - 1;
}

void
tma_clear_bit85(CUtensorMap *map)
{
	map->opaque[1] &= ~((uint64_t)1 << 21);
}

int
tma_encode(ptrt_ctx *rt, const TmaEncode *e, CUtensorMap *map,
	   const char *pname)
{
	char what[160];
	snprintf(what, sizeof(what), "encoding tensor map \"%s\"", pname);
	int rc = CU(rt, what, tensor_map_encode_tiled, map, (int)e->format,
		    e->rank, (void *)(uintptr_t)e->addr, e->dims, e->strides,
		    e->box, e->elem_strides, e->interleave, e->swizzle,
		    e->l2_promotion, e->oob_fill);
	if (rc == PT_OK && tma_needs_bit85_fix(rt->driver_version, e))
		tma_clear_bit85(map);
	return rc;
}

/* The driver format of a tensor of dtype t, false when TMA has none. */
static bool
format_of(ptrt_dtype t, TmaFormat *f)
{
	switch (t) {
	case PTRT_BOOL: case PTRT_INT8: case PTRT_UINT8:
	case PTRT_FLOAT8_E4M3FN: case PTRT_FLOAT8_E5M2: *f = TMA_UINT8; break;
	case PTRT_INT16: case PTRT_UINT16: *f = TMA_UINT16; break;
	case PTRT_FLOAT16: *f = TMA_FLOAT16; break;
	case PTRT_BFLOAT16: *f = TMA_BFLOAT16; break;
	case PTRT_INT32: *f = TMA_INT32; break;
	case PTRT_UINT32: *f = TMA_UINT32; break;
	case PTRT_FLOAT32: *f = TMA_FLOAT32; break;
	case PTRT_TF32: *f = TMA_TFLOAT32; break;
	case PTRT_INT64: *f = TMA_INT64; break;
	case PTRT_UINT64: *f = TMA_UINT64; break;
	case PTRT_FLOAT64: *f = TMA_FLOAT64; break;
	default: return false;
	}
	return true;
}

int
ptrt_tensor_map_encode(ptrt_ctx *rt, const ptrt_arg *tensor,
		       const uint32_t *box, int swizzle, void *map128)
{
	if (!rt)
		return PT_E_RT_BAD_CALL;
	rt->st.code = PT_OK;
	if (!tensor || !box || !map128 || (uintptr_t)map128 % 64 ||
	    !rt->cuctx)
		return rt_fail(&rt->st, PT_E_RT_BAD_CALL,
			       "ptrt_tensor_map_encode: needs an open context, "
			       "a tensor, a box and a 64-byte aligned map");
	TmaSlot s;
	memset(&s, 0, sizeof(s));
	int n = tensor->kind == PTRT_ARG_TENSOR ? tensor->tensor.ndim : 0;
	if (n < 1 || n > TMA_MAX_RANK || !format_of(tensor->dtype, &s.format))
		return rt_fail(&rt->st, PT_E_RT_TMA_LIMIT,
			       "ptrt_tensor_map_encode: a tensor of rank 1 to "
			       "5 of a dtype TMA moves is needed");
	s.rank = n;
	for (int i = 0; i < n; i++) { /* innermost first, as TmaSlot */
		s.box[i] = box[n - 1 - i];
		s.elem_strides[i] = 1;
	}
	s.swizzle = swizzle;
	s.l2_promotion = 2; /* 128 B, as compiler-recorded maps */
	TmaEncode e;
	int rc = CU(rt, NULL, ctx_set_current, rt->cuctx);
	if (rc == PT_OK)
		rc = tma_compute(&s, "(ptrt_tensor_map_encode)", tensor, &e,
				 &rt->st);
	return rc != PT_OK ? rc
			   : tma_encode(rt, &e, map128, "(ptrt_tensor_map_encode)");
}
