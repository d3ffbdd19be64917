/*
 * Unit tests of src/ptx: spelling parser (accepted and rejected forms with
 * exact codes), operand signatures, raw-call operand checks, target
 * gating, .version choice, T.ptx chain conversion, generic operand
 * printing and table invariants.  Expected spellings and versions come
 * from the PTX ISA and were checked with ptxas 13.0.
 */
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "ptx/ptx.h"
#include "test.h"

static pt_ctx *
new_ctx(Target t)
{
	pt_ctx *c = pt_ctx_new(NULL);
	c->target = t;
	return c;
}

static int
last_code(pt_ctx *c)
{
	return c->diags_tail ? c->diags_tail->code : 0;
}

/* Parses s; returns 0 on success or the diagnostic code. */
static int
parse_code(Target t, const char *s)
{
	pt_ctx *c = new_ctx(t);
	PtxInst in;
	int code = ptx_parse(c, s, (Span){0}, &in) ? 0 : last_code(c);
	pt_ctx_free(c);
	return code;
}

/* Parses and checks the target; 0 or the diagnostic code. */
static int
gate_code(Target t, const char *s, char *msg, size_t n)
{
	pt_ctx *c = new_ctx(t);
	PtxInst in;
	int code = 0;
	if (!ptx_parse(c, s, (Span){0}, &in) ||
	    !ptx_check_target(c, &in, (Span){0}))
		code = last_code(c);
	if (msg)
		snprintf(msg, n, "%s", c->diags_tail ? c->diags_tail->msg : "");
	pt_ctx_free(c);
	return code;
}

TEST(ptx_parse_accepts_each_family)
{
	static const char *const ok[] = {
		"mov.b32", "mov.u64", "add.rn.f32", "add.rn.f16x2",
		"add.rn.bf16x2", "add.rn.f32x2", "sub.s32", "mul.lo.u32",
		"mul.hi.s32", "mul.wide.u32", "mul.rn.f32", "div.rn.f32",
		"div.approx.ftz.f32", "rcp.approx.ftz.f32", "sqrt.rn.f32",
		"min.f32", "max.NaN.f32", "min.u32", "max.f16x2", "fma.rn.f32",
		"fma.rn.f16x2", "fma.rn.bf16", "fma.rn.f32x2", "cvt.rn.f16x2.f32",
		"cvt.rn.f16.f32", "cvt.f32.f16", "cvt.rzi.s32.f32",
		"cvt.rn.bf16x2.f32", "ex2.approx.ftz.f32", "lg2.approx.ftz.f32",
		"abs.f32", "neg.s32", "abs.bf16x2",
		"ld.global.v4.b32", "ld.shared::cta.v2.f32", "ld.local.b64",
		"ld.global.L1::evict_last.L2::cache_hint.v4.u32",
		"ld.global.cg.b32", "ld.global.nc.v4.b32", "ld.global.cs.nc.b32",
		"ld.global.nc.L1::no_allocate.L2::128B.v2.f32",
		"ld.global.nc.v2.u64",
		"ld.global.v8.f32", "st.shared.v4.b32", "st.global.wt.b16",
		"st.release.cluster.global.L2::cache_hint.v8.s32",
		"ld.relaxed.cta.global.L1::evict_last.L2::cache_hint.v4.b64",
		"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
		"stmatrix.sync.aligned.m8n8.x2.shared::cta.b16",
		"cp.async.cg.shared.global", "cp.async.ca.shared.global.L2::128B",
		"cp.async.commit_group", "cp.async.wait_group", "cp.async.wait_all",
		"cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes",
		"cp.async.bulk.global.shared::cta.bulk_group",
		"cp.async.bulk.commit_group", "cp.async.bulk.wait_group.read",
		"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
		"cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes",
		"cp.async.bulk.tensor.3d.global.shared::cta.bulk_group",
		"cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group",
		"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
		"tcgen05.ld.sync.aligned.16x32bx2.x4.b32",
		"tcgen05.st.sync.aligned.32x32b.x8.b32",
		"tcgen05.cp.cta_group::1.128x256b",
		"tcgen05.mma.cta_group::1.kind::f16",
		"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
		"tcgen05.dealloc.cta_group::1.sync.aligned.b32",
		"tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned",
		"tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64",
		"tcgen05.wait::ld.sync.aligned", "tcgen05.fence::after_thread_sync",
		"mbarrier.init.shared.b64", "mbarrier.arrive.shared.b64",
		"mbarrier.arrive.expect_tx.shared.b64",
		"mbarrier.try_wait.parity.shared.b64", "mbarrier.inval.shared.b64",
		"fence.proxy.async.shared::cta", "fence.mbarrier_init.release.cluster",
		"bar.sync", "barrier.cluster.arrive.release.aligned",
		"barrier.cluster.wait.aligned", "mapa.shared::cluster.u32", "mapa.u64",
		"elect.sync", "prefetch.tensormap", "shfl.sync.bfly.b32",
		"atom.global.add.u32", "atom.shared.cas.b64", "red.global.add.f32",
		"setmaxnreg.dec.sync.aligned.u32", "griddepcontrol.wait",
	};
	for (size_t i = 0; i < countof(ok); i++) {
		int code = parse_code(TGT_SM_100A, ok[i]);
		if (code)
			test_fail(t, __FILE__, __LINE__, "%s rejected (E%04d)",
				  ok[i], code);
	}
}

TEST(ptx_parse_signatures)
{
	pt_ctx *c = new_ctx(TGT_SM_100A);
	PtxInst in;
	CHECK(ptx_parse(c, "ld.global.v4.b32", (Span){0}, &in));
	CHECK_INT(in.family, PTXF_LD);
	CHECK_STR(in.mnemonic, "ld");
	CHECK_INT(in.vec, 4);
	CHECK_INT(in.type, PTY_B32);
	CHECK_INT(in.space, PSP_GLOBAL);
	CHECK_INT(in.nops, 2);
	CHECK_INT(in.ops[0].kind, PTXOP_VEC);
	CHECK(in.ops[0].out);
	CHECK_INT(in.ops[0].vec, 4);
	CHECK_INT(in.ops[1].kind, PTXOP_ADDR);
	CHECK_INT(in.ops[1].space, PSP_GLOBAL);

	CHECK(ptx_parse(c, "ld.global.L2::cache_hint.b32", (Span){0}, &in));
	CHECK_INT(in.nops, 3);
	CHECK_INT(in.ops[0].kind, PTXOP_REG);
	CHECK_INT(in.ops[2].type, PTY_B64);

	CHECK(ptx_parse(c, "cvt.rn.f16x2.f32", (Span){0}, &in));
	CHECK_INT(in.family, PTXF_CVT);
	CHECK_INT(in.nops, 3);
	CHECK_INT(in.ops[0].type, PTY_F16X2);
	CHECK_INT(in.ops[1].type, PTY_F32);

	CHECK(ptx_parse(c, "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster", (Span){0}, &in));
	CHECK_INT(in.family, PTXF_TMA);
	CHECK_INT(in.num, 3);
	CHECK_INT(in.nops, 4);
	CHECK_INT(in.ops[1].kind, PTXOP_TENSOR);
	CHECK_INT(in.ops[1].vec, 3);
	CHECK_INT(in.ops[3].type, PTY_B16); /* ctaMask */

	CHECK(ptx_parse(c, "tcgen05.ld.sync.aligned.16x256b.x2.b32", (Span){0}, &in));
	CHECK_INT(in.ops[0].vec, 8);
	CHECK_INT(in.ops[1].space, PSP_TMEM);

	CHECK(ptx_parse(c, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", (Span){0}, &in));
	CHECK(ptx_has(&in, PQ_TRANS));
	CHECK(ptx_has(&in, PQ_M8N8));
	CHECK(!ptx_has(&in, PQ_SHARED_CLUSTER));
	CHECK_INT(in.ops[0].vec, 4);

	CHECK(ptx_parse(c, "mapa.u64", (Span){0}, &in));
	CHECK(in.ops[0].out);
	CHECK_INT(in.ops[0].type, PTY_U64);
	CHECK(ptx_parse(c, "elect.sync", (Span){0}, &in));
	CHECK_INT(in.ops[0].kind, PTXOP_PAIR);
	/* a remote arrive returns no state: its first operand is the sink */
	CHECK(ptx_parse(c, "mbarrier.arrive.release.cluster.shared::cluster.b64",
			(Span){0}, &in));
	CHECK_INT(in.ops[0].kind, PTXOP_SINK);
	CHECK(in.ops[0].optional);
	CHECK_INT(in.ops[1].kind, PTXOP_ADDR);
	CHECK_INT(in.nops, 3);
	CHECK(ptx_parse(c, "fence.proxy.async.shared::cta", (Span){0}, &in));
	CHECK_INT(in.nops, 0);
	pt_ctx_free(c);
}

TEST(ptx_parse_rejects_with_codes)
{
	CHECK_INT(parse_code(TGT_SM_90A, "bar.sync 0; trap"), PT_E_PTX_JUNK);
	CHECK_INT(parse_code(TGT_SM_90A, "bar.sync;"), PT_E_PTX_JUNK);
	CHECK_INT(parse_code(TGT_SM_90A, ""), PT_E_PTX_JUNK);
	CHECK_INT(parse_code(TGT_SM_90A, "ld..b32"), PT_E_PTX_JUNK);
	CHECK_INT(parse_code(TGT_SM_90A, "ld.b32."), PT_E_PTX_JUNK);
	CHECK_INT(parse_code(TGT_SM_90A, ".ld.b32"), PT_E_PTX_JUNK);
	CHECK_INT(parse_code(TGT_SM_90A, "frobnicate.b32"), PT_E_PTX_UNKNOWN_MNEMONIC);
	CHECK_INT(parse_code(TGT_SM_90A, "ld.global.v3.b32"), PT_E_PTX_BAD_QUALIFIER);
	CHECK_INT(parse_code(TGT_SM_90A, "ld.global.global.b32"), PT_E_PTX_DUPLICATE_QUALIFIER);
	CHECK_INT(parse_code(TGT_SM_90A, "add.sat.sat.s32"), PT_E_PTX_DUPLICATE_QUALIFIER);
	/* misplaced: ptxas tolerates this order, the table keeps the ISA's */
	CHECK_INT(parse_code(TGT_SM_90A, "ld.v4.global.b32"), PT_E_PTX_QUALIFIER_COMBINATION);
	/* .cg with a type ld has no form for; .cg on st is not an ld cop */
	CHECK_INT(parse_code(TGT_SM_90A, "ld.global.cg.f16"), PT_E_PTX_BAD_QUALIFIER);
	CHECK_INT(parse_code(TGT_SM_90A, "st.global.cv.b32"), PT_E_PTX_BAD_QUALIFIER);
	CHECK_INT(parse_code(TGT_SM_90A, "cp.async.cg.shared.global.L1::evict_last"), PT_E_PTX_BAD_QUALIFIER);
	/* missing qualifiers */
	CHECK_INT(parse_code(TGT_SM_90A, "ldmatrix.sync.m8n8.x4.shared.b16"), PT_E_PTX_QUALIFIER_COMBINATION);
	CHECK_INT(parse_code(TGT_SM_90A, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16"), PT_E_PTX_QUALIFIER_COMBINATION);
	CHECK_INT(parse_code(TGT_SM_90A, "fma.f32"), PT_E_PTX_QUALIFIER_COMBINATION);
	/* incompatible together: .sat on a widening unsigned cvt, .sat on f32x2 fma */
	CHECK_INT(parse_code(TGT_SM_90A, "cvt.sat.u64.u32"), PT_E_PTX_QUALIFIER_COMBINATION);
	CHECK_INT(parse_code(TGT_SM_100A, "fma.rn.sat.f32x2"), PT_E_PTX_QUALIFIER_COMBINATION);
	CHECK_INT(parse_code(TGT_SM_90A, "mbarrier.arrive.relaxed.shared.b64"), PT_E_PTX_QUALIFIER_COMBINATION);
	/* .nc: global only, cop before it, never with an L1 eviction priority */
	CHECK(parse_code(TGT_SM_90A, "ld.shared.nc.b32") != 0);
	CHECK(parse_code(TGT_SM_90A, "ld.global.nc.cg.b32") != 0);
	CHECK(parse_code(TGT_SM_90A, "ld.global.cs.nc.L1::no_allocate.b32") != 0);
	CHECK(parse_code(TGT_SM_90A, "ld.global.nc.v4.b64") != 0);
}

TEST(ptx_target_gating)
{
	char msg[512];
	CHECK_INT(gate_code(TGT_SM_90A, "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32", msg, sizeof msg),
		  PT_E_PTX_TARGET_TOO_OLD);
	CHECK(strstr(msg, "sm_100a") != NULL);
	CHECK(strstr(msg, "tcgen05.alloc") != NULL);
	CHECK_INT(gate_code(TGT_SM_80, "setmaxnreg.dec.sync.aligned.u32", msg, sizeof msg),
		  PT_E_PTX_TARGET_TOO_OLD);
	CHECK(strstr(msg, "sm_90a") != NULL);
	CHECK_INT(gate_code(TGT_SM_90, "setmaxnreg.inc.sync.aligned.u32", msg, sizeof msg),
		  PT_E_PTX_TARGET_NOT_SPECIFIC);
	CHECK(strstr(msg, "sm_90a") != NULL);
	CHECK_INT(gate_code(TGT_SM_80, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", msg, sizeof msg),
		  PT_E_PTX_TARGET_TOO_OLD);
	CHECK(strstr(msg, "sm_90") != NULL);
	/* kind::i8 is sm_100a only, not family-portable (ptx_facts 8.7) */
	CHECK_INT(gate_code(TGT_SM_100F, "tcgen05.mma.cta_group::1.kind::i8", NULL, 0),
		  PT_E_PTX_TARGET_TOO_OLD);
	CHECK_INT(gate_code(TGT_SM_100A, "tcgen05.mma.cta_group::1.kind::i8", NULL, 0), 0);
	CHECK_INT(gate_code(TGT_SM_80, "ld.global.v4.b32", NULL, 0), 0);
	CHECK_INT(gate_code(TGT_SM_90, "ld.global.v8.f32", NULL, 0), PT_E_PTX_TARGET_TOO_OLD);
	CHECK_INT(gate_code(TGT_SM_90A, "fence.proxy.async", NULL, 0), 0);
	CHECK_INT(gate_code(TGT_SM_80, "elect.sync", NULL, 0), PT_E_PTX_TARGET_TOO_OLD);
	CHECK_INT(gate_code(TGT_SM_103A, "tcgen05.ld.sync.aligned.32x32b.x1.b32", NULL, 0), 0);
}

TEST(ptx_version_selection)
{
	/* lowest .version ptxas 13.0 accepts for each .target */
	CHECK_INT(ptx_target_min_version(TGT_SM_80), 70);
	CHECK_INT(ptx_target_min_version(TGT_SM_90), 78);
	CHECK_INT(ptx_target_min_version(TGT_SM_90A), 80);
	CHECK_INT(ptx_target_min_version(TGT_SM_100A), 86);
	CHECK_INT(ptx_target_min_version(TGT_SM_100F), 88);
	CHECK_INT(ptx_target_min_version(TGT_SM_103A), 88);
	pt_ctx *c = new_ctx(TGT_SM_90A);
	PtxInst a, b;
	CHECK(ptx_parse(c, "ld.global.b32", (Span){0}, &a));
	CHECK(ptx_parse(c, "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes", (Span){0}, &b));
	const PtxInst *both[] = {&a, &b};
	CHECK_INT(ptx_version_for(TGT_SM_90A, both, 1), 80);
	CHECK_INT(ptx_version_for(TGT_SM_90A, both, 2), 86); /* shared::cta dst: 8.6 */
	CHECK_INT(ptx_version_for(TGT_SM_100F, both, 2), 88);
	CHECK(ptx_parse(c, "ld.shared::cta.b32", (Span){0}, &a));
	CHECK_INT(ptx_version_for(TGT_SM_80, both, 1), 78); /* ::cta needs 7.8 */
	pt_ctx_free(c);
}

TEST(ptx_chain_conversion)
{
	Arena a;
	arena_init(&a, NULL);
	CHECK_STR(ptx_chain_to_spelling(&a, "fence.proxy.async_.shared__cta"),
		  "fence.proxy.async.shared::cta");
	CHECK_STR(ptx_chain_to_spelling(&a, "cp.async_.bulk.commit_group"),
		  "cp.async.bulk.commit_group");
	CHECK_STR(ptx_chain_to_spelling(&a, "cp.async_.bulk.wait_group"),
		  "cp.async.bulk.wait_group");
	CHECK_STR(ptx_chain_to_spelling(&a, "fence.mbarrier_init.release.cluster"),
		  "fence.mbarrier_init.release.cluster");
	CHECK_STR(ptx_chain_to_spelling(&a, "mbarrier.init.shared.b64"),
		  "mbarrier.init.shared.b64");
	CHECK_STR(ptx_chain_to_spelling(&a, "tcgen05.wait__ld.sync.aligned"),
		  "tcgen05.wait::ld.sync.aligned");
	CHECK(ptx_chain_to_spelling(&a, "") == NULL);
	CHECK(ptx_chain_to_spelling(&a, "a..b") == NULL);
	CHECK(ptx_chain_to_spelling(&a, "a.") == NULL);
	arena_free(&a);
}

/* ptx_select on in's spelling, reported; in becomes the chosen row. */
static bool
select_args(pt_ctx *c, PtxInst *in, const PtxArg *args, int n)
{
	PtxSel s;
	PtxMiss why = ptx_select(in->spelling, args, n, &s);
	if (why == PTXM_OK)
		*in = s.inst;
	return ptx_select_report(c, why, &s, n, (Span){0});
}

TEST(ptx_raw_call_operands)
{
	pt_ctx *c = new_ctx(TGT_SM_90A);
	PtxInst in;
	PtxArg r64 = {.kind = PTXOP_REG, .bits = 64};
	PtxArg r32 = {.kind = PTXOP_REG, .bits = 32};
	PtxArg imm1 = {.kind = PTXOP_IMM, .has_value = true, .value = 1};
	PtxArg addr = {.kind = PTXOP_ADDR};
	CHECK(ptx_parse(c, "mapa.u64", (Span){0}, &in));
	PtxArg mapa[] = {r64, r64, imm1};
	CHECK(select_args(c, &in, mapa, 3));
	CHECK(!select_args(c, &in, mapa, 2));
	CHECK_INT(last_code(c), PT_E_PTX_OPERAND_COUNT);
	PtxArg bad[] = {imm1, r64, imm1};
	CHECK(!select_args(c, &in, bad, 3));
	CHECK_INT(last_code(c), PT_E_PTX_OPERAND_KIND);

	CHECK(ptx_parse(c, "setmaxnreg.dec.sync.aligned.u32", (Span){0}, &in));
	PtxArg n40 = {.kind = PTXOP_IMM, .has_value = true, .value = 40};
	PtxArg n20 = {.kind = PTXOP_IMM, .has_value = true, .value = 20};
	CHECK(select_args(c, &in, &n40, 1));
	CHECK(!select_args(c, &in, &n20, 1));
	CHECK_INT(last_code(c), PT_E_PTX_IMMEDIATE_RANGE);

	/* cp.async.cg copies exactly 16 bytes */
	CHECK(ptx_parse(c, "cp.async.cg.shared.global", (Span){0}, &in));
	PtxArg c16 = {.kind = PTXOP_IMM, .has_value = true, .value = 16};
	PtxArg c4 = {.kind = PTXOP_IMM, .has_value = true, .value = 4};
	PtxArg cg16[] = {addr, addr, c16}, cg4[] = {addr, addr, c4};
	PtxArg cgsz[] = {addr, addr, c16, r32};
	CHECK(select_args(c, &in, cg16, 3));
	CHECK(select_args(c, &in, cgsz, 4));
	CHECK(!select_args(c, &in, cg4, 3));
	CHECK_INT(last_code(c), PT_E_PTX_IMMEDIATE_RANGE);

	/* 3-input max.f32 re-selects the sm_100 row */
	PtxArg f32 = {.kind = PTXOP_REG, .bits = 32};
	PtxArg three[] = {f32, f32, f32, f32};
	CHECK(ptx_parse(c, "max.f32", (Span){0}, &in));
	CHECK(ptx_check_target(c, &in, (Span){0}));
	CHECK(select_args(c, &in, three, 4));
	CHECK_INT(in.nops, 4);
	CHECK(!ptx_check_target(c, &in, (Span){0}));
	CHECK_INT(last_code(c), PT_E_PTX_TARGET_TOO_OLD);
	pt_ctx_free(c);
}

/* The one selector: readings, groups spread over arguments, optional
 * operands left out, and why nothing was chosen. */
TEST(ptx_select_maps_arguments)
{
	PtxSel s;
	PtxArg r32 = {.kind = PTXOP_REG, .bits = 32};
	PtxArg r64 = {.kind = PTXOP_REG, .bits = 64};
	PtxArg ptr = {.kind = PTXOP_ADDR, .also = PTX_KIND(PTXOP_REG),
		      .bits = 64};
	PtxArg pred = {.kind = PTXOP_PRED, .bits = 1};
	PtxArg m1 = {.kind = PTXOP_IMM, .has_value = true, .value = -1};
	PtxArg tup2 = {.kind = PTXOP_VEC, .vec = 2};
	/* ld.global.v4.b32: the group as four arguments, then the address */
	PtxArg ld[] = {r32, r32, r32, r32, ptr};
	CHECK_INT(ptx_select("ld.global.v4.b32", ld, 5, &s), PTXM_OK);
	CHECK_INT(s.take[0], 4);
	CHECK_INT(s.take[1], 1);
	/* a ptr_to read as a 64-bit register: mapa.u64 dst, addr, cta */
	PtxArg mapa[] = {r64, ptr, r32};
	CHECK_INT(ptx_select("mapa.u64", mapa, 3, &s), PTXM_OK);
	CHECK_INT(s.take[1], 1);
	PtxArg mapa_bad[] = {r64, pred, r32};
	CHECK_INT(ptx_select("mapa.u64", mapa_bad, 3, &s), PTXM_OPERAND_KIND);
	/* elect.sync's pair as a register and a predicate */
	PtxArg el[] = {r32, pred, m1};
	CHECK_INT(ptx_select("elect.sync", el, 3, &s), PTXM_OK);
	CHECK_INT(s.take[0], 2);
	CHECK_INT(s.take[1], 1);
	/* a tensor operand as the map and one coordinate tuple */
	PtxArg tma[] = {ptr, r64, tup2, ptr};
	CHECK_INT(ptx_select("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
			     tma, 4, &s), PTXM_OK);
	CHECK_INT(s.take[1], 2);
	/* bar.sync id[, count]: the optional count left out (barrier 1:
	 * ids are 0..15, ptxas refuses -1) */
	PtxArg bar1 = {.kind = PTXOP_IMM, .has_value = true, .value = 1};
	CHECK_INT(ptx_select("bar.sync", &bar1, 1, &s), PTXM_OK);
	CHECK_INT(s.take[0], 1);
	CHECK_INT(s.take[1], 0);
	/* why nothing was chosen */
	CHECK_INT(ptx_select("bar.sync", NULL, 0, &s), PTXM_OPERAND_COUNT);
	CHECK_INT(ptx_select("ld.global.v4.b32", ld, 4, &s), PTXM_OPERAND_COUNT);
	PtxArg ld_short[] = {r32, ptr}; /* one register for the group */
	CHECK_INT(ptx_select("ld.global.v4.b32", ld_short, 2, &s),
		  PTXM_OPERAND_KIND);
	CHECK_INT(ptx_select("nosuch.b32", NULL, 0, &s), PTXM_MNEMONIC);
	CHECK_INT(ptx_select("ld.global.v5.b32", NULL, 0, &s), PTXM_QUALIFIERS);
	CHECK_INT(ptx_select("ld global", NULL, 0, &s), PTXM_JUNK);
	PtxArg n20 = {.kind = PTXOP_IMM, .has_value = true, .value = 20};
	CHECK_INT(ptx_select("setmaxnreg.dec.sync.aligned.u32", &n20, 1, &s),
		  PTXM_IMMEDIATE);
	/* a whole-operand argument is never part of a spread group */
	PtxArg one = r32;
	one.one = true;
	PtxArg ld1[] = {one, one, one, one, ptr};
	CHECK_INT(ptx_select("ld.global.v4.b32", ld1, 5, &s), PTXM_OPERAND_COUNT);
}

/* The builtins (codegen/builtin.c) take their gates from these rows:
 * cluster barriers, elect.sync and mbarrier.try_wait from sm_90 (PTX 7.8,
 * 8.0, 7.8), test_wait.parity everywhere from PTX 7.1, %cluster_ctaid
 * from sm_90 and PTX 7.8 (PTX ISA: barrier.cluster and %cluster_ctaid
 * 7.8 sm_90; elect.sync 8.0 sm_90; mbarrier.test_wait.parity 7.1). */
TEST(ptx_builtin_rows)
{
	static const struct {
		const char *spelling;
		int min_ptx;
		PtxGate gate;
	} rows[] = {
		{"barrier.cluster.arrive.aligned", 78, PTXG_SM90},
		{"barrier.cluster.wait.aligned", 78, PTXG_SM90},
		{"elect.sync", 80, PTXG_SM90},
		{"mbarrier.try_wait.parity.shared::cta.b64", 78, PTXG_SM90},
		{"mbarrier.test_wait.parity.shared.b64", 71, PTXG_ANY},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		PtxSel s;
		CHECK_INT(ptx_select(rows[i].spelling, NULL, -1, &s), PTXM_OK);
		CHECK_INT(s.inst.min_ptx, rows[i].min_ptx);
		CHECK_INT(s.inst.gate, rows[i].gate);
	}
	const PtxSregRow *cl = ptx_sreg(PTXR_CLUSTER_CTAID);
	CHECK_STR(cl->name, "%cluster_ctaid");
	CHECK_INT(cl->min_ptx, 78);
	CHECK_INT(cl->gate, PTXG_SM90);
	CHECK(!ptx_gate_allows(PTXG_SM90, TGT_SM_80));
	CHECK(ptx_gate_allows(PTXG_SM90, TGT_SM_90A));
}

/* The cluster directives (PTX ISA "Cluster dimension directives"): PTX
 * 7.8, sm_90 and newer; every other target has them. */
TEST(ptx_directive_rows_gate_cluster_directives)
{
	static const char *const names[] = {
		".maxclusterrank", ".reqnctapercluster", ".explicitcluster"};
	static const PtxDirective ids[] = {
		PTXD_MAXCLUSTERRANK, PTXD_REQNCTAPERCLUSTER,
		PTXD_EXPLICITCLUSTER};
	CHECK_INT(PTXD_COUNT, 3);
	for (int i = 0; i < 3; i++) {
		const PtxDirectiveRow *d = ptx_directive(ids[i]);
		CHECK_STR(d->name, names[i]);
		CHECK_INT(d->min_ptx, 78);
		CHECK(!ptx_gate_allows(d->gate, TGT_SM_80));
		for (int k = TGT_SM_90; k < TGT_COUNT; k++)
			CHECK(ptx_gate_allows(d->gate, (Target)k));
		CHECK_STR(ptx_gate_min_target(d->gate), "sm_90");
	}
}

TEST(ptx_emit_prints_operands)
{
	pt_ctx *c = new_ctx(TGT_SM_90A);
	PtxInst in;
	StrBuf b;
	CHECK(ptx_parse(c, "ld.global.v4.b32", (Span){0}, &in));
	const char *w1[] = {"%r1", "%r2", "%r3", "%r4", "%rd3"};
	sb_init(&b, &c->arena);
	ptx_emit(&b, &in, NULL, NULL, w1);
	CHECK_STR(sb_cstr(&b), "ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd3];");
	CHECK(ptx_parse(c, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", (Span){0}, &in));
	const char *w2[] = {"%r1", "%rd1", "%r2", "%r3", "%r4"};
	sb_init(&b, &c->arena);
	ptx_emit(&b, &in, "%p1", NULL, w2);
	CHECK_STR(sb_cstr(&b), "@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];");
	CHECK(ptx_parse(c, "elect.sync", (Span){0}, &in));
	const char *w3[] = {"%r1", "%p2", "-1"};
	sb_init(&b, &c->arena);
	ptx_emit(&b, &in, NULL, NULL, w3);
	CHECK_STR(sb_cstr(&b), "elect.sync %r1|%p2, -1;");
	CHECK(ptx_parse(c, "bar.sync", (Span){0}, &in));
	const char *w4[] = {"0"};
	bool present[] = {true, false};
	sb_init(&b, &c->arena);
	ptx_emit(&b, &in, NULL, present, w4);
	CHECK_STR(sb_cstr(&b), "bar.sync 0;");
	pt_ctx_free(c);
}

TEST(ptx_table_invariants)
{
	bool fam_seen[PTXF_COUNT] = {0};
	pt_ctx *c = new_ctx(TGT_SM_100A);
	uint64_t rng = 12345;
	for (int i = 0; i < ptx_form_count(); i++) {
		const PtxForm *f = ptx_form(i);
		fam_seen[f->family] = true;
		CHECK(f->mnemonic[0] >= 'a' && f->mnemonic[0] <= 'z');
		CHECK(f->min_ptx >= 70 && f->min_ptx <= 90);
		CHECK((int)f->gate >= 0 && f->gate < PTXG_COUNT);
		/* every sampled spelling parses back (to this row or an
		 * earlier one accepting the same text) */
		for (int k = 0; k < 8; k++) {
			char buf[512];
			PtxInst in;
			ptx_form_sample(i, &rng, buf, sizeof buf);
			if (!ptx_parse(c, buf, (Span){0}, &in))
				test_fail(t, __FILE__, __LINE__, "row %d sample %s does not parse", i, buf);
			else if (in.form > i)
				test_fail(t, __FILE__, __LINE__, "row %d sample %s parsed as later row %d", i, buf, in.form);
			ctx_reset(c);
		}
	}
	for (int f = 0; f < PTXF_COUNT; f++)
		if (!fam_seen[f])
			test_fail(t, __FILE__, __LINE__, "family %s has no form", ptx_family_name((PtxFamily)f));
	/* gates agree with the target table */
	CHECK(ptx_gate_allows(PTXG_ANY, TGT_SM_80));
	CHECK(!ptx_gate_allows(PTXG_SM90A, TGT_SM_90));
	CHECK(ptx_gate_allows(PTXG_SM90A, TGT_SM_100F));
	CHECK(!ptx_gate_allows(PTXG_SM100, TGT_SM_90A));
	CHECK_STR(ptx_gate_min_target(PTXG_SM100), "sm_100a");
	pt_ctx_free(c);
}

/* The text rule the qualifier set replaces, written out here so the
 * test does not lean on the matcher: q at a '.' of the qualifier text
 * (after the mnemonic), followed by the end or the next '.'. */
static bool
text_has(const char *spelling, const char *mnemonic, const char *q)
{
	size_t l = strlen(q);
	for (const char *p = spelling + strlen(mnemonic); *p; p++)
		if (*p == '.' && strncmp(p, q, l) == 0 &&
		    (p[l] == 0 || p[l] == '.'))
			return true;
	return false;
}

struct alt_find {
	const char *q;
	bool found;
};

static void
alt_holds(void *ud, const char *alt, int len)
{
	struct alt_find *f = ud;
	char buf[256];
	snprintf(buf, sizeof buf, "%.*s", len, alt);
	if (text_has(buf, "", f->q))
		f->found = true;
}

/* Qualifiers are data (issue 21): the matcher fills each named
 * qualifier's bit and the shape once; a qualifier the form lacks answers
 * false; every name is spelt in some row of the table. */
TEST(ptx_quals_are_data)
{
	pt_ctx *c = new_ctx(TGT_SM_100A);
	PtxInst in;
	CHECK(ptx_parse(c, "ldmatrix.sync.aligned.m8n8.x4.shared.b16", (Span){0}, &in));
	CHECK(!ptx_has(&in, PQ_TRANS)); /* the form lacks it */
	CHECK(ptx_has(&in, PQ_B16));
	CHECK(!ptx_has(&in, PQ_L2_CACHE_HINT));
	CHECK_INT(in.shape_m, 8);
	CHECK_INT(in.shape_n, 8);
	CHECK_INT(in.shape_k, 0);
	/* .shared is not a prefix match of .shared::cluster */
	CHECK(ptx_parse(c, "mbarrier.arrive.release.cluster.shared::cluster.b64", (Span){0}, &in));
	CHECK(ptx_has(&in, PQ_SHARED_CLUSTER));
	CHECK(!ptx_has(&in, PQ_SHARED));
	CHECK(ptx_parse(c, "wgmma.mma_async.sync.aligned.m64n136k16.f32.bf16.bf16", (Span){0}, &in));
	CHECK_INT(in.shape_m, 64);
	CHECK_INT(in.shape_n, 136);
	CHECK_INT(in.shape_k, 16);
	CHECK(ptx_parse(c, "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", (Span){0}, &in));
	CHECK_INT(in.shape_k, 8);
	CHECK(ptx_has(&in, PQ_MMA_F32_BF16));
	CHECK(!ptx_has(&in, PQ_MMA_F32_F16));
	CHECK(ptx_parse(c, "cp.async.ca.shared.global", (Span){0}, &in));
	CHECK(!ptx_has(&in, PQ_CG));
	CHECK_INT(in.shape_m, 0);
	/* the types in the order written, tagged or not, and the last state
	 * space spelt: the spelling .shared then .global */
	CHECK_INT(in.ntypes, 0);
	CHECK_INT(in.spelled_space, PSP_GLOBAL);
	CHECK(ptx_parse(c, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2", (Span){0}, &in));
	CHECK_INT(in.ntypes, 3);
	CHECK_INT(in.types[0], PTY_F32);
	CHECK_INT(in.types[1], PTY_E4M3);
	CHECK_INT(in.types[2], PTY_E5M2);
	CHECK_INT(in.spelled_space, PSP_GENERIC);
	CHECK(ptx_parse(c, "cvt.rn.f16.f32", (Span){0}, &in));
	CHECK_INT(in.ntypes, 2);
	CHECK_INT(in.types[0], PTY_F16);
	CHECK_INT(in.types[1], PTY_F32);
	CHECK(ptx_has(&in, PQ_RN) && !ptx_has(&in, PQ_RNI));
	/* an unspelt space is generic even where the operand implies one */
	CHECK(ptx_parse(c, "mbarrier.arrive.shared::cta.b64", (Span){0}, &in));
	CHECK_INT(in.spelled_space, PSP_SHARED_CTA);
	CHECK(ptx_parse(c, "mbarrier.arrive.b64", (Span){0}, &in));
	CHECK_INT(in.spelled_space, PSP_GENERIC);
	CHECK_INT(in.types[0], PTY_B64);
	/* .lo is a whole dot-part: not the start of .local */
	CHECK(ptx_parse(c, "ld.local.u32", (Span){0}, &in));
	CHECK(!ptx_has(&in, PQ_LO));
	CHECK_INT(in.spelled_space, PSP_LOCAL);
	/* every name is part of some row's alternative (no drift) */
	for (int q = 0; q < PQ_COUNT; q++) {
		struct alt_find f = {ptx_qual_text((PtxQual)q), false};
		for (int i = 0; i < ptx_form_count() && !f.found; i++)
			ptx_form_each_alt(i, alt_holds, &f);
		if (!f.found)
			test_fail(t, __FILE__, __LINE__, "qualifier %s is in no form row", f.q);
	}
	/* on sampled spellings of every row, the set agrees with the text
	 * rule for every name */
	uint64_t rng = 777;
	for (int i = 0; i < ptx_form_count(); i++)
		for (int k = 0; k < 6; k++) {
			char buf[512];
			ptx_form_sample(i, &rng, buf, sizeof buf);
			if (!ptx_parse(c, buf, (Span){0}, &in))
				continue; /* ptx_table_invariants reports it */
			for (int q = 0; q < PQ_COUNT; q++)
				if (ptx_has(&in, (PtxQual)q) !=
				    text_has(buf, in.mnemonic, ptx_qual_text((PtxQual)q)))
					test_fail(t, __FILE__, __LINE__, "%s: %s answers %d", buf,
						  ptx_qual_text((PtxQual)q), ptx_has(&in, (PtxQual)q));
			ctx_reset(c);
		}
	pt_ctx_free(c);
}

/* The operand description names each operand once, immediates with just
 * their allowed set (explain and operand-mismatch messages use it). */
TEST(ptx_describe_operands_text)
{
	pt_ctx *c = pt_ctx_new(NULL);
	PtxInst in;
	Span sp = {0, 0, 0};
	CHECK(ptx_parse(c, "cp.async.ca.shared.global", sp, &in));
	const char *d = ptx_describe_operands(&c->arena, &in);
	CHECK(strstr(d, "imm{4,8,16}") != NULL);
	CHECK(strstr(d, "imm{4,8,16},") == NULL ||
	      strstr(d, "imm{4,8,16}, ") != NULL);
	CHECK(strstr(d, ":u32?") == NULL); /* no raw row text */
	pt_ctx_free(c);
}

/* The vocabulary (mnemonics.def) and the form table name the same
 * instructions: every row's mnemonic has an id, which a selection
 * carries, and every id but the emulator loader's own call is some
 * row's (bra's too: its label operand is a row's). */
TEST(ptx_mnemonics)
{
	bool used[PTXMN_COUNT] = {0};
	for (int i = 0; i < ptx_form_count(); i++) {
		const char *mn = ptx_form(i)->mnemonic;
		PtxMnem m = ptx_mnem_named(mn, strlen(mn));
		if (m == PTXMN_NONE)
			test_fail(t, __FILE__, __LINE__, "form row %d: mnemonic %s is not in mnemonics.def", i, mn);
		else if (strcmp(ptx_mnem_text(m), mn) != 0)
			test_fail(t, __FILE__, __LINE__, "mnemonic %s looks up as %s", mn, ptx_mnem_text(m));
		used[m] = true;
	}
	for (int m = 1; m < PTXMN_COUNT; m++)
		if (!used[m] && m != PTXMN_CALL)
			test_fail(t, __FILE__, __LINE__, "mnemonic %s is in no form row", ptx_mnem_text((PtxMnem)m));
	pt_ctx *c = new_ctx(TGT_SM_100A);
	PtxInst in;
	CHECK(ptx_parse(c, "mbarrier.try_wait.parity.shared::cta.b64", (Span){0}, &in));
	CHECK_INT(in.mnem, PTXMN_MBARRIER_TRY_WAIT_PARITY);
	CHECK(ptx_parse(c, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", (Span){0}, &in));
	CHECK_INT(in.mnem, PTXMN_CP_ASYNC_BULK_TENSOR);
	/* the longest prefix ending at a dot, for the loader's own forms */
	CHECK_INT(ptx_mnem_prefix("bra.uni"), PTXMN_BRA);
	CHECK_INT(ptx_mnem_prefix("cp.async.bulk.commit_group"), PTXMN_CP_ASYNC_BULK_COMMIT_GROUP);
	CHECK_INT(ptx_mnem_prefix("mbarrier.arrive.expect_tx.shared.b64"), PTXMN_MBARRIER_ARRIVE_EXPECT_TX);
	CHECK_INT(ptx_mnem_prefix("ldx.global.u32"), PTXMN_NONE);
	CHECK_INT(ptx_mnem_prefix("st.bulk"), PTXMN_ST_BULK);
	pt_ctx_free(c);
}
