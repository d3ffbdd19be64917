"""ptxtile.kernels.matmul: C = act(alpha A @ B.T + bias) + beta R on
Hopper, from the GEMM family of scripts/gemm_swapab.py (few rows of A:
swap-AB, split-K) and scripts/gemm_sm90.py (persistent 2-CTA clusters),
the configuration picked per shape by kernels/_gemm.py's tuner."""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    import torch

from . import _gemm, _registry

_DTYPES = ("bfloat16", "float16")
_OUT_DTYPES = ("bfloat16", "float16", "float32")


def _launch(a, b, out, bias, activation, alpha, residual, beta):
    import torch
    _check_device(a, b, out)
    # inside CUDA graph capture nothing is timed: the tuned (or an already
    # loaded) configuration is launched
    _gemm.matmul(a, b.t(), bias=bias, activation=activation, out=out,
                 alpha=alpha, residual=residual, beta=beta,
                 tune=not torch.cuda.is_current_stream_capturing())


def _out_dtype(a, out_dtype):
    return a.dtype if out_dtype is None else out_dtype


def _matmul_impl(a, b, bias=None, activation=None, out_dtype=None,
                 alpha=1.0, residual=None, beta=1.0):
    out = a.new_empty((a.shape[0], b.shape[0]),
                      dtype=_out_dtype(a, out_dtype))
    _launch(a, b, out, bias, activation, alpha, residual, beta)
    return out


def _matmul_fake(a, b, bias=None, activation=None, out_dtype=None,
                 alpha=1.0, residual=None, beta=1.0):
    _check_shapes(a, b, None, bias, activation, out_dtype, residual)
    return a.new_empty((a.shape[0], b.shape[0]),
                       dtype=_out_dtype(a, out_dtype))


def _matmul_out_impl(a, b, out, bias=None, activation=None, alpha=1.0,
                     residual=None, beta=1.0):
    _launch(a, b, out, bias, activation, alpha, residual, beta)


def _matmul_out_fake(a, b, out, bias=None, activation=None, alpha=1.0,
                     residual=None, beta=1.0):
    _check_shapes(a, b, out, bias, activation, None, residual)
    return None


def _named(a, b, out):
    return [("a", a), ("b", b)] + ([("out", out)] if out is not None
                                    else [])


def _dtname(dt):
    return str(dt).replace("torch.", "")


def _check_shapes(a, b, out, bias=None, activation=None, out_dtype=None,
                  residual=None):
    """Argument errors, each naming the argument: types, dtypes, shapes,
    strides (run eagerly and by the fake implementation under
    torch.compile; no data is touched)."""
    import torch
    for name, t in _named(a, b, out):
        if not isinstance(t, torch.Tensor):
            raise TypeError("matmul: %s must be a torch.Tensor, not %s"
                            % (name, type(t).__name__))
        if t.dim() != 2:
            raise ValueError("matmul: %s has %d dimensions; it takes 2"
                             % (name, t.dim()))
    for name, t in (("a", a), ("b", b)):
        if _dtname(t.dtype) not in _DTYPES:
            raise TypeError("matmul: %s is %s; this kernel takes bfloat16 "
                            "or float16" % (name, t.dtype))
    if b.dtype != a.dtype:
        raise TypeError("matmul: b is %s and a %s: one dtype"
                        % (b.dtype, a.dtype))
    odt = out.dtype if out is not None else _out_dtype(a, out_dtype)
    if _dtname(odt) not in _OUT_DTYPES:
        raise TypeError("matmul: the output dtype %s is not bfloat16, "
                        "float16 or float32" % (odt,))
    if a.stride(1) != 1 and a.shape[1] > 1:
        raise ValueError("matmul: a must be contiguous (row-major) along K "
                         "(strides %s)" % (a.stride(),))
    if not (b.stride(1) == 1 or b.stride(0) == 1):
        raise ValueError("matmul: b (N, K) must be contiguous along K, or "
                         "the transpose of a (K, N) tensor contiguous along "
                         "N (strides %s)" % (b.stride(),))
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
    if out is not None and not out.is_contiguous():
        raise ValueError("matmul: out must be contiguous (row-major)")
    if bias is not None and (not isinstance(bias, torch.Tensor) or
                             bias.dim() != 1 or bias.shape[0] != n):
        raise ValueError("matmul: bias must be a tensor of N = %d values "
                         "(one per column of C)" % n)
    if activation not in _gemm.ACTIVATIONS:
        raise ValueError("matmul: activation %r is not relu, gelu (tanh "
                         "form), silu or None" % (activation,))
    if residual is not None and (
            not isinstance(residual, torch.Tensor) or
            tuple(residual.shape) != (m, n) or residual.dtype != odt or
            not residual.is_contiguous()):
        raise ValueError("matmul: residual must be a contiguous (%d, %d) "
                         "tensor of the output dtype %s" % (m, n, odt))


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
           bias: "Optional[torch.Tensor]" = None,
           activation: Optional[str] = None,
           out_dtype: "Optional[torch.dtype]" = None,
           out: "Optional[torch.Tensor]" = None, alpha: float = 1.0,
           residual: "Optional[torch.Tensor]" = None,
           beta: float = 1.0) -> "torch.Tensor":
    """C = act(alpha a @ b.T + bias) + beta residual for CUDA tensors a
    (M, K) and b (N, K), bfloat16 or float16 (one dtype), with float32
    accumulation and the epilogue on the float32 values before the one
    conversion to the output dtype; returns C (M, N) of out_dtype (default
    a's dtype; bfloat16, float16 or float32), or writes it into out=.

    b is either stored (N, K), K-contiguous like a (a linear layer's
    weight), or is the transpose of a (K, N) tensor contiguous along N
    (`matmul(x, w.t())` computes torch.matmul(x, w) for w (K, N), with no
    copy: the kernel reads w through an MN-major descriptor).  bias: N
    values (per column of C, any float dtype, used in float32);
    activation: None, "relu", "gelu" (tanh form) or "silu"; residual: an
    (M, N) tensor of the output dtype (beta C for C = residual).  Needs an
    sm_90a (Hopper) device, K % 8 == 0 and N % 8 == 0 (16-byte TMA row
    strides); any M >= 1.

    The first call per shape (and dtypes, majors, epilogue) times the
    candidate configurations of kernels/_gemm.py (swap-AB with split-K
    for M <= 128, the persistent cluster kernel with 256 x 256 or 256 x
    128 blocks) with CUDA graphs and keeps the fastest, in memory and in
    <cache_dir>/gemm_tune.json.  A torch.library custom op
    (torch.ops.ptxtile.matmul and ptxtile.matmul_out) with a fake
    implementation: it works under torch.compile(fullgraph=True) and in
    CUDA graph capture (call it once per shape before capturing: the
    first call compiles, loads and tunes).

    Measured on one H200, 2026-12-02 00:41 UTC (bench/README.md, one
    run, ratio to torch.matmul): 0.987 at 4096^3 (745 TFLOP/s), 0.99-1.02
    at M = 8192 and at 8192^3, 0.97-1.10 at M = 1 and 16, 0.87-0.99 at
    M = 64 and 128, but 0.72 at 1024^3."""
    import torch
    if not torch.compiler.is_compiling():
        # eagerly: the messages of the checks, before torch's dispatcher
        # (whose own error for a CPU tensor would not name the argument);
        # under torch.compile the fake implementation checks the shapes
        _check_shapes(a, b, out, bias, activation, out_dtype, residual)
        _check_device(a, b, out)
        if _registry.plain(a, b, out, bias, residual):
            # plain tensors, eagerly: the kernel without the custom op's
            # dispatch, as fp8_matmul does (on the H200 the dispatch
            # took 81.6 us of host time per call at 4096^3 against 35.8
            # us for the same launch without it, and the calls ran
            # 1.08-1.09x the direct kernel's time; bench/README.md)
            if out is None:
                return _matmul_impl(a, b, bias, activation, out_dtype,
                                    alpha, residual, beta)
            if out_dtype is not None and out.dtype != out_dtype:
                raise ValueError("matmul: out is %s but out_dtype is %s"
                                 % (out.dtype, out_dtype))
            _matmul_out_impl(a, b, out, bias, activation, alpha, residual,
                             beta)
            return out
        _register()
    if out is None:
        return torch.ops.ptxtile.matmul(a, b, bias, activation, out_dtype,
                                        alpha, residual, beta)
    if out_dtype is not None and out.dtype != out_dtype:
        raise ValueError("matmul: out is %s but out_dtype is %s"
                         % (out.dtype, out_dtype))
    torch.ops.ptxtile.matmul_out(a, b, out, bias, activation, alpha,
                                 residual, beta)
    return out


_EPI = ("Tensor? bias=None, str? activation=None, %sfloat alpha=1.0, "
        "Tensor? residual=None, float beta=1.0")


def _op():
    """The CustomOpDef of torch.ops.ptxtile.matmul."""
    return _registry.custom_op(
        "matmul", "(Tensor a, Tensor b, %s) -> Tensor"
        % (_EPI % "ScalarType? out_dtype=None, "), _matmul_impl,
        _matmul_fake)


def _out_op():
    """The CustomOpDef of torch.ops.ptxtile.matmul_out (writes out)."""
    return _registry.custom_op(
        "matmul_out", "(Tensor a, Tensor b, Tensor(a!) out, %s) -> ()"
        % (_EPI % ""), _matmul_out_impl, _matmul_out_fake,
        mutates_args=("out",))


def _register():
    _op()
    _out_op()


# torch.compile traces matmul() but cannot trace defining an op: when
# torch is already imported, the ops exist from here on (otherwise from
# the first eager call)
if "torch" in sys.modules:
    _register()
