"""ptxtile.kernels.matmul: C = A @ B.T in bf16 on Hopper, from
scripts/gemm_wgmma.py (a copy of examples/gemm_wgmma.py)."""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    import torch

from . import _registry

_SCRIPT = "gemm_wgmma"
# One config today (the script has no tunable constants: 256 x 256 blocks
# of C per cluster of 2, 4 stages); configs with other tile shapes go here
# and ptxtile.autotune picks per (M, N, K).
_CONFIGS = [{}]


def _kernel():
    return _registry.tuner(_SCRIPT, _CONFIGS, key=["M", "N", "K"],
                           target="sm_90a")


def _launch(a, b, out):
    _check_device(a, b, out)
    _kernel()(a, b, out, _registry.sm_count(a.device.index or 0))


def _matmul_impl(a, b):
    out = a.new_empty((a.shape[0], b.shape[0]))
    _launch(a, b, out)
    return out


def _matmul_fake(a, b):
    _check_shapes(a, b, None)
    return a.new_empty((a.shape[0], b.shape[0]))


def _matmul_out_impl(a, b, out):
    _launch(a, b, out)


def _matmul_out_fake(a, b, out):
    _check_shapes(a, b, out)
    return None


def _named(a, b, out):
    return [("a", a), ("b", b)] + ([("out", out)] if out is not None
                                    else [])


def _check_shapes(a, b, out):
    """Argument errors, each naming the argument: types, dtypes, shapes
    (run eagerly and by the fake implementation under torch.compile)."""
    import torch
    for name, t in _named(a, b, out):
        if not isinstance(t, torch.Tensor):
            raise TypeError("matmul: %s must be a torch.Tensor, not %s"
                            % (name, type(t).__name__))
        if t.dtype != torch.bfloat16:
            raise TypeError("matmul: %s is %s; this kernel takes bfloat16"
                            % (name, t.dtype))
        if t.dim() != 2:
            raise ValueError("matmul: %s has %d dimensions; it takes 2"
                             % (name, t.dim()))
        if not t.is_contiguous():
            raise ValueError("matmul: %s must be contiguous (row-major)"
                             % name)
    (m, k), (n, k2) = a.shape, b.shape
    if k != k2:
        raise ValueError("matmul: a is (M, K) = (%d, %d) and b is (N, K) = "
                         "(%d, %d): their K differ (b is stored (N, K): "
                         "C = a @ b.T)" % (m, k, n, k2))
    if k % 8 or n % 8 or m < 1:
        raise ValueError("matmul: M (%d) must be >= 1, K (%d) and N (%d) "
                         "multiples of 8 (16-byte TMA row strides)"
                         % (m, k, n))
    if out is not None and tuple(out.shape) != (m, n):
        raise ValueError("matmul: out is %s; it must be (M, N) = (%d, %d)"
                         % (tuple(out.shape), m, n))


def _check_device(a, b, out):
    """The devices: one CUDA device of compute capability 9.x."""
    for name, t in _named(a, b, out):
        if not t.is_cuda:
            raise ValueError("matmul: %s is on %s; it takes CUDA tensors"
                             % (name, t.device))
        if t.device != a.device:
            raise ValueError("matmul: %s is on %s, a on %s: one device"
                             % (name, t.device, a.device))
    major, _ = _capability(a.device)
    if major != 9:
        raise RuntimeError("matmul: this kernel is for sm_90a (Hopper); "
                           "device %s is sm_%d" % (a.device, major * 10))


_caps = {}


def _capability(device):
    c = _caps.get(device)
    if c is None:
        import torch
        c = _caps[device] = torch.cuda.get_device_capability(device)
    return c


def matmul(a: "torch.Tensor", b: "torch.Tensor", *,
           out: "Optional[torch.Tensor]" = None) -> "torch.Tensor":
    """C = a @ b.T for bfloat16 CUDA tensors a (M, K) and b (N, K) - b is
    stored (N, K), K-contiguous like a - with float32 accumulation; returns
    C (M, N) in bfloat16, or writes it into out= (M, N), bfloat16,
    contiguous).  Needs an sm_90a (Hopper) device, K % 8 == 0 and
    N % 8 == 0 (16-byte TMA row strides); any M >= 1.

    The kernel is scripts/gemm_wgmma.py (examples/gemm_wgmma.py: wgmma
    m64n256k16, TMA loads multicast in clusters of 2, a 4-stage ring,
    persistent CTAs, TMA stores).  That example kernel measured 711
    TFLOP/s at 4096^3 against torch.matmul's 710 on one H200 (bench/
    README.md, recorded 2026-12-01); this function's own overhead over a
    direct launch is measured by bench/python_launch.py.

    A torch.library custom op (torch.ops.ptxtile.matmul and
    ptxtile.matmul_out) with a fake implementation: it works under
    torch.compile(fullgraph=True) and in CUDA graph capture (warm it up,
    i.e. call it once per shape, before capturing: the first call
    compiles and loads the kernel)."""
    import torch
    if not torch.compiler.is_compiling():
        # eagerly: the messages of the checks, before torch's dispatcher
        # (whose own error for a CPU tensor would not name the argument);
        # under torch.compile the fake implementation checks the shapes
        _check_shapes(a, b, out)
        _check_device(a, b, out)
        _register()
    if out is None:
        return torch.ops.ptxtile.matmul(a, b)
    torch.ops.ptxtile.matmul_out(a, b, out)
    return out


def _op():
    """The CustomOpDef of torch.ops.ptxtile.matmul."""
    return _registry.custom_op("matmul", "(Tensor a, Tensor b) -> Tensor",
                               _matmul_impl, _matmul_fake)


def _out_op():
    """The CustomOpDef of torch.ops.ptxtile.matmul_out (writes out)."""
    return _registry.custom_op(
        "matmul_out", "(Tensor a, Tensor b, Tensor(a!) out) -> ()",
        _matmul_out_impl, _matmul_out_fake, mutates_args=("out",))


def _register():
    _op()
    _out_op()


# torch.compile traces matmul() but cannot trace defining an op: when
# torch is already imported, the ops exist from here on (otherwise from
# the first eager call)
if "torch" in sys.modules:
    _register()
