"""bench/python_launch_cpu.py - the Python share of a launch, on a CPU
host (torch CPU build; no GPU, no driver): Kernel.__call__ on the fast
path with the launch replaced by a C function that does nothing, so what
is timed is the Python work and the ctypes call.  A/B in one process,
interleaved rounds, median: the fast path of a given ptxtile/_compile.py
(OLD, e.g. `git show main:python/ptxtile/_compile.py > /tmp/old.py`)
against the one of this checkout.

The no-op C functions are libc's: abs(0) for the four-argument
ptrt_launch (kernel handle 0), strlen for ptrt_launch_packed (the packed
structure starts with the kernel handle, 0, so strlen reads one byte).
Usage: python3 bench/python_launch_cpu.py [OLD_compile.py]
"""
import ctypes
import ctypes.util
import importlib.util
import statistics
import sys
import threading
import time

import torch

import ptxtile
from ptxtile import _compile, _lib

SRC = '''
from ptxtile import tirx as T
n = T.dynamic("n")

@T.function
def axpy(X: T.Tensor((n,), "float32"), Y: T.Tensor((n,), "float32"), a: T.float32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.ceildiv(n, 1024), block=1024))
    i = T.cuda.block_idx("x") * 1024 + T.cuda.thread_idx("x")
    if i < n:
        Y[i] = Y[i] + a * X[i]
'''
CALLS, ROUNDS = 20000, 9


class NoopRt(object):
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    ptrt_launch = libc.abs
    ptrt_launch.restype = ctypes.c_int
    ptrt_launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                            ctypes.c_size_t, ctypes.c_void_p]
    ptrt_launch_packed = ctypes.PyDLL(ctypes.util.find_library("c")).strlen
    ptrt_launch_packed.restype = ctypes.c_int


class FakeRt(object):
    lock = threading.Lock()

    def error(self):
        return ptxtile.LaunchError("no-op launch failed")


def prepared(mod, k, args):
    buf = k._new_buffer()
    k._pack(args, None, buf, host=True)  # with the real runtime's dtypes
    real, real_packed = _lib.runtime, _lib.launch_packed
    _lib.runtime = lambda: NoopRt
    _lib.launch_packed = lambda: NoopRt.ptrt_launch_packed
    mod._current_stream_fn = lambda: (lambda d: 0)
    try:
        k._fast = mod._fast_path(k, args, buf, 0, FakeRt(), -1)
    finally:
        _lib.runtime, _lib.launch_packed = real, real_packed
    assert k._fast is not None and k._fast(args) is True
    return k


def per_call_us(fn, args):
    t0 = time.perf_counter()
    for _ in range(CALLS):
        fn(*args)
    return (time.perf_counter() - t0) / CALLS * 1e6


def main():
    x, y = torch.zeros(1024), torch.zeros(1024)
    args = (x, y, 1.0)
    k = ptxtile.compile(SRC, target="sm_90a")
    runs = {"this checkout": prepared(_compile, k, args)}
    if len(sys.argv) > 1:
        spec = importlib.util.spec_from_file_location("ptxtile._old_compile",
                                                      sys.argv[1])
        old = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(old)
        ko = old.Kernel(k.source_name, k.source, k.target, k.ptx,
                        k.meta_json, k.name, k.cache_key, k.cache_hit)
        runs["old (%s)" % sys.argv[1]] = prepared(old, ko, args)
    times = {name: [] for name in runs}
    for _ in range(ROUNDS):
        for name, kern in runs.items():
            times[name].append(per_call_us(kern, args))
    print("# kernel(x, y, 1.0) with a no-op launch, CPU tensors; median of "
          "%d interleaved rounds of %d calls" % (ROUNDS, CALLS))
    print("| fast path | us/call | rounds min-max |")
    print("|---|---:|---:|")
    med = {}
    for name, t in times.items():
        med[name] = statistics.median(t)
        print("| %s | %.3f | %.3f-%.3f |" % (name, med[name], min(t),
                                             max(t)))
    if len(runs) > 1:
        a, b = list(med.values())
        print("saved per call: %.3f us (%.2fx)" % (b - a, b / a))


if __name__ == "__main__":
    main()
