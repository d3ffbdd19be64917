"""ptxtile.kernels.matmul: C = A @ B.T in bf16 on Hopper, from
scripts/gemm_wgmma.py (a copy of examples/gemm_wgmma.py)."""
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
    _kernel()(a, b, out, _registry.sm_count(a.device.index or 0))


def _matmul_impl(a, b):
    out = a.new_empty((a.shape[0], b.shape[0]))
    _launch(a, b, out)
    return out


def _matmul_fake(a, b):
    return a.new_empty((a.shape[0], b.shape[0]))


def _matmul_out_impl(a, b, out):
    _launch(a, b, out)


def _matmul_out_fake(a, b, out):
    return None


def _check(a, b, out):
    """Argument errors, each naming the argument: types, dtypes, shapes,
    then devices (so the shape rules can be tested without a GPU)."""
    import torch
    named = [("a", a), ("b", b)] + ([("out", out)] if out is not None
                                     else [])
    for name, t in named:
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
    for name, t in named:
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


def matmul(a, b, *, out=None):
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
    _check(a, b, out)
    if out is None:
        return _op()(a, b)
    _out_op()(a, b, out)
    return out


def _op():
    """torch.ops.ptxtile.matmul, defined on first use."""
    return _registry.custom_op("matmul", "(Tensor a, Tensor b) -> Tensor",
                               _matmul_impl, _matmul_fake)


def _out_op():
    """torch.ops.ptxtile.matmul_out (writes out), defined on first use."""
    return _registry.custom_op(
        "matmul_out", "(Tensor a, Tensor b, Tensor(a!) out) -> ()",
        _matmul_out_impl, _matmul_out_fake, mutates_args=("out",))
