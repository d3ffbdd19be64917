"""FP8 GEMM on Hopper (sm_90a): fp8_matmul(a, b, scale_a, scale_b).

D = A . B^T with float8 A (M, K) and B (N, K) (both K-contiguous,
torch.float8_e4m3fn or torch.float8_e5m2 for either), float32
accumulation and bf16 (or float32) D, the scales applied as
torch._scaled_mm's three modes define them, chosen from the scale
shapes:

  tensor-wise  scale_a and scale_b one float32 each (numel 1)
  row-wise     scale_a (M,) or (M, 1), scale_b (N,) or (1, N) or (N, 1)
               (a one-element scale on one side is broadcast to rows)
  block-wise   scale_a (M, ceil(K/128)): one per row of A per 128-wide K
               block (any strides; torch's column-major (1, M) layout with
               M % 4 == 0 is used without a copy); scale_b
               (ceil(N/128), ceil(K/128)): one per 128 x 128 block of B,
               any strides (torch's _scaled_mm takes its transpose)

The kernels are the scripts gemm_fp8.py, gemm_fp8_rowwise.py and
gemm_fp8_block.py (ptxtile/kernels/scripts/, copies of examples/) (two-level accumulation: each 128-wide K block is
summed by wgmma into a fresh accumulator and promoted into float32
registers with its scales), compiled with their module constants
(AT / BT / MMA, CT / F32 / CW, BN / ST: constants()) set through
ptxtile.compile(constants=).  The tile
width BN and ring depth ST are tuned per (M, N, K) by ptxtile.autotune
(tuner()): the first call of a shape times each CONFIGS candidate and
synchronizes, so make it outside CUDA graph capture; the winner is
stored in ptxtile's cache, and PTXTILE_AUTOTUNE_CONFIG=0 takes the
script's own (BN, ST) untimed.  At M <= SWAP_M (128), in every mode,
the tuned kernel is also timed against the float8 swap-AB
configurations of kernels/_gemm.py (gemm_swapab.py: weight rows on
wgmma's M side, split-K; block-wise with the same two-level
accumulation, SCALE 3) and the faster one is kept (in _gemm's tuner
file).  Errors are ValueError /
TypeError naming the argument and what it needs.
"""
import os
import threading

try:  # fp8_matmul takes torch tensors; the script helpers need no torch
    import torch
except ImportError:
    torch = None

_SCRIPTS = {"tensor": "gemm_fp8.py", "row": "gemm_fp8_rowwise.py",
            "block": "gemm_fp8_block.py"}
_SHORT = {"float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}
# the (BN, ST[, DB]) module constants tried per shape, the script's own
# first (the default when tuning is off): 128 x BN tiles per CTA, ST ring
# stages (as many as fit in shared memory beside the C staging)
# (the block kernel's DB: 1, K blocks in pairs with two accumulators,
# BN <= 128; 0, one block at a time: 7-15% slower at BN 128 on the H200,
# bench/README.md session 7)
CONFIGS = {"tensor": ((256, 4), (192, 4), (128, 6), (64, 8)),
           "row": ((256, 4), (192, 4), (128, 6), (64, 8)),
           "block": ((128, 5, 1), (128, 5, 0), (192, 4, 0), (64, 7, 0))}
# variants that the GPU tests and bench/fp8 run but the tuner does not
# try until measured faster somewhere: the block kernel's pairs at BN 64
# (773-881 TFLOP/s against 951-1160 at BN 128 in the session 7 probe)
UNTUNED = {"tensor": (), "row": (), "block": ((64, 7, 1),)}


def config_values(c):
    """(BN, ST, DB) of a CONFIGS entry (DB None where it has none)."""
    return (c[0], c[1], c[2] if len(c) > 2 else None)


def config_name(c):
    """A CONFIGS entry as BN/ST, or BN/ST/DB with two accumulators."""
    return "/".join(str(x) for x in c)
_lock = threading.Lock()
_kernels = {}
_tuners = {}
_sms = {}
_best = {}  # (mode, M, N, K, types, C type, device) -> tuned Kernel


def script_path(mode):
    """The script of a scaling mode ('tensor', 'row', 'block'): the copy
    shipped in ptxtile/kernels/scripts/ (package data; the same bytes as
    the repository's examples/, which python/tests/test_fp8_gemm.py
    checks)."""
    from . import _registry
    return _registry.script_path(_SCRIPTS[mode][:-3])


def constants(mode, a_type="float8_e4m3fn", b_type="float8_e4m3fn",
              out="bfloat16", BN=None, ST=None, PI=None, DB=None, GM=None):
    """The module constants (ptxtile.compile(constants=)) of one variant:
    the operand types AT / BT and the wgmma form MMA they and BN select,
    C's type (CT / F32 / CW), the tile width BN, ring depth ST and tile
    order GM (cluster rows per group; the script's own values when None),
    and for the block kernel PI, the K blocks per promotion (1; more only
    for scales constant along K) and DB (1, the script's: K blocks in
    pairs, two fresh accumulators, BN <= 128 and PI 1 only; 0: one block
    at a time, what BN 192 or PI > 1 get when DB is None)."""
    for t in (a_type, b_type):
        if t not in _SHORT:
            raise ValueError("float8 type %r: use float8_e4m3fn or "
                             "float8_e5m2" % (t,))
    if out not in ("bfloat16", "float32"):
        raise ValueError("C type %r: use bfloat16 or float32" % (out,))
    bn = BN if BN is not None else CONFIGS[mode][0][0]
    c = {"AT": a_type, "BT": b_type,
         "MMA": "wgmma.mma_async.sync.aligned.m64n%dk32.f32.%s.%s"
                % (bn, _SHORT[a_type], _SHORT[b_type])}
    if out == "float32":
        c.update(CT="float32", F32=1, CW=32)
    if BN is not None:
        c["BN"] = BN
    if ST is not None:
        c["ST"] = ST
    if PI is not None:
        c["PI"] = PI
    if GM is not None:
        if not isinstance(GM, int) or isinstance(GM, bool) or GM < 1:
            raise ValueError("GM (cluster rows per tile group) must be a "
                             "positive int, not %r" % (GM,))
        c["GM"] = GM
    if mode == "block":
        # the script's DB 1 takes BN <= 128 and PI 1: another BN or PI
        # without a DB is DB 0
        wide = bn > 128 or (PI is not None and PI != 1)
        if DB is None and wide:
            DB = 0
        if DB not in (None, 0, 1):
            raise ValueError("DB %r: 0 or 1" % (DB,))
        if DB == 1 and wide:
            raise ValueError("DB 1 (K blocks in pairs) needs BN <= 128 "
                             "and PI 1; got BN %d, PI %r" % (bn, PI))
    if DB is not None:
        if mode != "block":
            raise ValueError("DB is a constant of the block kernel only")
        c["DB"] = DB
    return c


def kernel(mode, a_type="float8_e4m3fn", b_type="float8_e4m3fn",
           target="sm_90a", out="bfloat16", BN=None, ST=None, PI=None,
           DB=None, GM=None):
    """The compiled ptxtile.Kernel of one variant (compiled once per
    process; ptxtile's disk cache keeps it across processes)."""
    import ptxtile  # the package (this module is inside it)
    key = (mode, a_type, b_type, target, out, BN, ST, PI, DB, GM)
    with _lock:
        k = _kernels.get(key)
    if k is None:
        k = ptxtile.compile(script_path(mode), target=target,
                            constants=constants(mode, a_type, b_type, out,
                                                BN, ST, PI, DB, GM))
        with _lock:
            k = _kernels.setdefault(key, k)
    return k


def tuner(mode, a_type="float8_e4m3fn", b_type="float8_e4m3fn",
          out="bfloat16"):
    """A ptxtile.autotune tuner of one mode and types over the (BN, ST)
    of CONFIGS[mode], keyed by (M, N, K): the first call of a shape times
    every candidate (interleaved CUDA-event rounds, and synchronizes) and
    stores the winner in ptxtile's cache; PTXTILE_AUTOTUNE_CONFIG=0 takes
    the script's own (BN, ST) untimed."""
    import ptxtile
    key = (mode, a_type, b_type, out)
    with _lock:
        t = _tuners.get(key)
    if t is None:
        configs = [constants(mode, a_type, b_type, out,
                             *config_values(c)) for c in CONFIGS[mode]]
        t = ptxtile.autotune(script_path(mode), configs=configs,
                             key=["M", "N", "K"], target="sm_90a")
        with _lock:
            t = _tuners.setdefault(key, t)
    return t


def _ceil(x, d):
    return -(-x // d)


def _fp8_type(t, what):
    names = {torch.float8_e4m3fn: "float8_e4m3fn",
             torch.float8_e5m2: "float8_e5m2"}
    if not isinstance(t, torch.Tensor):
        raise TypeError("fp8_matmul: %s must be a torch tensor, not %s"
                        % (what, type(t).__name__))
    if t.dtype not in names:
        raise TypeError("fp8_matmul: %s must be torch.float8_e4m3fn or "
                        "torch.float8_e5m2, not %s" % (what, t.dtype))
    return names[t.dtype]


def _row_shape(s, rows):
    """True when s holds one value per row of `rows` as (rows,),
    (rows, 1) or (1, rows), or one value (broadcast)."""
    return s.numel() == 1 or tuple(s.shape) in (
        (rows,), (rows, 1), (1, rows))


def check(a, b, scale_a, scale_b, out_dtype=None, out=None):
    """Validates the arguments of fp8_matmul; returns (mode, M, N, K,
    A type, B type).  Raises TypeError / ValueError naming what is
    wrong."""
    ta, tb = _fp8_type(a, "a"), _fp8_type(b, "b")
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError("fp8_matmul: a (M, K) and b (N, K) must be 2-D, "
                         "got %s and %s" % (tuple(a.shape), tuple(b.shape)))
    m, k = a.shape
    n = b.shape[0]
    if b.shape[1] != k:
        raise ValueError("fp8_matmul: a is (%d, %d) and b (%d, %d): both "
                         "need the same K (D = a . b^T)" % (m, k, n, b.shape[1]))
    if m < 1 or k < 16 or k % 16 or n < 8 or n % 8:
        raise ValueError("fp8_matmul: M >= 1, K a positive multiple of 16 "
                         "and N a positive multiple of 8 are needed (TMA row "
                         "strides of 16 bytes); got M=%d N=%d K=%d" % (m, n, k))
    for t, what in ((a, "a"), (b, "b")):
        if not t.is_cuda:
            raise ValueError("fp8_matmul: %s is on %s; a CUDA tensor is "
                             "needed" % (what, t.device))
        if t.stride(1) != 1 or t.stride(0) != k:
            raise ValueError("fp8_matmul: %s must be K-contiguous "
                             "(strides (%d, 1)), got %s; use .contiguous()"
                             % (what, k, tuple(t.stride())))
    if a.device != b.device:
        raise ValueError("fp8_matmul: a on %s, b on %s" % (a.device, b.device))
    for s, what in ((scale_a, "scale_a"), (scale_b, "scale_b")):
        if not isinstance(s, torch.Tensor) or s.dtype != torch.float32:
            raise TypeError("fp8_matmul: %s must be a float32 tensor, not %s"
                            % (what, getattr(s, "dtype", type(s).__name__)))
        if s.device != a.device:
            raise ValueError("fp8_matmul: %s is on %s, a on %s"
                             % (what, s.device, a.device))
    kb, nb = _ceil(k, 128), _ceil(n, 128)
    if scale_a.numel() == 1 and scale_b.numel() == 1:
        mode = "tensor"
    elif _row_shape(scale_a, m) and _row_shape(scale_b, n):
        mode = "row"
    elif tuple(scale_a.shape) == (m, kb) and tuple(scale_b.shape) == (nb, kb):
        mode = "block"
    else:
        raise ValueError(
            "fp8_matmul: scale_a %s and scale_b %s match no scaling mode for "
            "M=%d N=%d K=%d: tensor-wise takes one float each, row-wise "
            "scale_a (%d,) or (%d, 1) and scale_b (%d,), (1, %d) or (%d, 1), "
            "block-wise scale_a (M, ceil(K/128)) = (%d, %d) and scale_b "
            "(ceil(N/128), ceil(K/128)) = (%d, %d)"
            % (tuple(scale_a.shape), tuple(scale_b.shape), m, n, k, m, m,
               n, n, n, m, kb, nb, kb))
    if out_dtype is not None and out_dtype not in (torch.bfloat16,
                                                   torch.float32):
        raise ValueError("fp8_matmul: out_dtype %s is not supported; the "
                         "kernels write torch.bfloat16 or torch.float32"
                         % (out_dtype,))
    if out is not None:
        want = out_dtype or torch.bfloat16
        if (not isinstance(out, torch.Tensor) or out.dtype != want
                or tuple(out.shape) != (m, n) or out.device != a.device
                or not out.is_contiguous()):
            raise ValueError("fp8_matmul: out must be a contiguous %s "
                             "(%d, %d) tensor on %s" % (want, m, n, a.device))
    return mode, m, n, k, ta, tb


def _sm_count(device):
    i = device.index if device.index is not None else torch.cuda.current_device()
    c = _sms.get(i)
    if c is None:
        c = torch.cuda.get_device_properties(i).multi_processor_count
        with _lock:
            _sms[i] = c
    return c


def scale_args(mode, scale_a, scale_b, m, n, k):
    """The scale tensors in the layouts the kernel of `mode` reads:
    (1,) / (1,) tensor-wise, (M,) / (N,) row-wise, and for block-wise
    scale_a as (KB, MS) with M contiguous (MS = M rounded up to 4, for the
    16-byte TMA row stride) and scale_b as (NB, KB) row-major."""
    if mode == "tensor":
        return scale_a.reshape(1), scale_b.reshape(1)
    if mode == "row":
        sa = scale_a.reshape(-1).expand(m) if scale_a.numel() == 1 else scale_a.reshape(m)
        sb = scale_b.reshape(-1).expand(n) if scale_b.numel() == 1 else scale_b.reshape(n)
        return sa.contiguous(), sb.contiguous()
    kb = _ceil(k, 128)
    if m % 4 == 0 and scale_a.stride() == (1, m):
        sa = scale_a.t()  # (KB, M), already M-contiguous
    else:
        sa = torch.zeros(kb, _ceil(m, 4) * 4, dtype=torch.float32,
                         device=scale_a.device)
        sa[:, :m] = scale_a.t()
    return sa, scale_b.contiguous()


def _out_name(out_dtype):
    return "float32" if out_dtype == torch.float32 else "bfloat16"


# swap-AB for few rows: at M <= SWAP_M the 128-row tiles of the fp8
# scripts leave most SMs idle (64 x 7168 x 16384: 38 CTAs of 256 x 192
# rows; 0.49x torch in the 22:09 UTC run), where gemm_swapab.py with
# float8 operands puts the weight rows on wgmma's M side and splits K
# (ptxtile.kernels._gemm's candidates, timed against the tuned fp8
# kernel on the same tensors)
SWAP_M = 128


_SWAP_SCALE = {"tensor": 1, "row": 2, "block": 3}


def _swap_scales(sa, sb):
    """The scale tensors as gemm_swapab.py's SX and SW take them: one
    dimension (block-wise, scale_args' (KB, MS) and (NB, KB), both
    contiguous, flattened without a copy)."""
    return sa.reshape(-1), sb.reshape(-1)


def _swap_launcher(c, a, b, out, sa, sb):
    from . import _gemm
    sx, sw = _swap_scales(sa, sb)

    def run(*_args):
        _gemm.GEMM.launch("gemm_swapab.py", c, a, b, out, sx=sx, sw=sw)
    return run


def _with_swapab(kern, mode, m, n, k, ta, tb, out_dtype, args):
    """kern (the tuned fp8 kernel) or the fastest float8 swap-AB
    configuration, whichever the timing on these tensors prefers; the
    choice is kept in _gemm's tuner file.  Returns kern, or the swap-AB
    configuration (a dict of gemm_swapab.py constants)."""
    from . import _gemm
    a, b, out, sa, sb, _ = args
    cands = _gemm.configs(m, n, k, out=_out_name(out_dtype),
                          fp8=(ta, tb, _SWAP_SCALE[mode]))
    if not cands or os.environ.get("PTXTILE_AUTOTUNE_CONFIG") is not None:
        return kern
    pkey = _gemm.problem_key(a.device, m, n, k, fp8=mode, ta=ta, tb=tb,
                             out=_out_name(out_dtype))
    t = _gemm.tuner()
    hit = t.get(pkey)
    if hit is None:
        ws = _gemm.rotation(b)
        it = [0]

        def own():
            it[0] += 1
            kern(a, ws[it[0] % len(ws)], out, sa, sb, args[5])
        best = (_gemm.time_graph(own, iters=max(10, 2 * len(ws)))[0],
                "fp8", {})
        del ws
        _gemm.GEMM.prepare(cands)
        sx, sw = _swap_scales(sa, sb)
        swap = _gemm.fastest(cands, a, b, out, sx=sx, sw=sw)
        if swap is not None and swap[0] < best[0]:
            best = swap
        t.put(pkey, best[1], best[2], best[0])
        hit = (best[1], best[2])
    return kern if hit[0] == "fp8" else hit[1]


def _chosen(mode, m, n, k, ta, tb, out_dtype, device, args):
    """The tuned Kernel of (mode, types, C type, M, N, K, device),
    remembered per process: after the first call of a shape, a launch is
    one dict lookup and the kernel's fast path (no tuner dispatch, no
    key reading, no environment lookups).  At M <= SWAP_M it may be the
    float8 swap-AB kernel instead (_with_swapab), launched through
    _gemm with this call's tensors."""
    key = (mode, m, n, k, ta, tb, out_dtype, device)
    kern = _best.get(key)
    if kern is None:
        kern = tuner(mode, ta, tb, _out_name(out_dtype)).best(*args)
        if m <= SWAP_M:
            kern = _with_swapab(kern, mode, m, n, k, ta, tb, out_dtype,
                                args)
        with _lock:
            _best[key] = kern
    if isinstance(kern, dict):
        return _swap_launcher(kern, *args[:5])
    return kern


def _launch(a, b, scale_a, scale_b, out, out_dtype, checked=None):
    """Checks (unless `checked` is check()'s result), converts the scales,
    allocates D and launches the tuned kernel on torch's current stream."""
    out_dtype = out_dtype or torch.bfloat16
    mode, m, n, k, ta, tb = checked or check(a, b, scale_a, scale_b,
                                             out_dtype, out)
    sa, sb = scale_args(mode, scale_a, scale_b, m, n, k)
    if out is None:
        out = torch.empty(m, n, dtype=out_dtype, device=a.device)
    args = (a, b, out, sa, sb, _sm_count(a.device))
    _chosen(mode, m, n, k, ta, tb, out_dtype, a.device, args)(*args)
    return out


def _register():
    """ptxtile::fp8_matmul as a torch custom op (torch.compile keeps it
    as one opaque call; its fake implementation gives the output's shape
    and dtype after the same checks)."""

    @torch.library.custom_op("ptxtile::fp8_matmul", mutates_args=())
    def fp8_matmul_op(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor,
                      scale_b: torch.Tensor, f32: bool) -> torch.Tensor:
        return _launch(a, b, scale_a, scale_b, None,
                       torch.float32 if f32 else torch.bfloat16)

    @fp8_matmul_op.register_fake
    def _(a, b, scale_a, scale_b, f32):
        return a.new_empty((a.shape[0], b.shape[0]),
                           dtype=torch.float32 if f32 else torch.bfloat16)

    return fp8_matmul_op


_op = []


def fp8_matmul(a, b, scale_a, scale_b, *, out_dtype=torch.bfloat16 if torch else None, out=None):
    """D = scale-applied a . b^T (module doc), (M, N) of out_dtype
    (torch.bfloat16, or torch.float32).  out=: a contiguous (M, N) tensor
    of out_dtype to write (eager only).  Eagerly the checks run once and
    the tuned kernel is launched directly (after a shape's first call:
    one dict lookup and the kernel's fast launch path); under
    torch.compile the call is the custom op ptxtile::fp8_matmul, one
    opaque node (its fake implementation gives D's shape and dtype).

    Measured on one H200, 2026-12-02 20:33 UTC (bench/README.md, one
    run): at 4096x7168x16384 this function ran 1278 (tensor-wise), 1251
    (row-wise) and 1055 (block-wise) TFLOP/s eagerly against
    torch._scaled_mm's 1222, 1225 and 1144."""
    if torch is None:
        raise RuntimeError("fp8_matmul: torch was not importable when "
                           "ptxtile.kernels.fp8 was imported")
    if not torch.compiler.is_compiling():
        # the custom op's dispatch costs tens of microseconds per call in
        # eager mode (its Python wrappers); the kernel is opaque to
        # torch either way
        return _launch(a, b, scale_a, scale_b, out, out_dtype,
                       check(a, b, scale_a, scale_b, out_dtype, out))
    check(a, b, scale_a, scale_b, out_dtype, out)  # traced on fake tensors
    if out is not None:
        return _launch(a, b, scale_a, scale_b, out, out_dtype)
    return torch.ops.ptxtile.fp8_matmul(a, b, scale_a, scale_b,
                                        out_dtype == torch.float32)


# registered once, at import, so that torch.compile never traces the
# registration itself
if torch is not None:
    _op.append(_register())
