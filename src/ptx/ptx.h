/*
 * ptx.h - the PTX form table, the spelling parser, operand signatures and
 * target gating (src/ptx/).
 *
 * Input: an instruction spelling such as "ld.global.v4.b32" (from a tile
 * call's T.ptx["..."] or a raw T.ptx.chain call) and the compile target.
 * Output: a PtxInst naming the matched table row with its operand
 * signature resolved (types, vector counts, state spaces), or a
 * diagnostic.  Nothing that did not match a row is ever returned, so no
 * unvalidated text reaches the emitted PTX.
 *
 * The table (forms_*.def) has one FORM row per group of spellings:
 *
 *   FORM(family, "mnemonic", "qualifier template", "operands", min_ptx, gate)
 *
 * Qualifier template: a sequence of groups matched left to right.
 *   .sync                 a required qualifier
 *   {.a,.b.c}             exactly one alternative (an alternative may hold
 *                         several qualifiers)
 *   {.a,.b}?              at most one alternative
 *   t{...} u{...} v{...} n{...} s{...}
 *                         a tagged group: t/u give the operand types $t/$u
 *                         (the alternative's name), v/n give the numbers
 *                         $v/$n (the digits in the alternative, e.g. .v4,
 *                         .x16, .2d), s gives the state space $s.
 *   w{...}                a shape .mMnNkK: $n is its N (wgmma).
 *
 * Operands, comma-separated, in PTX order:
 *   [>]KIND[:ARG][*COUNT][@[!]QUAL][^][?]
 *   >      written by the instruction (else read)
 *   r      one register of type ARG (a type name, $t or $u)
 *   ri     register or immediate of type ARG
 *   p      predicate register
 *   g      a {..} group of COUNT registers, or one register when COUNT is 1
 *   v      a {..} group of COUNT registers
 *   a      address [reg] in state space ARG (space name or $s; none =
 *          generic)
 *   t      tensor-map address with COUNT coordinates [tmap, {c0, ...}]
 *   e      register|predicate pair (elect.sync), two words "d|p"
 *   i      immediate; ARG is the allowed set {4,8,16} or {lo..hi/step}
 *   _      the sink `_` (mbarrier.arrive on a shared::cluster address
 *          returns no state): printed as is, never filled by an argument
 *   l      a label, the branch target (bra): printed as is, filled by
 *          a label argument only (PTX text; no script value reads as one)
 *   c      a call's list of COUNT .param names of its call block,
 *          (p0, p1) (call's return and arguments; registers of type
 *          ARG): filled by such a list only (PTX text, as a label)
 *   %name  a special register the form reads (mov.u64 d, %clock64):
 *          printed as is, never filled by an argument
 *   =text  a constant operand printed as text, never an argument
 *          (TIRx's two-operand st.bulk, whose initval is always 0)
 *   COUNT  a number or $v/$n, then optional +k -k *k /k steps
 *   @QUAL  present only when the spelling has QUAL (@!QUAL: only without)
 *   ^      an address ptxas takes only in a register (st.bulk): a
 *          shared buffer's symbol is moved into one first
 *   &      an address that is a .param of the enclosing call block
 *          ([p]: a call argument's st.param), filled by such a name
 *          only (no script value is one)
 *   ?      optional (may be left out by the caller)
 *
 * Several rows may accept one spelling with different operand lists (e.g.
 * 2- and 3-input min.f32, tcgen05.mma with a smem or tmem A operand):
 * ptx_select picks by the arguments; every caller (the checker for raw
 * and tile calls and for builtins' gated instructions, the emulator's
 * loader) goes through it, and the chosen form travels in the IR
 * (Expr.u.ptx.sel, Expr.u.ptx.row, Expr.u.call.forms) to codegen, which
 * only prints (an unselected node there is E3010).  A tile lowering
 * issues the row its checker chose (ir_ptx_issue) without fitting it
 * again: which argument fills which operand is bound where codegen
 * prints them (ptx_bind; a misfit is the internal error E3011).  The
 * scalar instructions codegen prints from its own text (setp, selp, mad,
 * bra, ld.param, ...) are rows as well: tests/suites/vocab.sh selects
 * every line codegen emits through the emulator loader's selection.
 *
 * After matching, the instruction is data: its mnemonic is an id
 * (mnemonics.def, PtxInst.mnem), its named qualifiers (quals.def) are a
 * bit set asked with ptx_has(in, PQ_*), its shape .mMnN[kK] is
 * shape_m/n/k, its types in written order types[] and the state space
 * it spells spelled_space; no later stage reads the spelling text.
 *
 * Raw T.ptx calls take the PTX operand list of the form in PTX order; the
 * first operand is the written one when the form writes (e.g. mapa.u64
 * dst, addr, cta; elect.sync dst|pred, mask).  Examples:
 *   mbarrier.init.shared.b64               [mbar], count
 *   mbarrier.arrive.expect_tx.shared.b64   state, [mbar], tx_bytes
 *   mbarrier.try_wait.parity.shared.b64    pred, [mbar], parity
 *   mapa.u64                               dst, addr, cta
 *   fence.proxy.async.shared::cta          (none)
 *   cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes
 *                                          [dst], [src], bytes, [mbar]
 *   cp.async.bulk.commit_group             (none)
 *   cp.async.bulk.wait_group               n
 *   setmaxnreg.dec.sync.aligned.u32        n (24..256, multiple of 8)
 *   bar.sync                               id[, count]
 *   elect.sync                             dst|pred, mask
 * ptx_describe_operands() prints the signature of any form.
 */
#ifndef PT_PTX_H
#define PT_PTX_H

#include "base/base.h"

#define PTX_MAX_OPS 12

typedef enum PtxType {
#define PTYPE(id, name, bits, bytes, cls) PTY_##id,
#include "ptx/types.def"
#undef PTYPE
	PTY_COUNT
} PtxType;

typedef enum PtxSpace {
#define PSPACE(id, name, bits) PSP_##id,
#include "ptx/spaces.def"
#undef PSPACE
	PSP_COUNT
} PtxSpace;

typedef enum PtxFamily {
#define PFAM(id, name, contract) PTXF_##id,
#include "ptx/families.def"
#undef PFAM
	PTXF_COUNT
} PtxFamily;

typedef enum PtxGate {
#define GATE(id, name, sm, spec, mask) PTXG_##id,
#include "ptx/gates.def"
#undef GATE
	PTXG_COUNT
} PtxGate;

/* The named qualifiers (quals.def): a selected instruction answers
 * ptx_has(in, PQ_id) from its qualifier set, never from its text. */
typedef enum PtxQual {
#define QUAL(id, text) PQ_##id,
#include "ptx/quals.def"
#undef QUAL
	PQ_COUNT
} PtxQual;
#define PTX_QUAL_WORDS ((PQ_COUNT + 63) / 64)

/* The instruction vocabulary (mnemonics.def): a selected instruction's
 * mnemonic as an id, PtxInst.mnem. */
typedef enum PtxMnem {
	PTXMN_NONE,
#define MNEM(id, text) PTXMN_##id,
#include "ptx/mnemonics.def"
#undef MNEM
	PTXMN_COUNT
} PtxMnem;

typedef enum PtxSreg {
#define SREG(id, name, min_ptx, gate) PTXR_##id,
#include "ptx/sregs.def"
#undef SREG
	PTXR_COUNT
} PtxSreg;

typedef enum PtxDirective {
#define DIRECTIVE(id, name, min_ptx, gate) PTXD_##id,
#include "ptx/directives.def"
#undef DIRECTIVE
	PTXD_COUNT
} PtxDirective;

typedef enum PtxOpKind {
	PTXOP_REG,    /* one register: %r1 */
	PTXOP_PRED,   /* a predicate register: %p1 */
	PTXOP_VEC,    /* a group of vec registers: {%r1, %r2} */
	PTXOP_ADDR,   /* [%rd1] in state space `space` */
	PTXOP_TENSOR, /* [%rd1, {%r1, %r2}]: tensor map + vec coordinates */
	PTXOP_PAIR,   /* %r1|%p1 (elect.sync) */
	PTXOP_IMM,    /* an integer constant */
	PTXOP_SINK,   /* the sink `_` or a special register (word): always
		       * printed, never an argument */
	PTXOP_LABEL,  /* a label (bra's target) */
	PTXOP_PARAMS  /* (p0, p1): vec .param names of a call block */
} PtxOpKind;

typedef struct PtxOperand {
	PtxOpKind kind;
	bool out;          /* written by the instruction */
	bool optional;     /* the caller may leave it out */
	bool imm_ok;       /* REG that may also be an immediate */
	bool reg_addr;     /* ADDR that must be [reg]: no [symbol] */
	bool callp;	   /* ADDR, PARAMS: names .params of the call block
			    * (filled only by a PtxArg.callp argument) */
	const char *word;  /* SINK: "%clock64", "0" up to ',' (NULL: `_`) */
	PtxType type;      /* register type (PTY_NONE for ADDR/TENSOR/IMM) */
	int vec;           /* registers in a VEC, coordinates of a TENSOR */
	PtxSpace space;    /* state space of an ADDR */
	const char *imm;   /* allowed set of an IMM ("{4,8,16}") or NULL */
} PtxOperand;

typedef struct PtxInst {
	const char *spelling; /* canonical text as written (arena) */
	PtxFamily family;
	const char *mnemonic; /* "ld", "mma.sync", "cp.async.bulk.tensor"... */
	PtxMnem mnem;         /* the same as an id (mnemonics.def) */
	int form;             /* row index in the form table */
	int nops;
	PtxOperand ops[PTX_MAX_OPS];
	int min_ptx;          /* e.g. 80 for PTX ISA 8.0 */
	PtxGate gate;
	int min_sm;
	bool needs_arch_specific; /* 'a' or 'f' target required */
	/* qualifiers later stages need (0/PTY_NONE/PSP_GENERIC if absent) */
	PtxType type, type2;  /* $t and $u */
	int vec;              /* $v: .v4 -> 4, .x2 -> 2 */
	int num;              /* $n: .2d -> 2, .x16 -> 16 */
	PtxSpace space;       /* $s */
	/* the shape qualifier .mMnN[kK] (mma.sync, wgmma, ldmatrix), 0 if
	 * the spelling has none */
	int shape_m, shape_n, shape_k;
	uint64_t quals[PTX_QUAL_WORDS]; /* bit PQ_id: the spelling has it */
	/* every type qualifier of the spelling in the order written, tagged
	 * or not (an MMA's .dtype.atype.btype; .f32.f16 of add.f32.f16),
	 * and the last state space it names (PSP_GENERIC: none, where an
	 * address operand's space may still be implied: ptx_addr_space) */
	PtxType types[4];
	int ntypes;
	PtxSpace spelled_space;
} PtxInst;

/* One argument of a call as ptx_select sees it: its plain reading
 * (kind) and the other operand kinds it may stand for (also, a mask of
 * PTX_KIND bits: a ptr_to is an address or a 64-bit register). */
typedef struct PtxArg {
	PtxOpKind kind;   /* REG, PRED, VEC (a tuple), ADDR, IMM (TENSOR, PAIR) */
	unsigned also;    /* PTX_KIND() bits of further readings */
	bool any;         /* a stand-in that fills any one operand */
	bool one;         /* fills one whole operand, never part of a
			   * group spread over arguments */
	bool callp;	  /* names .params of a call block (the loader's
			   * reading of PTX text; no script value does) */
	int bits;         /* register width; 0 = unknown/any */
	int vec;          /* registers in a VEC */
	bool has_value;   /* IMM with a known value */
	long long value;
} PtxArg;
#define PTX_KIND(k) (1u << (k))

/* Why ptx_select found no form. */
typedef enum PtxMiss {
	PTXM_OK,
	PTXM_JUNK,          /* not a dotted qualifier chain */
	PTXM_MNEMONIC,      /* no row has the mnemonic */
	PTXM_QUALIFIERS,    /* no row of the mnemonic takes the qualifiers */
	PTXM_OPERAND_COUNT, /* no row takes that many arguments */
	PTXM_OPERAND_KIND,  /* the arguments fit no row's operands */
	PTXM_IMMEDIATE,     /* they fit only with an immediate out of range */
} PtxMiss;

/* ptx_select's answer. */
typedef struct PtxSel {
	PtxInst inst;           /* the chosen form; on an operand miss the
				 * first row accepting the spelling; on a
				 * qualifier miss inst.mnemonic is the
				 * longest mnemonic prefix */
	int take[PTX_MAX_OPS];  /* arguments per operand, 0 = left out */
	uint32_t counts;        /* bit n: some row takes n arguments */
} PtxSel;

/* The one instruction selector: the first form row (table order) that
 * accepts the spelling and whose operands the arguments fill, in order,
 * leaving out optional operands they do not fill (backtracking).  An
 * argument fills one operand in any of its readings; a vector's
 * registers, a tensor's map and coordinates and a pair's register and
 * predicate may also come as consecutive arguments.  nargs < 0: the
 * spelling only (the first row accepting it).  Pure: out->inst.spelling
 * is the caller's pointer; no diagnostic (ptx_select_report gives it). */
PtxMiss ptx_select(const char *spelling, const PtxArg *args, int nargs,
		   PtxSel *out);
/* The first character of s that no spelling may hold (letters, digits,
 * '_', ':' and '.' may), or NULL. */
const char *ptx_spelling_bad_char(const char *s);
/* ptx_select's binding of arguments to the operands of one row already
 * chosen (an issued instruction's, bound where codegen prints it):
 * take[PTX_MAX_OPS] gets the arguments per operand, 0 = left out.  On
 * PTXM_IMMEDIATE the binding is filled (only a value is out of range);
 * on any other miss take is meaningless. */
PtxMiss ptx_bind(const PtxInst *row, const PtxArg *args, int nargs, int *take);
/* Records the diagnostic (PT_E_PTX_*) for a miss; false unless why is
 * PTXM_OK. */
bool ptx_select_report(Ctx *c, PtxMiss why, const PtxSel *s, int nargs,
		       Span sp);
/* The spelling alone (ptx_select with nargs < 0, reported): the first
 * row accepting it, spelling copied to the arena. */
bool ptx_parse(Ctx *c, const char *spelling, Span sp, PtxInst *out);
/* Checks that c->target supports inst; the diagnostic names the
 * instruction and the minimum target. */
bool ptx_check_target(Ctx *c, const PtxInst *inst, Span sp);
/* Lowest PTX ISA version (e.g. 80 = 8.0) valid for this target. */
int ptx_target_min_version(Target t);
/* The .version for a kernel using insts on target t. */
int ptx_version_for(Target t, const PtxInst *const *insts, int n);
/* T.ptx dotted chain -> spelling: `__` means `::`, a trailing `_` of a
 * part is dropped (fence.proxy.async_.shared__cta ->
 * fence.proxy.async.shared::cta).  NULL for an empty or malformed chain. */
const char *ptx_chain_to_spelling(Arena *a, const char *chain);
/* True when the selected spelling holds the named qualifier; filled once
 * by the matcher, so a qualifier the form lacks answers false. */
bool ptx_has(const PtxInst *inst, PtxQual q);
/* A mnemonic's text ("cp.async.bulk"), and the id of text[0..len)
 * (PTXMN_NONE: no row). */
const char *ptx_mnem_text(PtxMnem m);
PtxMnem ptx_mnem_named(const char *text, size_t len);
/* The longest mnemonic that the spelling starts with, ending at a '.' or
 * the end ("bra.uni" -> PTXMN_BRA); PTXMN_NONE when none does. */
PtxMnem ptx_mnem_prefix(const char *spelling);
/* The text of a named qualifier (".L2::cache_hint"). */
const char *ptx_qual_text(PtxQual q);
/* The state space of the selected form's address operand: a form row
 * may spell it as a tagged group (s{.shared}?) or a literal
 * (.shared::cta, then only the operand records it).  The instruction's
 * space when it has no address operand. */
int ptx_addr_space(const PtxInst *inst);
/* True when v is allowed for an IMM operand. */
bool ptx_imm_ok(const PtxOperand *op, long long v);
/* Number of text words operand op consumes in ptx_emit. */
int ptx_operand_words(const PtxOperand *op);
/* Emits "[@pred ]spelling w, w, ...;" printing each operand generically
 * ({a, b}, [a], [t, {c}], a|b) from words in operand order; ops[i] is
 * emitted when present[i] (present may be NULL = all). */
void ptx_emit(StrBuf *b, const PtxInst *inst, const char *pred,
	      const bool *present, const char *const *words);
/* One-line operand signature, e.g. "out g(b32 x4), in [global]". */
const char *ptx_describe_operands(Arena *a, const PtxInst *inst);

const char *ptx_type_name(PtxType t);
int ptx_type_bits(PtxType t);
const char *ptx_space_name(PtxSpace s);
int ptx_space_addr_bits(PtxSpace s);
const char *ptx_family_name(PtxFamily f);
/* A special register's row: name ("%cluster_ctaid"), PTX version, gate. */
typedef struct PtxSregRow {
	const char *name;
	int min_ptx;
	PtxGate gate;
} PtxSregRow;
const PtxSregRow *ptx_sreg(PtxSreg r);
/* A kernel directive's row (directives.def): the same fields. */
typedef PtxSregRow PtxDirectiveRow;
const PtxDirectiveRow *ptx_directive(PtxDirective d);
/* Whether target t passes gate g; the minimum target name of g. */
bool ptx_gate_allows(PtxGate g, Target t);
const char *ptx_gate_min_target(PtxGate g);

/* ---- the form table (form.c), for tests and the differential tool ---- */

typedef struct PtxForm {
	PtxFamily family;
	const char *mnemonic;
	const char *tpl;
	const char *ops;
	int min_ptx;
	PtxGate gate;
} PtxForm;

int ptx_form_count(void);
const PtxForm *ptx_form(int i);
/* Matches the qualifier text after the mnemonic (starting with '.' or
 * empty) against row i; fills inst (without spelling) on success. */
bool ptx_form_match(int i, const char *quals, PtxInst *inst);
/* Writes a random spelling that row i accepts into buf (size n); rng is
 * a caller-owned xorshift state. */
void ptx_form_sample(int i, uint64_t *rng, char *buf, size_t n);
/* Every qualifier alternative text of row i, through a callback. */
void ptx_form_each_alt(int i, void (*fn)(void *ud, const char *alt, int len),
		       void *ud);
uint64_t ptx_rng_next(uint64_t *s);

#endif
