"""ptxtile.kernels: ready-to-call kernels on torch tensors, each backed by
a script shipped with the package (ptxtile.kernels.script_path(name)
gives its path: read it, copy it, compile it with other constants), each
a torch.library custom op with a fake implementation (so it works under
torch.compile(fullgraph=True) and CUDA graph capture).

    import torch, ptxtile.kernels as K
    c = K.matmul(a, b)              # a (M, K), b (N, K) bf16: a @ b.T
    d = K.fp8_matmul(a8, b8, sa, sb)  # float8 with scales (fp8.py)
    o = K.attention(q, k, v, causal=True)   # (batch, seq, heads, dim)
    y = K.all_reduce(x)             # one process per GPU, torch.distributed
    c = K.all_gather_matmul(a_shard, b)     # all_gather(a_shard) @ b.T

Importing this package imports neither torch nor the compiler; each
kernel compiles (through the on-disk cache) and tunes on first call.

Adding a kernel (matmul.py is the pattern): put its script in scripts/,
write NAME.py with the public function (argument checks that name the
argument, skipped while torch.compile traces), the real implementation
(launching `_registry.tuner(script, configs, key=...)`) and a fake one
(output shapes and the shape checks), registered with
`_registry.custom_op(name, schema, impl, fake)` at import when torch is
loaded and on the first eager call; then one import line below.
"""
from ._registry import script_path, scripts
from .attention import attention
from .collectives import all_gather_matmul, all_reduce
from .matmul import matmul

__all__ = ["all_gather_matmul", "all_reduce", "attention", "fp8_matmul",
           "matmul", "script_path", "scripts"]


def __getattr__(name):
    # fp8_matmul (ptxtile.kernels.fp8) imports torch: loaded on first use
    # of the name, so that importing this package still imports neither
    # torch nor the compiler
    if name == "fp8_matmul":
        from .fp8 import fp8_matmul
        return fp8_matmul
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
