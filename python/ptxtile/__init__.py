"""ptxtile from Python: compile a tile kernel script and launch it on
torch tensors.

    import torch, ptxtile
    k = ptxtile.compile("examples/saxpy_relu.py")      # or script text,
    x = torch.randn(1000, device="cuda")               # or a @T.function
    y = torch.randn(1000, device="cuda")
    k(x, y, 2.0)                                       # torch's stream
    k.emulate(xs, ys, 2.0)            # numpy arrays, no GPU (PTX emulator)

    # specialize: override module constants; autotune over them
    k128 = ptxtile.compile("gemm.py", constants={"BM": 128})
    mm = ptxtile.autotune("gemm.py", configs=[{"BM": 128}, {"BM": 64}],
                          key=["M", "N", "K"])

A pure-Python package over libptxtile (the compiler) and libptxtile_rt
(the runtime) through ctypes; it imports only the standard library, and
torch only when the caller passes torch tensors.
"""
from ._version import __version__
from ._errors import (ArgumentCountError, CompileError, Diagnostic, Error,
                      LaunchError, PeerAccessError)
from ._args import DevicePointer
from ._compile import Kernel, compile, find_ptxas
from ._autotune import Autotuner, Config, autotune
from ._emulate import EmulatedDevices, EmulatorError
from ._target import default_target, target_for_capability
from ._cache import cache_dir, clear as clear_cache
from . import axis, layout, tirx

__all__ = ["compile", "Kernel", "autotune", "Autotuner", "Config", "Error",
           "CompileError", "LaunchError", "ArgumentCountError", "Diagnostic",
           "PeerAccessError", "DevicePointer", "EmulatedDevices",
           "default_target", "target_for_capability", "cache_dir",
           "clear_cache", "find_ptxas", "EmulatorError", "tirx", "axis", "layout",
           "__version__"]
