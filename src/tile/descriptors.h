/*
 * descriptors.h - shared matrix descriptors and the UMMA instruction
 * descriptor for tcgen05.cp and tcgen05.mma (reference "Shared matrix
 * descriptors"; ptx_facts §1.2-1.4, §2.1, §5.2).
 *
 * The extraction is a pure function of a *descriptor image*: the byte
 * address of every element of one instruction atom, arranged as
 * descriptor rows x elements per row.  It never sees IR, so the unit
 * tests feed it hand-built canonical layouts (tile.h is included for
 * the operand helpers at the end).  The tile families build
 * the image from an operand view (tile_desc_image in descriptors.c) and
 * lower the result into a 64-bit descriptor expression.
 *
 * Invariants of a successful extraction: start is a 16-byte multiple,
 * lbo/sbo are nonnegative 16-byte multiples below 2^18, and every
 * element of the image sits at swz(mode, start + walk(row, byte)).
 * LDO/SDO/mode are derived, never parameters.
 */
#ifndef PT_TILE_DESCRIPTORS_H
#define PT_TILE_DESCRIPTORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tile/tile.h"

/* Descriptor swizzle modes as the reference numbers them. */
typedef enum DescMode {
	DESC_NONE = 0,
	DESC_SW32 = 1,
	DESC_SW64 = 2,
	DESC_SW128 = 3,
	DESC_SW128_32B = 4, /* 128B span, 32B atomicity (32-bit MN-major) */
	DESC_NMODES
} DescMode;

/* K walk: rows enumerate M/N (or tcgen05.cp rows), bytes run along K;
 * MN walk: rows enumerate K, bytes run along M/N. */
typedef enum DescWalk { DESC_WALK_K, DESC_WALK_MN } DescWalk;

typedef struct DescImage {
	DescWalk walk;
	int rows;            /* descriptor rows in the atom */
	int64_t cols;        /* elements per row */
	int elem_bits;       /* a multiple of 8 */
	const int64_t *addr; /* byte address of (row, col), row-major */
} DescImage;

typedef struct SmemDesc {
	DescMode mode;
	int64_t start;       /* unswizzled origin, bytes */
	int64_t lbo, sbo;    /* bytes */
} SmemDesc;

/* Why an image is not encodable (the last mode tried). */
typedef enum DescFail {
	DESC_OK,
	DESC_F_ROW_WIDTH,   /* a K-major swizzled row is wider than the span */
	DESC_F_ORIGIN,      /* origin not 16-byte aligned */
	DESC_F_STRIDE,      /* LDO/SDO negative, unaligned or >= 2^18 */
	DESC_F_WALK,        /* an element is off the descriptor's walk */
	DESC_F_MODE,        /* no mode allowed */
} DescFail;

/* Swizzle period in bytes of a mode (16 for none). */
int64_t desc_period(DescMode m);
/* The mode's byte-address permutation (an involution). */
int64_t desc_swizzle(DescMode m, int64_t addr);
/* The sm_100 3-bit layout code (bits 61..63): 0, 6, 4, 2, 1. */
int desc_layout_code(DescMode m);

/* Tries the modes in order; the first whose whole walk matches wins.
 * On failure *why is the reason for the first mode tried and msg (if
 * not NULL, msgn bytes) says which element or field. */
bool desc_extract(const DescImage *im, const DescMode *modes, int nmodes,
		  SmemDesc *out, DescFail *why, char *msg, size_t msgn);

/* The 64-bit sm_100 shared descriptor (base offset 0, relative LBO):
 * start >> 4 at [0,14), LBO >> 4 at [16,30), SBO >> 4 at [32,46), the
 * fixed 1 at bit 46, the layout code at [61,64).  start is the absolute
 * shared-window byte address. */
uint64_t desc_encode(const SmemDesc *d, int64_t start);

/* The sm_90 wgmma descriptor (ptx_facts §1.1): the same start/LBO/SBO
 * fields, base offset 0, no fixed bit 46, and the 2-bit layout type at
 * [62,64) (1 128B, 2 64B, 3 32B), whose bits coincide with the sm_100
 * code at [61,64) for these modes; mode 4 does not exist there. */
uint64_t desc_encode_sm90(const SmemDesc *d, int64_t start);

/* ---- UMMA instruction descriptor (ptx_facts §2.1) ---- */

typedef enum UmmaKind {
	UMMA_F16, UMMA_TF32, UMMA_F8F6F4, UMMA_I8,
	UMMA_MXF8F6F4, UMMA_MXF4, UMMA_MXF4NVF4, /* .block_scale */
	UMMA_NKINDS
} UmmaKind;

typedef struct Idesc {
	UmmaKind kind;
	int d_fmt;          /* F16=0, F32=1, S32=2 (not block-scaled) */
	int a_fmt, b_fmt;   /* kind-specific codes (§2.3) */
	bool neg_a, neg_b, sat;
	bool a_mn, b_mn;    /* MN-major */
	int m, n;           /* the CTA group's totals */
	/* block-scaled kinds (PTX Tables 43/44): scale type UE4M3=0,
	 * UE8M0=1; scale-factor IDs (byte of the TMEM cell) 0..3 */
	int scale_type, a_sf, b_sf;
} Idesc;

/* Dense and .ws kinds: sat [3], D format [4,6), A/B format [7,10)
 * [10,13), negate [13] [14], MN-major [15] [16], N>>3 [17,23), M>>4
 * [24,29).  Block-scaled kinds: B scale ID [4,6), formats, negate,
 * major and N>>3 as above, scale type [23], M>>7 [27,29), A scale ID
 * [29,31). */
uint32_t desc_idesc(const Idesc *d);
/* Format code of a dtype name ("float16", "tf32", "float8_e4m3fn",
 * "int8", ...) for a kind; -1 when the kind has no such format. */
int desc_umma_format(UmmaKind k, const char *name);
/* K of one instruction for a kind (dense): 16, 8, 32, 32, and 32, 64,
 * 64 for mxf8f6f4, mxf4, mxf4nvf4 (K=96 is sm_103a only). */
int desc_umma_k(UmmaKind k);
/* PTX Table 39, non-.ws: is (M, N) legal for kind and group?  M and N
 * are the CTA group's totals. */
bool desc_umma_shape_ok(UmmaKind k, int cta_group, int m, int n);
/* PTX Table 39, .ws (cta_group::1 only). */
bool desc_umma_ws_shape_ok(UmmaKind k, int m, int n);

/* ---- tile operands (descriptors.c, needs tile.h) ----
 * A shared operand whose last two axes are one instruction atom and
 * whose earlier axes are its own repeats.  The descriptor of repeat r
 * is hi[r] | ((base + start[r]) >> 4 & 0x3FFF), base being the 32-bit
 * shared-window address of the storage start plus the symbolic origin
 * (sym_x elements), which is a multiple of the swizzle period; the
 * lowering writes it as hi[r] + (storage >> 4 & 0x3FFF) + (sym >> 4) +
 * (start[r] >> 4), equal for every operand inside one CTA's shared
 * memory (tile_desc_value). */

typedef struct TileDesc {
	int64_t nrep;
	uint64_t *hi;
	int64_t *start;     /* bytes from the storage start, minus sym */
	DescMode mode;      /* of repeat 0 (explain) */
	int64_t lbo, sbo;   /* of repeat 0 */
	Expr *sym_x; /* symbolic origin in elements, or NULL */
	int64_t sym_hi;     /* its largest value in bytes; -1 unbounded */
	int bits;
} TileDesc;

/* Checks op (shared, repeat dims then a 2-axis atom) against the
 * descriptor walk: rows_axis1 puts descriptor rows on the atom's second
 * axis (MN-major: rows enumerate K).  allowed: the legal modes in
 * ascending order; the layout's own mode is tried first.  Diagnostics
 * PT_E_DESC_*. */
bool tile_desc_operand(TileEnv *e, TileOperand *op,
		       DescWalk walk, bool rows_axis1, const DescMode *allowed,
		       int nallowed, TileDesc *out);
/* Lowering: the storage start's shared-window address as a fresh u32
 * variable (one mov per call), then repeat r's descriptor expression. */
Expr *tile_desc_base(Ctx *c, const TileCall *tc,
			    const TileOperand *op,
			    Block *out);
Expr *tile_desc_value(Ctx *c, const TileDesc *d, int64_t r,
			     Expr *base);

/* Re-encodes an extracted operand's descriptors for sm_90 (wgmma). */
void tile_desc_to_sm90(TileDesc *d);

/* PTX: every tcgen05 instruction of a kernel uses one .cta_group
 * (ptxas rejects an MMA pair mixing them).  Records the first tile
 * call's group and rejects another (PT_E_TC05_GROUP). */
bool tile_tc05_group(TileEnv *e, const TileCall *tc);

/* TMEM address of an operand origin: allocated_addr + (lane << 16) +
 * column (32-bit cells), as a u32 expression. */
Expr *tile_tmem_addr(Ctx *c, const TileOperand *op,
			    int64_t lane, Expr *col);

#endif
