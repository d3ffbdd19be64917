"""ptxtile.kernels.attention: attention forward on Hopper (sm_90a), the
FlashAttention-3 recipe, from scripts/attention_fwd.py (the same text as
examples/attention_fwd.py; docs/patterns.md section 8).

`attention_source(...)` gives the script of one variant: the script's
module-level constants (HEAD_DIM, DTYPE, the two wgmma spellings, CVT,
CAUSAL, BLOCK_N, PINGPONG) rewritten, and for varlen its "# dense-only"
lines dropped and "# varlen-only: " lines uncommented; nothing else.
`attention(q, k, v, ...)` runs it on torch tensors.
"""
import math
import re
import sys

from . import _registry

_SCRIPT = _registry.script_path("attention_fwd")
_DTYPES = {"bfloat16": "bf16", "float16": "f16"}
# keys per block: the 64 x BLOCK_N scores and the 64 x HEAD_DIM output
# accumulators of a consumer thread fit its 232 registers, and two
# K + V stages fit shared memory beside Q
_BLOCK_N = {64: 128, 128: 128, 256: 64}


def attention_source(head_dim=128, dtype="bfloat16", causal=False,
                     block_n=None, pingpong=False, varlen=False):
    """The script text of one attention variant.  varlen: the kernel
    takes Q/O as (1, total_q, heads, dim), K/V as (1, total_k, kv_heads,
    dim), LSE (1, heads, total_q), and after scale_log2 the int32
    cumulative offsets cu_q, cu_k (batch + 1 each) and the longest query
    sequence max_sq: the script's "# dense-only" lines are dropped and
    its "# varlen-only: " lines uncommented."""
    if head_dim not in _BLOCK_N:
        raise ValueError("attention: head_dim %r is not supported (64, 128 "
                         "or 256)" % (head_dim,))
    if dtype not in _DTYPES:
        raise ValueError("attention: dtype %r is not supported (bfloat16 "
                         "or float16)" % (dtype,))
    bn = _BLOCK_N[head_dim] if block_n is None else int(block_n)
    # shared memory: Q (128 rows) + 2 stages of K and V (bn rows each)
    if bn % 16 or not 16 <= bn <= 256 or \
            (128 + 4 * bn) * head_dim * 2 > 227 * 1024:
        raise ValueError("attention: block_n %r does not fit head_dim %d"
                         % (block_n, head_dim))
    t = _DTYPES[dtype]
    with open(_SCRIPT) as f:
        text = f.read()
    sets = {
        "HEAD_DIM": str(head_dim),
        "DTYPE": '"%s"' % dtype,
        "MMA_QK": '"wgmma.mma_async.sync.aligned.m64n%dk16.f32.%s.%s"'
                  % (bn, t, t),
        "MMA_PV": '"wgmma.mma_async.sync.aligned.m64n%dk16.f32.%s.%s"'
                  % (head_dim, t, t),
        "CVT": '"cvt.rn.%sx2.f32"' % t,
        "CAUSAL": "1" if causal else "0",
        "BLOCK_N": str(bn),
        "PINGPONG": "1" if pingpong else "0",
    }
    for name, value in sets.items():
        text, n = re.subn(r"^%s = [^#\n]*" % name, "%s = %s  " % (name, value),
                          text, count=1, flags=re.M)
        if n != 1:
            raise RuntimeError("attention: %s has no constant %s"
                               % (_SCRIPT, name))
    if varlen:
        text = re.sub(r"^.*# dense-only\n", "", text, flags=re.M)
        text = re.sub(r"^[ \t]*# varlen-only: ", "", text, flags=re.M)
    return text


def scale_log2(head_dim, scale=None):
    """The kernel's scalar: the softmax scale (default 1/sqrt(head_dim))
    times log2(e)."""
    s = 1.0 / math.sqrt(head_dim) if scale is None else float(scale)
    return s * math.log2(math.e)


# ---------------------------------------------------------------- torch

_DIMS = tuple(sorted(_BLOCK_N))
_TORCH_DTYPES = ("bfloat16", "float16")
# the variants ptxtile.autotune picks between (docs/patterns.md section
# 8): the key block, the default or a larger one (FA3's sizes; each fits
# the registers and, two stages of K and V, the shared memory beside Q),
# and whether the two consumer warpgroups issue their wgmmas in turns
# (ping-pong) or freely
_LARGER_N = {64: 192, 128: 176, 256: 80}


# A 3-stage K/V ring (STAGES = 3, {"stages": 3} in a config; 224 KiB
# at d128 with 128 keys) compiles and is tested, but its best variant
# measured 20-30% below the best two-stage one on every row of the H200
# run of 2026-12-01 21:31 UTC (bench/README.md): the tuner skips it
_DEEPER = {64: (), 128: (), 256: ()}


def _configs(head_dim):
    two = tuple({"block_n": bn, "pingpong": pp}
                for bn in (_BLOCK_N[head_dim], _LARGER_N[head_dim])
                for pp in (False, True))
    return two + tuple({"block_n": bn, "pingpong": pp, "stages": 3}
                       for bn in _DEEPER[head_dim] for pp in (False, True))


def _tag(cfg):
    """The benchmark's name of a variant: n<keys> pp<0|1>[ s<stages>]."""
    return "n%d pp%d%s" % (cfg["block_n"], int(cfg["pingpong"]),
                           " s%d" % cfg["stages"] if "stages" in cfg else "")


def _constants(head_dim, dtype, cfg):
    """compile(constants=) of one variant of a head dim and dtype."""
    t = _DTYPES[dtype]
    return {"BLOCK_N": cfg["block_n"],
            "MMA_QK": "wgmma.mma_async.sync.aligned.m64n%dk16.f32.%s.%s"
                      % (cfg["block_n"], t, t),
            "PINGPONG": int(cfg["pingpong"]),
            "STAGES": int(cfg.get("stages", 2))}


def _source(head_dim, dtype, causal, varlen):
    return attention_source(head_dim, dtype, causal, varlen=varlen)


def _kernel(head_dim, dtype, causal, varlen, cfg):
    """One variant, compiled (through the on-disk cache).  Its Q, K and V
    are read only through tensor maps, so the metadata lets them have any
    16-byte-aligned strides (docs/metadata.md, "contiguous"): torch
    SDPA's (batch, heads, seq, dim) is read through its transposed view;
    O and LSE stay dense."""
    key = (head_dim, dtype, causal, varlen, tuple(sorted(cfg.items())))
    k = _kernels.get(key)
    if k is None:
        import ptxtile
        k = _kernels[key] = ptxtile.compile(
            _source(head_dim, dtype, causal, varlen), target="sm_90a",
            constants=_constants(head_dim, dtype, cfg))
    return k


_kernels = {}  # (head_dim, dtype, causal, varlen, config) -> Kernel


_tuners = {}


def _tuner(head_dim, dtype, causal, varlen):
    """The Autotuner of a (head dim, dtype, causal, varlen) family over
    its four variants, one winner per shape class (powers of two of
    seq_q, seq_k and batch x heads), remembered on disk."""
    key = (head_dim, dtype, causal, varlen)
    t = _tuners.get(key)
    if t is None:
        import ptxtile
        with _registry._lock:
            t = _tuners.get(key)
            if t is None:
                t = _tuners[key] = ptxtile.autotune(
                    _source(head_dim, dtype, causal, varlen),
                    configs=[_constants(head_dim, dtype, c)
                             for c in _configs(head_dim)],
                    key=_shape_class, target="sm_90a")
    return t


def _shape_class(*args):
    """autotune's key callable: called with the launch arguments (q, k,
    v, o, lse, scale[, cu_q, cu_k, max_seq_q])."""
    q, k = args[0], args[1]
    if len(args) > 6:  # varlen: the longest query sequence
        sq, sk = int(args[8]), int(args[1].shape[1])
    else:
        sq, sk = int(q.shape[1]), int(k.shape[1])
    bh = int(q.shape[0]) * int(q.shape[2])
    return tuple(max(int(x), 1).bit_length() for x in (sq, sk, bh))


def _fail(msg, exc=ValueError):
    raise exc("attention: " + msg)


def _check_inputs(q, k, v, varlen):
    """Types, dtypes, ranks, strides, shapes: each message names the
    argument (eagerly and in the fake implementation)."""
    import torch
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            _fail("%s must be a torch.Tensor, not %s"
                  % (name, type(t).__name__), TypeError)
    dt = str(q.dtype).replace("torch.", "")
    if dt not in _TORCH_DTYPES:
        _fail("q is %s; this kernel takes bfloat16 or float16" % q.dtype,
              TypeError)
    if k.dtype != q.dtype or v.dtype != q.dtype:
        _fail("q, k and v must have one dtype (found %s, %s, %s)"
              % (q.dtype, k.dtype, v.dtype), TypeError)
    rank = 3 if varlen else 4
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() != rank:
            _fail("%s must have rank %d (%s), found shape %s"
                  % (name, rank, "(total, heads, dim)" if varlen
                     else "(batch, seq, heads, dim)", tuple(t.shape)))
        if t.stride(-1) != 1 or any(s % 8 for s in t.stride()[:-1]):
            _fail("%s needs unit stride on dim and 16-byte multiples on "
                  "the other axes (TMA), found strides %s"
                  % (name, tuple(t.stride())))
    d = q.shape[-1]
    if d not in _DIMS:
        _fail("head dim %d is not supported (%s)"
              % (d, ", ".join(map(str, _DIMS))))
    if k.shape != v.shape:
        _fail("k and v must have one shape (found %s and %s)"
              % (tuple(k.shape), tuple(v.shape)))
    if k.shape[-1] != d or (not varlen and k.shape[0] != q.shape[0]):
        _fail("k/v shape %s does not match q %s"
              % (tuple(k.shape), tuple(q.shape)))
    if not varlen and (q.shape[1] < 1 or k.shape[1] < 1):
        _fail("seq_q and seq_k must be at least 1 (found %d, %d)"
              % (q.shape[1], k.shape[1]))
    h, hk = q.shape[-2], k.shape[-2]
    if hk < 1 or h % hk:
        _fail("kv heads (%d) must divide heads (%d)" % (hk, h))
    return dt, d


def _to_bshd(q, k, v, layout, varlen):
    if layout not in ("bshd", "bhsd"):
        _fail("layout must be 'bshd' (batch, seq, heads, dim) or 'bhsd' "
              "(torch SDPA's (batch, heads, seq, dim)), found %r"
              % (layout,))
    if layout == "bhsd":
        if varlen:
            _fail("variable-length inputs are (total, heads, dim): "
                  "layout='bshd'")
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    return q, k, v


def _check_cu(cu_q, cu_k):
    import torch
    if (cu_q is None) != (cu_k is None):
        _fail("cu_seqlens_q and cu_seqlens_k go together")
    if cu_q is None:
        return
    for name, c in (("cu_seqlens_q", cu_q), ("cu_seqlens_k", cu_k)):
        if not isinstance(c, torch.Tensor) or c.dtype != torch.int32 or \
                c.dim() != 1 or not c.is_contiguous():
            _fail("%s must be a contiguous 1-D int32 tensor" % name)
    if cu_q.shape != cu_k.shape or cu_q.shape[0] < 2:
        _fail("cu_seqlens_q and cu_seqlens_k need batch + 1 >= 2 entries "
              "each")


def _check_device(q, k, v, cu_q, cu_k, out):
    named = [("q", q), ("k", k), ("v", v), ("cu_seqlens_q", cu_q),
             ("cu_seqlens_k", cu_k), ("out", out)]
    for name, t in named:
        if t is None:
            continue
        if not t.is_cuda:
            _fail("%s is on %s; it takes CUDA tensors" % (name, t.device))
        if t.device != q.device:
            _fail("%s is on %s, q on %s: one device"
                  % (name, t.device, q.device))
    import torch
    if torch.cuda.get_device_capability(q.device)[0] != 9:
        _fail("this kernel is for sm_90a (Hopper); device %s is not"
              % (q.device,), RuntimeError)


def _forward(q, k, v, causal, scale, cu_q, cu_k, max_sq, layout, out,
             cfg=None):
    """Checks, then one launch (of variant cfg, or the tuned one);
    returns (out, lse) in the caller's layout."""
    import torch
    varlen = cu_q is not None
    _check_cu(cu_q, cu_k)
    q, k, v = _to_bshd(q, k, v, layout, varlen)
    dt, d = _check_inputs(q, k, v, varlen)
    _check_device(q, k, v, cu_q, cu_k, out)
    if varlen:
        if max_sq is None:
            max_sq = int((cu_q[1:] - cu_q[:-1]).max().item())
        q, k, v = q.unsqueeze(0), k.unsqueeze(0), v.unsqueeze(0)
    b, sq, h = q.shape[0], q.shape[1], q.shape[2]
    if out is None:
        o4 = torch.empty((b, sq, h, d), dtype=q.dtype, device=q.device)
    else:
        o4 = out.transpose(1, 2) if layout == "bhsd" else out
        if varlen:
            o4 = o4.unsqueeze(0)
        if tuple(o4.shape) != (b, sq, h, d) or o4.dtype != q.dtype or \
                not o4.is_contiguous():
            _fail("out must be a contiguous %s tensor of q's shape, dense "
                  "in the (batch, seq, heads, dim) order" % q.dtype)
    lse = torch.empty((b, h, sq), dtype=torch.float32, device=q.device)
    args = (q, k, v, o4, lse, scale_log2(d, scale))
    if varlen:
        args += (cu_q, cu_k, int(max_sq))
    if cfg is None:
        _tuner(d, dt, bool(causal), varlen)(*args)
    else:
        _kernel(d, dt, bool(causal), varlen, cfg)(*args)
    if varlen:
        o4, lse = o4[0], lse[0]
    o = o4.transpose(1, 2) if layout == "bhsd" else o4
    return o, lse


def _fake(q, k, v, cu_q, cu_k, causal, scale, max_seqlen_q, layout):
    varlen = cu_q is not None
    _check_cu(cu_q, cu_k)
    q4, k4, v4 = _to_bshd(q, k, v, layout, varlen)
    _check_inputs(q4, k4, v4, varlen)
    if varlen:
        t, h, d = q.shape
        return q.new_empty((t, h, d)), q.new_empty((h, t), dtype=_f32())
    b, s, h, d = q4.shape
    o = q.new_empty((b, s, h, d))
    return (o.transpose(1, 2) if layout == "bhsd" else o,
            q.new_empty((b, h, s), dtype=_f32()))


def _f32():
    import torch
    return torch.float32


def _impl(q, k, v, cu_q, cu_k, causal, scale, max_seqlen_q, layout):
    return _forward(q, k, v, causal, None if scale < 0 else scale, cu_q,
                    cu_k, None if max_seqlen_q < 0 else max_seqlen_q,
                    layout, None)


def _op():
    """torch.ops.ptxtile.attention: out is fresh (for "bhsd" the (batch,
    heads, seq, dim) view of a new (batch, seq, heads, dim) tensor, as
    the fake says), lse too."""
    return _registry.custom_op(
        "attention",
        "(Tensor q, Tensor k, Tensor v, Tensor? cu_seqlens_q, "
        "Tensor? cu_seqlens_k, bool causal, float scale, "
        "int max_seqlen_q, str layout) -> (Tensor, Tensor)",
        _impl, _fake)


def attention(q, k, v, *, causal=False, scale=None, return_lse=False,
              cu_seqlens_q=None, cu_seqlens_k=None, max_seqlen_q=None,
              out=None, layout="bshd"):
    """softmax(scale q k^T [+ causal mask]) v on Hopper (sm_90a).

    q (batch, seq_q, heads, dim), k and v (batch, seq_k, kv_heads, dim),
    bfloat16 or float16 CUDA tensors, dim 64, 128 or 256, kv_heads
    dividing heads (GQA / MQA); every stride but dim's a multiple of 16
    bytes.  layout="bhsd" takes torch SDPA's (batch, heads, seq, dim)
    instead, read through strides (no copy), and returns out in it.
    scale defaults to 1/sqrt(dim).  Causal masking is top-left (query i
    sees keys j <= i), as torch SDPA's is_causal.  With cu_seqlens_q /
    cu_seqlens_k (int32, batch + 1 cumulative offsets; max_seqlen_q, the
    longest query sequence, is read from them when not given) q is
    (total_q, heads, dim) and k, v (total_k, kv_heads, dim).  Returns
    out, or (out, lse) with lse float32 (batch, heads, seq_q) ((heads,
    total_q) for varlen), the natural-log log-sum-exp of each row's
    scaled scores.  out= (dense in the (batch, seq, heads, dim) order)
    receives the result.

    The kernel is scripts/attention_fwd.py; ptxtile.autotune picks one
    of four variants per shape class (docs/patterns.md section 8).  A
    torch.library custom op (torch.ops.ptxtile.attention) with a fake
    implementation, so torch.compile(fullgraph=True) traces it.

    Measured on one H200, 2026-12-02 03:45 UTC (bench/README.md, one
    run, ratio to torch SDPA's cuDNN backend, the fastest there): this
    function 0.885-1.002 on the dense configurations (590 TFLOP/s at
    8x16x4096x128), 1.45 on variable-length batches (torch called per
    sequence)."""
    import torch
    eager = not torch.compiler.is_compiling()
    if out is not None or (eager and _registry.plain(
            q, k, v, cu_seqlens_q, cu_seqlens_k)):
        # out=, or plain tensors eagerly: the launch without the custom
        # op's dispatch, as matmul and fp8_matmul do (on the H200 the op
        # made the call 2-3% slower than the same launch without it at
        # 8x16x4096x128; bench/README.md, 2026-12-02 02:25 UTC); _forward
        # checks the arguments first, naming them
        o, lse = _forward(q, k, v, causal, scale, cu_seqlens_q,
                          cu_seqlens_k, max_seqlen_q, layout, out)
        return (o, lse) if return_lse else o
    if eager:
        # the messages name the argument before the dispatcher (under
        # torch.compile the fake implementation checks shapes)
        varlen = cu_seqlens_q is not None
        _check_cu(cu_seqlens_q, cu_seqlens_k)
        q4, k4, v4 = _to_bshd(q, k, v, layout, varlen)
        _check_inputs(q4, k4, v4, varlen)
        _check_device(q4, k4, v4, cu_seqlens_q, cu_seqlens_k, None)
        _op()
    o, lse = torch.ops.ptxtile.attention(
        q, k, v, cu_seqlens_q, cu_seqlens_k, bool(causal),
        -1.0 if scale is None else float(scale),
        -1 if max_seqlen_q is None else int(max_seqlen_q), layout)
    return (o, lse) if return_lse else o


# torch.compile traces attention() but cannot trace defining an op: when
# torch is already imported, the op exists from here on (otherwise from
# the first eager call)
if "torch" in sys.modules:
    _op()
