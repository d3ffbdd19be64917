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
