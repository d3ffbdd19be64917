/*
 * signature.c - the metadata's parameters against the PTX entry's own
 * parameter list, before anything is launched.
 *
 * Metadata is input too: a lying parameter list (too few, wrong sizes)
 * would make cuLaunchKernelEx read past the parameter array it is given.
 * For a PTX image every kernel's `.entry NAME(...)` is found outside
 * line comments and its `.param` declarations are compared with the
 * metadata in order: same count, the name <kernel>_<param>, the byte
 * size the runtime passes (8 for a tensor pointer, the dtype's size for
 * a scalar, 4 for a symbolic size, 128 for a tensor map).
 *
 * A cubin (ELF) names no parameters, but ptxas records each kernel's in
 * its section .nv.info.<kernel>: a list of records (byte 0 the format:
 * 1..3 a 4-byte record, 4 a 4-byte header whose bytes 2..3 give the
 * length of the value that follows; byte 1 the attribute).  Attribute
 * 0x17 (EIATTR_KPARAM_INFO) has a 12-byte value: u32 index, u16
 * ordinal, u16 offset, u32 whose bits 18..31 are the size in bytes
 * (read from ptxas 13.0 cubins of known entries: .u64 -> 8, .s32 -> 4,
 * .b8[128] -> 128).  The count and every ordinal's size must match.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/rt.h"

typedef struct PtxParam {
	const char *name; /* not NUL-terminated */
	size_t name_len;
	int64_t size;
} PtxParam;

static bool
is_ident(char ch)
{
	return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
	       (ch >= '0' && ch <= '9') || ch == '_' || ch == '$';
}

static const char *
skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static int64_t
type_size(const char *t, size_t n)
{
	if (n < 3 || t[0] != '.' || !strchr("bsuf", t[1]))
		return 0;
	if (n == 3 && t[2] == '8')
		return 1;
	if (n == 4 && !memcmp(t + 2, "16", 2))
		return 2;
	if (n == 4 && !memcmp(t + 2, "32", 2))
		return 4;
	if (n == 4 && !memcmp(t + 2, "64", 2))
		return 8;
	return 0;
}

static const char *
find_text(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);
	for (; (size_t)(end - p) >= n; p++)
		if (*p == *s && !memcmp(p, s, n))
			return p;
	return NULL;
}

/* Whether the text at p sits after "//" on its line. */
static bool
in_line_comment(const char *start, const char *p)
{
	const char *q = p;
	while (q > start && q[-1] != '\n')
		q--;
	for (; q + 1 < p; q++)
		if (q[0] == '/' && q[1] == '/')
			return true;
	return false;
}

/* The parameter list after ".entry name"; false when absent or not the
 * shape ptxtile emits. */
static bool
find_entry(const char *ptx, size_t len, const char *name, const char **list)
{
	const char *end = ptx + len, *p = ptx;
	size_t n = strlen(name);
	while ((p = find_text(p, end, ".entry"))) {
		const char *q = skip_ws(p + 6, end);
		p += 6;
		if (q == p || (size_t)(end - q) < n || memcmp(q, name, n) ||
		    (q + n < end && is_ident(q[n])) || in_line_comment(ptx, p))
			continue;
		q = skip_ws(q + n, end);
		if (q < end && *q == '(') {
			*list = q + 1;
			return true;
		}
	}
	return false;
}

/* One ".param [.align N] .type name[[N]]"; p after it. */
static bool
read_param(const char **pp, const char *end, PtxParam *out)
{
	const char *p = skip_ws(*pp, end);
	if ((size_t)(end - p) < 6 || memcmp(p, ".param", 6))
		return false;
	p = skip_ws(p + 6, end);
	if ((size_t)(end - p) > 6 && !memcmp(p, ".align", 6)) {
		p = skip_ws(p + 6, end);
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		p = skip_ws(p, end);
	}
	const char *t = p;
	while (p < end && (*p == '.' || is_ident(*p)))
		p++;
	out->size = type_size(t, (size_t)(p - t));
	p = skip_ws(p, end);
	out->name = p;
	while (p < end && is_ident(*p))
		p++;
	out->name_len = (size_t)(p - out->name);
	if (p < end && *p == '[') {
		int64_t k = 0;
		for (p++; p < end && *p >= '0' && *p <= '9'; p++)
			if (ckd_mul64(&k, k, 10) || ckd_add64(&k, k, *p - '0'))
				return false;
		if (p >= end || *p != ']' || ckd_mul64(&out->size, out->size, k))
			return false;
		p++;
	}
	*pp = skip_ws(p, end);
	return out->size > 0 && out->name_len > 0;
}

static int64_t
meta_param_size(const RtParam *p)
{
	switch (p->kind) {
	case RP_TENSOR: return 8;
	case RP_SCALAR: return p->dtype == PTRT_BOOL ? 1 : dtype_size(p->dtype);
	case RP_DIM: return 4;
	default: return 128; /* RP_TENSORMAP, RP_TMA */
	}
}

static int
check_kernel(const RtKernelMeta *k, const char *ptx, size_t len,
	     RtStatus *st)
{
	const char *p, *end = ptx + len;
	if (!find_entry(ptx, len, k->name, &p))
		return rt_fail(st, PT_E_RT_SIGNATURE,
			       "the PTX has no entry \"%.80s\" with a parameter "
			       "list", k->name);
	size_t i = 0, kn = strlen(k->name);
	for (p = skip_ws(p, end); p < end && *p != ')'; i++) {
		PtxParam pp;
		if (!read_param(&p, end, &pp))
			return rt_fail(st, PT_E_RT_SIGNATURE,
				       "kernel %.80s: PTX parameter %zu is not "
				       "'.param .type name'", k->name, i);
		if (i >= k->nparams)
			return rt_fail(st, PT_E_RT_SIGNATURE,
				       "kernel %.80s: the PTX entry has more "
				       "parameters than the metadata's %zu",
				       k->name, k->nparams);
		const RtParam *mp = &k->params[i];
		size_t mn = strlen(mp->name);
		if (pp.name_len != kn + 1 + mn || memcmp(pp.name, k->name, kn) ||
		    pp.name[kn] != '_' || memcmp(pp.name + kn + 1, mp->name, mn))
			return rt_fail(st, PT_E_RT_SIGNATURE,
				       "kernel %.80s: PTX parameter %zu is "
				       "%.*s, the metadata names %.80s", k->name,
				       i, (int)(pp.name_len > 80 ? 80 : pp.name_len),
				       pp.name, mp->name);
		if (pp.size != meta_param_size(mp))
			return rt_fail(st, PT_E_RT_SIGNATURE,
				       "kernel %.80s: PTX parameter %zu has %lld "
				       "bytes, the metadata's %.80s needs %lld",
				       k->name, i, (long long)pp.size, mp->name,
				       (long long)meta_param_size(mp));
		if (p < end && *p == ',')
			p = skip_ws(p + 1, end);
	}
	if (i != k->nparams)
		return rt_fail(st, PT_E_RT_SIGNATURE,
			       "kernel %.80s: the PTX entry has %zu parameters, "
			       "the metadata %zu", k->name, i, k->nparams);
	return PT_OK;
}

/* Little-endian unsigned field of n bytes. */
static uint64_t
le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

/* Section `want` of a 64-bit little-endian ELF image; false when the
 * image has no such section or its headers do not fit inside it. */
static bool
elf_section(const unsigned char *img, size_t len, const char *want,
	    const unsigned char **sec, size_t *size)
{
	if (len < 64 || img[4] != 2 || img[5] != 1)
		return false;
	uint64_t shoff = le(img + 0x28, 8), entsz = le(img + 0x3a, 2);
	uint64_t num = le(img + 0x3c, 2), strndx = le(img + 0x3e, 2);
	if (entsz < 64 || strndx >= num || shoff > len ||
	    num > (len - shoff) / entsz)
		return false;
	const unsigned char *sh = img + shoff, *strh = sh + strndx * entsz;
	uint64_t stroff = le(strh + 0x18, 8), strsz = le(strh + 0x20, 8);
	if (stroff > len || strsz > len - stroff)
		return false;
	size_t wn = strlen(want);
	for (uint64_t i = 0; i < num; i++) {
		const unsigned char *h = sh + i * entsz;
		uint64_t name = le(h, 4), off = le(h + 0x18, 8);
		uint64_t sz = le(h + 0x20, 8);
		if (name >= strsz || strsz - name <= wn ||
		    memcmp(img + stroff + name, want, wn + 1))
			continue;
		if (off > len || sz > len - off)
			return false;
		*sec = img + off;
		*size = (size_t)sz;
		return true;
	}
	return false;
}

/* The EIATTR_KPARAM_INFO records of one kernel against its metadata. */
static int
check_nv_info(const RtKernelMeta *k, const unsigned char *sec, size_t n,
	      bool *seen, RtStatus *st)
{
	size_t count = 0;
	for (size_t p = 0; n - p >= 4;) {
		size_t vlen = sec[p] == 4 ? (size_t)le(sec + p + 2, 2) : 0;
		if (sec[p] < 1 || sec[p] > 4 || vlen > n - p - 4)
			return rt_fail(st, PT_E_RT_SIGNATURE,
				       "kernel %.80s: unreadable record at byte "
				       "%zu of the cubin's .nv.info", k->name, p);
		const unsigned char *v = sec + p + 4;
		if (sec[p] == 4 && sec[p + 1] == 0x17 && vlen >= 12) {
			uint64_t ord = le(v + 4, 2);
			int64_t size = (int64_t)(le(v + 8, 4) >> 18);
			if (ord >= k->nparams || seen[ord])
				return rt_fail(st, PT_E_RT_SIGNATURE,
					       "kernel %.80s: the cubin has "
					       "parameter %llu, the metadata %zu "
					       "parameters", k->name,
					       (unsigned long long)ord,
					       k->nparams);
			const RtParam *mp = &k->params[ord];
			if (size != meta_param_size(mp))
				return rt_fail(st, PT_E_RT_SIGNATURE,
					       "kernel %.80s: cubin parameter "
					       "%llu has %lld bytes, the "
					       "metadata's %.80s needs %lld",
					       k->name, (unsigned long long)ord,
					       (long long)size, mp->name,
					       (long long)meta_param_size(mp));
			seen[ord] = true;
			count++;
		}
		p += 4 + vlen;
	}
	if (count != k->nparams)
		return rt_fail(st, PT_E_RT_SIGNATURE,
			       "kernel %.80s: the cubin entry has %zu "
			       "parameters, the metadata %zu", k->name, count,
			       k->nparams);
	return PT_OK;
}

static int
check_cubin_kernel(const RtKernelMeta *k, const unsigned char *img,
		   size_t len, RtStatus *st)
{
	char want[300];
	const unsigned char *sec;
	size_t n;
	if (snprintf(want, sizeof(want), ".nv.info.%s", k->name) >=
		    (int)sizeof(want) ||
	    !elf_section(img, len, want, &sec, &n))
		return rt_fail(st, PT_E_RT_SIGNATURE,
			       "the cubin has no section .nv.info.%.80s with "
			       "the parameters of the kernel", k->name);
	bool *seen = calloc(k->nparams + 1, sizeof(bool));
	if (!seen)
		return rt_fail(st, PT_E_RT_SIGNATURE, "out of memory");
	int rc = check_nv_info(k, sec, n, seen, st);
	free(seen);
	return rc;
}

int
rt_check_signatures(const RtMeta *meta, const char *image, size_t len,
		    RtStatus *st)
{
	bool elf = len >= 4 && memcmp(image, "\x7f" "ELF", 4) == 0;
	for (size_t i = 0; i < meta->nkernels; i++) {
		const RtKernelMeta *k = &meta->kernels[i];
		int rc = elf ? check_cubin_kernel(k, (const unsigned char *)image,
						  len, st)
			     : check_kernel(k, image, len, st);
		if (rc != PT_OK)
			return rc;
	}
	return PT_OK;
}
