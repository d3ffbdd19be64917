/*
 * test_tile_tcgen05_mma.c - the instruction descriptors and scale-factor
 * TMEM addresses that tcgen05.mma tile calls emit, decoded from the PTX
 * text and compared with values worked out by hand from the PTX ISA
 * tables, not from the encoder:
 *   dense/.ws idesc (Table 42): D format [4,6), A/B format [7,10)
 *   [10,13), N>>3 [17,23), M>>4 [24,29);
 *   block-scaled idesc (Tables 43/44): B scale ID [4,6), A/B format,
 *   N>>3 [17,23), scale type [23] (UE8M0 = 1), M>>7 [27,29), A scale ID
 *   [29,31);
 *   scale-factor address: the allocation address plus (byte / 4) columns,
 *   the byte in the cell being the scale ID (reference "Weight-stationary
 *   and block scaling": row r at byte 4*(r/32)+s).
 * The decoder below reads the bit fields itself; the PTX is parsed for
 * `mov.b32 %rN, V;`, `ld.param.u32 %rN, [name];` and
 * `add.u32 %rN, %rM, K;` to resolve each operand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "ptxtile.h"

typedef struct Out {
	pt_ctx *ctx;
	const char *ptx, *meta;
	int rc;
} Out;

static void
compile(Out *o, const char *src)
{
	pt_module *m = NULL;
	memset(o, 0, sizeof(*o));
	o->ctx = pt_ctx_new(NULL);
	o->rc = pt_load(o->ctx, "t.py", src, strlen(src), &m);
	if (o->rc == PT_OK)
		o->rc = pt_compile(o->ctx, m, "sm_100a", &o->ptx, &o->meta);
}

/* What a 32-bit register holds: a constant, or a parameter plus k. */
typedef struct RegVal {
	char param[64];
	long long k;
} RegVal;

enum { MAX_REGS = 512, MAX_MMA = 16 };

typedef struct Mma {
	unsigned idesc;
	RegVal sfa, sfb;
	int nops;
} Mma;

static int
reg_num(const char *s)
{
	return s[0] == '%' && s[1] == 'r' ? atoi(s + 2) : -1;
}

/* Reads the PTX line by line; returns the number of tcgen05.mma found. */
static int
scan(const char *ptx, Mma *out)
{
	static RegVal regs[MAX_REGS];
	memset(regs, 0, sizeof(regs));
	int n = 0;
	const char *p = ptx;
	char line[512];
	while (*p) {
		size_t len = strcspn(p, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		p += len + (p[len] == '\n');
		char a[64], b[64], name[64];
		long long k;
		int ra = -1, rb = -1;
		if (sscanf(line, " mov.b32 %63[^,], %lld;", a, &k) == 2) {
			ra = reg_num(a);
			if (ra >= 0 && ra < MAX_REGS) {
				memset(&regs[ra], 0, sizeof(regs[ra]));
				regs[ra].k = k;
			}
		} else if (sscanf(line, " ld.param.u32 %63[^,], [%63[^]]];", a,
				  name) == 2) {
			ra = reg_num(a);
			if (ra >= 0 && ra < MAX_REGS) {
				snprintf(regs[ra].param, sizeof(regs[ra].param),
					 "%s", name);
				regs[ra].k = 0;
			}
		} else if (sscanf(line, " add.u32 %63[^,], %63[^,], %lld;", a,
				  b, &k) == 3) {
			ra = reg_num(a);
			rb = reg_num(b);
			if (ra >= 0 && ra < MAX_REGS && rb >= 0 &&
			    rb < MAX_REGS) {
				regs[ra] = regs[rb];
				regs[ra].k += k;
			}
		} else if (strstr(line, "tcgen05.mma") && n < MAX_MMA) {
			/* operands after the spelling, comma separated */
			const char *q = strchr(strstr(line, "tcgen05.mma"), ' ');
			char ops[8][64];
			int no = 0;
			while (q && *q && no < 8) {
				while (*q == ' ' || *q == ',' || *q == '[')
					q++;
				if (*q == '{') { /* a mask vector */
					q = strchr(q, '}');
					q = q ? q + 1 : q;
					snprintf(ops[no++], 64, "{}");
					continue;
				}
				size_t l = strcspn(q, ",];");
				snprintf(ops[no++], 64, "%.*s", (int)l, q);
				q += l;
				if (*q == ']')
					q++;
				if (*q == ';')
					break;
			}
			Mma *m = &out[n++];
			memset(m, 0, sizeof(*m));
			m->nops = no;
			if (no > 3 && reg_num(ops[3]) >= 0 &&
			    reg_num(ops[3]) < MAX_REGS)
				m->idesc = (unsigned)regs[reg_num(ops[3])].k;
			if (no > 5 && reg_num(ops[4]) >= 0 &&
			    reg_num(ops[5]) >= 0 && reg_num(ops[4]) < MAX_REGS &&
			    reg_num(ops[5]) < MAX_REGS) {
				m->sfa = regs[reg_num(ops[4])];
				m->sfb = regs[reg_num(ops[5])];
			}
		}
	}
	return n;
}

/* The block-scaled fields (PTX Tables 43/44). */
typedef struct BsFields {
	int b_sf, a_fmt, b_fmt, n, stype, m, a_sf;
} BsFields;

static BsFields
decode_bs(unsigned v)
{
	BsFields f;
	f.b_sf = (int)(v >> 4) & 3;
	f.a_fmt = (int)(v >> 7) & 7;
	f.b_fmt = (int)(v >> 10) & 7;
	f.n = (int)((v >> 17) & 63) * 8;
	f.stype = (int)(v >> 23) & 1;
	f.m = (int)((v >> 27) & 3) * 128;
	f.a_sf = (int)(v >> 29) & 3;
	return f;
}

#define PREFIX                                                              \
	"from tvm_tirx.script import tirx as T\n"                          \
	"@T.function\n"

#define TMEM(name, dt, addr)                                                \
	"    " name " = T.decl_buffer((128, 2048), \"" dt "\", "             \
	"scope=\"tmem\", allocated_addr=" addr ", "                         \
	"layout=T.TileLayout(T.S[(128, 2048):(1@T.Axis.TLane, "             \
	"1@T.Axis.TCol)]))\n"

#define D128(n)                                                             \
	"    D = T.decl_buffer((128, 512), \"float32\", scope=\"tmem\", "  \
	"allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):"         \
	"(1@T.Axis.TLane, 1@T.Axis.TCol)]))\n"                             \
	"    Dv = D.view(1, 1, 128, " n ", layout=T.TileLayout(T.S[(1, 1, " \
	"128, " n "):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, "      \
	"1@T.Axis.TCol)]))\n"

/* mxf8f6f4 1X, K_rep 4: SFA steps one byte per K (IDs 0..3 in one
 * cell), SFB four cells (16 bytes) per K (ID 0, columns +0/4/8/12). */
TEST(tcgen05_mma_mxf8_idesc_and_scale_addresses)
{
	static const char src[] = PREFIX
		"def k(taddr: T.uint32, sfa: T.uint32, sfb: T.uint32):\n"
		"    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, "
		"block=128))\n"
		"    A = T.alloc_shared((128, 128), \"float8_e4m3fn\", "
		"layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(128, 128):"
		"(128, 1)])), align=1024)\n"
		"    B = T.alloc_shared((128, 128), \"float8_e5m2\", "
		"layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(128, 128):"
		"(128, 1)])), align=1024)\n"
		D128("128")
		TMEM("SA", "float8_e8m0fnu", "sfa")
		TMEM("SB", "float8_e8m0fnu", "sfb")
		"    Av = A.view(1, 4, 128, 32, layout=T.ComposeLayout(4, 3, 3, "
		"T.TileLayout(T.S[(1, 4, 128, 32):(16384, 32, 128, 1)])))\n"
		"    Bv = B.view(1, 4, 128, 32, layout=T.ComposeLayout(4, 3, 3, "
		"T.TileLayout(T.S[(1, 4, 128, 32):(16384, 32, 128, 1)])))\n"
		"    SAv = SA.view(1, 4, 128, 1, layout=T.TileLayout(T.S[(1, 4, "
		"4, 32, 1):(1@T.Axis.TCol, 1@T.Axis.TCol, 4@T.Axis.TCol, "
		"1@T.Axis.TLane, 1@T.Axis.TCol)] + T.R[4:32@T.Axis.TLane]))\n"
		"    SBv = SB.view(1, 4, 128, 1, layout=T.TileLayout(T.S[(1, 4, "
		"4, 32, 1):(1@T.Axis.TCol, 16@T.Axis.TCol, 4@T.Axis.TCol, "
		"1@T.Axis.TLane, 1@T.Axis.TCol)] + T.R[4:32@T.Axis.TLane]))\n"
		"    T.cuda.tile.apply(T.ptx[\"tcgen05.mma.cta_group::1.kind::"
		"mxf8f6f4.block_scale.scale_vec::1X\"], Dv, Av, Bv, SAv, SBv, "
		"instruction_shape=(128, 128, 32))\n";
	Out o;
	compile(&o, src);
	CHECK_INT(o.rc, PT_OK);
	if (o.rc == PT_OK) {
		Mma m[MAX_MMA];
		CHECK_INT(scan(o.ptx, m), 4);
		for (int k = 0; k < 4; k++) {
			/* hand values: 0x08A00000 | A id k << 29 | B fmt
			 * E5M2 (1) << 10 */
			unsigned want = 0x08A00000u | (unsigned)k << 29 |
					1u << 10;
			CHECK_INT((long long)m[k].idesc, (long long)want);
			BsFields f = decode_bs(m[k].idesc);
			CHECK_INT(f.m, 128);
			CHECK_INT(f.n, 128);
			CHECK_INT(f.a_fmt, 0);
			CHECK_INT(f.b_fmt, 1);
			CHECK_INT(f.stype, 1);
			CHECK_INT(f.a_sf, k);
			CHECK_INT(f.b_sf, 0);
			CHECK(strstr(m[k].sfa.param, "sfa") != NULL);
			CHECK_INT(m[k].sfa.k, 0);
			CHECK(strstr(m[k].sfb.param, "sfb") != NULL);
			CHECK_INT(m[k].sfb.k, 4 * k);
		}
	}
	pt_ctx_free(o.ctx);
}

/* mxf4nvf4 4X (block16) with UE4M3 scales and 128 rows of A, 64 of B:
 * SFA 4 cells per K, SFB 2 cells per K; scale type 0, IDs 0. */
TEST(tcgen05_mma_nvf4_idesc_and_scale_addresses)
{
	static const char src[] = PREFIX
		"def k(taddr: T.uint32, sfa: T.uint32, sfb: T.uint32):\n"
		"    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, "
		"block=128))\n"
		"    A = T.alloc_shared((128, 256), \"float4_e2m1fn\", "
		"layout=T.ComposeLayout(5, 3, 3, T.TileLayout(T.S[(128, 256):"
		"(256, 1)])), align=1024)\n"
		"    B = T.alloc_shared((64, 256), \"float4_e2m1fn\", "
		"layout=T.ComposeLayout(5, 3, 3, T.TileLayout(T.S[(64, 256):"
		"(256, 1)])), align=1024)\n"
		D128("64")
		TMEM("SA", "float8_e4m3fn", "sfa")
		TMEM("SB", "float8_e4m3fn", "sfb")
		"    Av = A.view(1, 4, 128, 64, layout=T.ComposeLayout(5, 3, 3, "
		"T.TileLayout(T.S[(1, 4, 128, 64):(32768, 64, 256, 1)])))\n"
		"    Bv = B.view(1, 4, 64, 64, layout=T.ComposeLayout(5, 3, 3, "
		"T.TileLayout(T.S[(1, 4, 64, 64):(16384, 64, 256, 1)])))\n"
		"    SAv = SA.view(1, 4, 128, 4, layout=T.TileLayout(T.S[(1, 4, "
		"4, 32, 4):(1@T.Axis.TCol, 16@T.Axis.TCol, 4@T.Axis.TCol, "
		"1@T.Axis.TLane, 1@T.Axis.TCol)] + T.R[4:32@T.Axis.TLane]))\n"
		"    SBv = SB.view(1, 4, 64, 4, layout=T.TileLayout(T.S[(1, 4, "
		"2, 32, 4):(1@T.Axis.TCol, 8@T.Axis.TCol, 4@T.Axis.TCol, "
		"1@T.Axis.TLane, 1@T.Axis.TCol)] + T.R[4:32@T.Axis.TLane]))\n"
		"    T.cuda.tile.apply(T.ptx[\"tcgen05.mma.cta_group::1.kind::"
		"mxf4nvf4.block_scale.block16\"], Dv, Av, Bv, SAv, SBv, "
		"instruction_shape=(128, 64, 64))\n";
	Out o;
	compile(&o, src);
	CHECK_INT(o.rc, PT_OK);
	if (o.rc == PT_OK) {
		Mma m[MAX_MMA];
		CHECK_INT(scan(o.ptx, m), 4);
		for (int k = 0; k < 4; k++) {
			/* E2M1 = 1 in both format fields, N 64, M 128 */
			CHECK_INT((long long)m[k].idesc, 0x08100480LL);
			BsFields f = decode_bs(m[k].idesc);
			CHECK_INT(f.stype, 0);
			CHECK_INT(f.n, 64);
			CHECK_INT(f.m, 128);
			CHECK_INT(m[k].sfa.k, 4 * k);
			CHECK_INT(m[k].sfb.k, 2 * k);
		}
	}
	pt_ctx_free(o.ctx);
}

/* Dense fields of a .ws M32 i8 MMA (Layout G) and its operand count
 * (no mask, no zero-column mask given). */
TEST(tcgen05_mma_ws_i8_idesc)
{
	static const char ws[] = PREFIX
		"def k(taddr: T.uint32):\n"
		"    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, "
		"block=128))\n"
		"    A = T.alloc_shared((32, 32), \"int8\", align=1024)\n"
		"    B = T.alloc_shared((64, 32), \"uint8\", align=1024)\n"
		"    D = T.decl_buffer((128, 512), \"int32\", scope=\"tmem\", "
		"allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):"
		"(1@T.Axis.TLane, 1@T.Axis.TCol)]))\n"
		"    Av = A.view(1, 1, 32, 32, layout=T.TileLayout(T.S[(1, 1, 4, "
		"8, 2, 16):(1024, 1024, 256, 16, 128, 1)]))\n"
		"    Bv = B.view(1, 1, 64, 32, layout=T.TileLayout(T.S[(1, 1, 8, "
		"8, 2, 16):(2048, 2048, 256, 16, 128, 1)]))\n"
		"    Dv = D.view(1, 1, 32, 64, layout=T.TileLayout(T.S[(1, 1, 32, "
		"4, 16):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, "
		"32@T.Axis.TLane, 1@T.Axis.TCol)]))\n"
		"    T.cuda.tile.apply(T.ptx[\"tcgen05.mma.ws.cta_group::1.kind::"
		"i8\"], Dv, Av, Bv, instruction_shape=(32, 64, 32))\n";
	Out o;
	compile(&o, ws);
	CHECK_INT(o.rc, PT_OK);
	if (o.rc == PT_OK) {
		Mma m[MAX_MMA];
		CHECK_INT(scan(o.ptx, m), 1);
		/* S32 D (2) << 4, A S8 (1) << 7, B U8 (0), N 64 -> 8 << 17,
		 * M 32 -> 2 << 24 */
		CHECK_INT((long long)m[0].idesc, 0x021000A0LL);
		CHECK_INT((long long)((m[0].idesc >> 24) & 31) * 16, 32);
		CHECK_INT(m[0].nops, 5);
	}
	pt_ctx_free(o.ctx);
}
