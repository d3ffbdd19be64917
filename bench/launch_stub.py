"""bench/launch_stub.py - the runtime's own per-launch cost, on a machine
without a GPU: libptxtile_rt over the stand-in driver of
tests/stubcuda/stubcuda.c (every driver call succeeds at once), so what
is timed is ptxtile's C and Python work per launch, not the driver's.
Run by `make bench-launch-stub` (it sets LD_LIBRARY_PATH to the stub).

Rows (host us per launch, median of ROUNDS rounds of CALLS launches):
  C loop              ptrt_time_launch: ptrt_launch in a C loop, no
                      Python at all (the C runtime's share)
  ptrt_launch         one ctypes call per launch, argument array prebuilt
  ptrt_launch_packed  one ctypes call with one pointer (the fast path's
                      C entry), slots rewritten in C
  ctypes no-op        a ctypes call of libc's strlen on an empty string
                      (the floor of any ctypes launch)
  k(X, Y, 1.0)        the package's general path (the fast path needs
                      torch tensors), arguments with
                      __cuda_array_interface__
  k(x, y, 1.0) fast   the package's fast path on tensors of the torch
                      stand-in of python/tests/stub_torch (its
                      attributes are Python code, slower than torch's:
                      compare rows of one run, not with a GPU's)
and the driver calls per launch of ptrt_launch, counted by the stub.
Usage: python3 bench/launch_stub.py
"""
import ctypes
import ctypes.util
import os
import statistics
import sys
import time

# the torch stand-in, never the real torch: this process's libcuda is
# the stub, which real torch cannot use
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python", "tests", "stub_torch"))
import torch  # noqa: E402

import ptxtile  # noqa: E402
from ptxtile import _compile, _lib, _runtime  # noqa: E402

SRC = '''
from tvm_tirx.script import tirx as T
n = T.dynamic("n")

@T.function
def axpy(X: T.Tensor((n,), "float32"), Y: T.Tensor((n,), "float32"), a: T.float32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.ceildiv(n, 1024), block=1024))
    i = T.cuda.block_idx("x") * 1024 + T.cuda.thread_idx("x")
    if i < n:
        Y[i] = Y[i] + a * X[i]
'''
N, CALLS, ROUNDS = 1024, 20000, 7


class Array(object):
    """A device array by __cuda_array_interface__ (stub memory)."""

    def __init__(self, ptr, n):
        self.__cuda_array_interface__ = {
            "data": (ptr, False), "shape": (n,), "typestr": "<f4",
            "strides": None, "version": 3}


def per_call_us(fn, calls=CALLS):
    rounds = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        fn(calls)
        rounds.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(rounds)


def loop(f):
    def run(calls):
        for _ in range(calls):
            f()
    return run


def main():
    try:
        stub = ctypes.CDLL("libcuda.so.1")
        stub.stubcuda_calls.restype = ctypes.c_long
        stub.stubcuda_calls.argtypes = [ctypes.c_char_p]
    except (OSError, AttributeError):
        raise SystemExit("libcuda.so.1 is not the stub: run "
                         "`make bench-launch-stub`")
    lib = _lib.runtime()
    rt = _runtime.get(0)
    ptrs = []
    for _ in range(2):
        p = ctypes.c_uint64()
        if lib.ptrt_alloc(rt.handle, N * 4, ctypes.byref(p)):
            raise SystemExit(str(rt.error()))
        ptrs.append(p.value)
    x, y = Array(ptrs[0], N), Array(ptrs[1], N)
    k = ptxtile.compile(SRC)
    k(x, y, 1.0)
    buf = k._new_buffer()
    k._pack((x, y, 1.0), None, buf)
    handle = k._handle(rt)
    addr = ctypes.addressof(buf)
    launch = lib.ptrt_launch
    rows = []
    ms = ctypes.c_float()
    tl = lib.ptrt_time_launch
    tl.restype = ctypes.c_int
    tl.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                   ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
    rows.append(("C loop (ptrt_launch, no Python)", per_call_us(
        lambda c: tl(handle, addr, 3, 0, c, ctypes.byref(ms)))))
    rows.append(("ptrt_launch via ctypes, prepacked",
                 per_call_us(loop(lambda: launch(handle, addr, 3, None)))))
    plan = _compile._Packed(kernel=handle, args=addr, nargs=3, nslots=0)
    pplan = ctypes.byref(plan)
    go = _lib.launch_packed()
    rows.append(("ptrt_launch_packed via ctypes, one pointer",
                 per_call_us(loop(lambda: go(pplan)))))
    noop = ctypes.PyDLL(ctypes.util.find_library("c")).strlen
    empty = ctypes.c_char_p(b"")
    rows.append(("ctypes no-op (strlen of \"\")",
                 per_call_us(loop(lambda: noop(empty)))))
    rows.append(("k(X, Y, 1.0) general path",
                 per_call_us(loop(lambda: k(x, y, 1.0)), CALLS // 10)))
    assert torch.__version__.endswith("test-stand-in")
    tx, ty = torch.Tensor(ptrs[0], (N,)), torch.Tensor(ptrs[1], (N,))
    k(tx, ty, 1.0)
    if k._fast is None:
        raise SystemExit("FAIL: no fast path")
    rows.append(("k(x, y, 1.0) fast path (torch stand-in)",
                 per_call_us(loop(lambda: k(tx, ty, 1.0)))))
    names = [n.decode() for n in (b"cuCtxSetCurrent", b"cuCtxGetCurrent",
                                  b"cuLaunchKernelEx", b"cuLaunchKernel",
                                  b"cuFuncSetAttribute")]
    before = {n: stub.stubcuda_calls(n.encode()) for n in names}
    tl(handle, addr, 3, 0, 1000, ctypes.byref(ms))
    calls = {n: (stub.stubcuda_calls(n.encode()) - before[n]) / 1000.0
             for n in names}
    print("# libptxtile_rt over the stub driver (no GPU), Python %s; "
          "median of %d rounds" % (sys.version.split()[0], ROUNDS))
    print("| launcher | host us/launch |")
    print("|---|---:|")
    for name, us in rows:
        print("| %s | %.3f |" % (name, us))
    print("driver calls per ptrt_launch: " + ", ".join(
        "%s %.2f" % (n, c) for n, c in calls.items() if c >= 0))


if __name__ == "__main__":
    main()
