"""Attention forward on Hopper (sm_90a): the FlashAttention-3 recipe as a
ptxtile script (scripts/attention_fwd.py, the same text as
examples/attention_fwd.py).

`attention_source(...)` gives the script of one variant: the script's
module-level constants (HEAD_DIM, DTYPE, the two wgmma spellings, CVT,
CAUSAL, BLOCK_N, PINGPONG) rewritten, nothing else.  `attention(q, k, v,
...)` runs it on torch tensors.
"""
import math
import os
import re

_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "scripts", "attention_fwd.py")
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
# the variants a call picks between (docs/patterns.md, "attention, step
# by step"): the key block, the default or a larger one (FA3's sizes;
# each fits the registers and, two stages of K and V, the shared memory
# beside Q), and whether the two consumer warpgroups issue their wgmmas
# in turns (ping-pong) or freely
_LARGER_N = {64: 192, 128: 176, 256: 80}


def _configs(head_dim):
    return tuple({"block_n": bn, "pingpong": pp}
                 for bn in (_BLOCK_N[head_dim], _LARGER_N[head_dim])
                 for pp in (False, True))


_kernels = {}   # (head_dim, dtype, causal, varlen, config) -> Kernel
_choice = {}    # tuning key -> config index


def _kernel(head_dim, dtype, causal, varlen, cfg):
    """The compiled variant.  Its Q, K and V are read only through tensor
    maps, so the metadata lets them have any 16-byte-aligned strides
    (docs/metadata.md, "contiguous"): torch SDPA's (batch, heads, seq,
    dim) is read through its transposed view; O and LSE stay dense."""
    import ptxtile
    key = (head_dim, dtype, causal, varlen, tuple(sorted(cfg.items())))
    k = _kernels.get(key)
    if k is None:
        k = ptxtile.compile(attention_source(head_dim, dtype, causal,
                                             varlen=varlen, **cfg))
        _kernels[key] = k
    return k


def _fail(msg):
    raise ValueError("ptxtile.kernels.attention: " + msg)


def _check_inputs(q, k, v, varlen):
    import torch
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor) or not t.is_cuda:
            _fail("%s must be a CUDA torch tensor" % name)
    dt = str(q.dtype).replace("torch.", "")
    if dt not in _TORCH_DTYPES:
        _fail("dtype %s is not supported (bfloat16 or float16)" % dt)
    if k.dtype != q.dtype or v.dtype != q.dtype:
        _fail("q, k and v must have one dtype (found %s, %s, %s)"
              % (q.dtype, k.dtype, v.dtype))
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
    h, hk = q.shape[-2], k.shape[-2]
    if hk < 1 or h % hk:
        _fail("kv heads (%d) must divide heads (%d)" % (hk, h))
    return dt, d


def _launch(kern, q4, k4, v4, o4, lse, sl2, extra):
    kern(q4, k4, v4, o4, lse, sl2, *extra)


def _tuned(key, run, ncfg):
    """The config index for key: each config timed once (CUDA events,
    after a warm-up launch) on the first call, the fastest kept."""
    if key in _choice:
        return _choice[key]
    import os
    forced = os.environ.get("PTXTILE_ATTENTION_CONFIG")
    if forced is not None:
        _choice[key] = int(forced)
        return _choice[key]
    import torch
    best = None
    for i in range(ncfg):
        run(i)
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(3):
            run(i)
        b.record()
        b.synchronize()
        ms = a.elapsed_time(b)
        if best is None or ms < best[0]:
            best = (ms, i)
    _choice[key] = best[1]
    return best[1]


def _forward(q, k, v, causal, scale, cu_q, cu_k, max_sq, layout, out):
    import torch
    varlen = cu_q is not None
    if varlen != (cu_k is not None):
        _fail("cu_seqlens_q and cu_seqlens_k go together")
    if layout not in ("bshd", "bhsd"):
        _fail("layout must be 'bshd' (batch, seq, heads, dim) or 'bhsd' "
              "(torch SDPA's (batch, heads, seq, dim)), found %r"
              % (layout,))
    if varlen and layout != "bshd":
        _fail("variable-length inputs are (total, heads, dim)")
    if layout == "bhsd":
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    dt, d = _check_inputs(q, k, v, varlen)
    if varlen:
        for name, c in (("cu_seqlens_q", cu_q), ("cu_seqlens_k", cu_k)):
            if c.dtype != torch.int32 or c.dim() != 1 or not c.is_cuda \
                    or not c.is_contiguous():
                _fail("%s must be a contiguous 1-D int32 CUDA tensor" % name)
        if cu_q.shape != cu_k.shape or cu_q.shape[0] < 2:
            _fail("cu_seqlens_q and cu_seqlens_k need batch + 1 >= 2 "
                  "entries each")
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
            _fail("out must be a contiguous %s tensor of q's shape in the "
                  "(batch, seq, heads, dim) layout" % q.dtype)
    lse = torch.empty((b, h, sq), dtype=torch.float32, device=q.device)
    sl2 = scale_log2(d, scale)
    extra = (cu_q, cu_k, int(max_sq)) if varlen else ()
    tkey = (d, dt, bool(causal), varlen, q.shape[1] // 1024,
            k.shape[1] // 1024)

    def run(i):
        _launch(_kernel(d, dt, bool(causal), varlen, cfgs[i]),
                q, k, v, o4, lse, sl2, extra)
    cfgs = _configs(d)
    run(_tuned(tkey, run, len(cfgs)))
    if varlen:
        o4, lse = o4[0], lse[0]
    o = o4.transpose(1, 2) if layout == "bhsd" else o4
    return o, lse


def attention(q, k, v, *, causal=False, scale=None, return_lse=False,
              cu_seqlens_q=None, cu_seqlens_k=None, max_seqlen_q=None,
              out=None, layout="bshd"):
    """softmax(scale q k^T [+ causal mask]) v on Hopper (sm_90a).

    q (batch, seq_q, heads, dim), k and v (batch, seq_k, kv_heads, dim),
    bf16 or fp16, dim 64, 128 or 256, kv_heads dividing heads;
    layout="bhsd" takes torch SDPA's (batch, heads, seq, dim) instead (by
    strides: the transposed views are read in place).  Causal masking is
    top-left (query i sees keys j <= i), as torch SDPA's is_causal.  With
    cu_seqlens_q / cu_seqlens_k (int32, batch + 1 cumulative offsets) q
    is (total_q, heads, dim) and k, v (total_k, kv_heads, dim).  Returns
    out, or (out, lse) with lse float32 (batch, heads, seq_q) ((heads,
    total_q) for varlen), natural log, the scale included.
    """
    if out is None:
        op = _torch_op()
        if op is not None:
            o, lse = op(q, k, v, cu_seqlens_q, cu_seqlens_k, bool(causal),
                        -1.0 if scale is None else float(scale),
                        -1 if max_seqlen_q is None else int(max_seqlen_q),
                        layout)
            return (o, lse) if return_lse else o
    o, lse = _forward(q, k, v, causal, scale, cu_seqlens_q, cu_seqlens_k,
                      max_seqlen_q, layout, out)
    return (o, lse) if return_lse else o


_op = []


def _torch_op():
    """torch.ops.ptxtile.attention_fwd, registered on first use (a
    custom op with a fake implementation, so torch.compile traces it)."""
    if _op:
        return _op[0]
    try:
        import torch
        from torch.library import custom_op
    except ImportError:
        _op.append(None)
        return None
    from typing import Optional

    @custom_op("ptxtile::attention_fwd", mutates_args=())
    def attention_fwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                      cu_q: Optional[torch.Tensor],
                      cu_k: Optional[torch.Tensor], causal: bool,
                      scale: float, max_seqlen_q: int,
                      layout: str) -> tuple[torch.Tensor, torch.Tensor]:
        o, lse = _forward(q, k, v, causal, None if scale < 0 else scale,
                          cu_q, cu_k, None if max_seqlen_q < 0
                          else max_seqlen_q, layout, None)
        # both fresh: for "bhsd", out is the (batch, heads, seq, dim)
        # view of a new (batch, seq, heads, dim) tensor, as the fake says
        return o, lse

    @attention_fwd.register_fake
    def _(q, k, v, cu_q, cu_k, causal, scale, max_seqlen_q, layout):
        if cu_q is not None:
            t, h = q.shape[0], q.shape[1]
            return (q.new_empty(q.shape),
                    q.new_empty((h, t), dtype=torch.float32))
        if layout == "bhsd":
            b, h, s, d = q.shape
            return (q.new_empty((b, s, h, d)).transpose(1, 2),
                    q.new_empty((b, h, s), dtype=torch.float32))
        b, s, h, d = q.shape
        return (q.new_empty(q.shape),
                q.new_empty((b, h, s), dtype=torch.float32))

    _op.append(attention_fwd)
    return attention_fwd
