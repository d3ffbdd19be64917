"""ptxtile.kernels: ready-to-call kernels on torch tensors, each backed by
a script shipped with the package (ptxtile.kernels.script_path(name)
gives its path: read it, copy it, compile it with other constants), each
a torch.library custom op with a fake implementation (so it works under
torch.compile(fullgraph=True) and CUDA graph capture).

    import torch, ptxtile.kernels as K
    c = K.matmul(a, b)              # a (M, K), b (N, K) bf16: a @ b.T

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
from .matmul import matmul

__all__ = ["matmul", "script_path", "scripts"]
