"""Launches from Python end to end on a machine without a GPU: the
package over libptxtile_rt over the stand-in driver of
tests/stubcuda/stubcuda.c (build/stubcuda/libcuda.so.1, which records
what each launch handed the driver), with torch played by
python/tests/stub_torch (metadata-only CUDA tensors).  Each scenario
runs in a child process, because the driver a process opens is the
process's for good.

What is proven: after a first call, the fast path (Kernel._fast, Python)
and the runtime's launch cache (C) pass every new pointer, scalar and
stream to the driver; any other signature - dtype, shape, strides,
device, kinds, count - is refused or re-planned exactly as a first call
would be, from either cache; a launch of the cached signature makes one
cuCtxGetCurrent and one cuLaunchKernelEx and nothing else."""
import os
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
LIBDIR = os.environ.get("PTXTILE_LIB_DIR", "")
STUB = os.path.join(LIBDIR, "stubcuda", "libcuda.so.1")

PRELUDE = '''
import ctypes, sys
import torch
assert torch.__version__.endswith("test-stand-in"), torch.__file__
import ptxtile
from ptxtile import _compile, _lib
stub = ctypes.CDLL("libcuda.so.1")
assert hasattr(stub, "stubcuda_calls"), "not the stub driver"
stub.stubcuda_calls.restype = ctypes.c_long
stub.stubcuda_calls.argtypes = [ctypes.c_char_p]
stub.stubcuda_last_param.restype = ctypes.c_uint64
stub.stubcuda_last_launch.restype = ctypes.c_uint64
SRC = """
from ptxtile import tirx as T
n = T.dynamic("n")

@T.function
def axpy(X: T.Tensor((n,), "float32", align=16), Y: T.Tensor((n,), "float32"), a: T.float32, k: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.ceildiv(n, 256), block=256))
    i = T.cuda.block_idx("x") * 256 + T.cuda.thread_idx("x")
    if i < n:
        Y[i] = Y[i] + a * X[i] + T.cast(k, "float32")
"""
k = ptxtile.compile(SRC)
# PTX parameters: X, Y (8 bytes), a (f32), k (s32), n$dim (s32)
sizes = (ctypes.c_int * 5)(8, 8, 4, 4, 4)
stub.stubcuda_param_sizes(sizes, 5)

def calls(name):
    return stub.stubcuda_calls(name.encode())

def launches():
    return calls("cuLaunchKernelEx")

def param(i):
    return stub.stubcuda_last_param(i)

def f32(bits):
    import struct
    return struct.unpack("=f", struct.pack("=I", bits))[0]

def grid():
    return stub.stubcuda_last_launch(0)

def stream():
    return stub.stubcuda_last_launch(7)

T = torch.Tensor
def t(ptr, n, dt=torch.float32, **kw):
    return T(ptr, (n,), dt, **kw)

def refused(code, *args):
    before = launches()
    try:
        k(*args)
    except ptxtile.LaunchError as e:
        want = _lib.code(code) if code else 0
        assert e.code == want, (e.code, code, str(e))
        assert launches() == before, "a refused launch reached the driver"
        return str(e)
    raise AssertionError("not refused: %r" % (args,))
'''

SCENARIOS = {
    "fast_path_passes_new_values": '''
k(t(0x10000, 1000), t(0x20000, 1000), 1.0, 2)
assert k._fast is not None, "no fast path after a torch launch"
def general(*a):
    raise AssertionError("the general path ran")
k._launch = general
n0 = launches()
k(t(0x30000, 1000), t(0x40004, 1000), -0.5, 7)
assert launches() == n0 + 1
assert (param(0), param(1)) == (0x30000, 0x40004)
assert f32(param(2)) == -0.5 and param(3) == 7 and param(4) == 1000
assert grid() == 4 and stream() == 0
torch._C.streams[0] = 0x5150            # torch's current stream changes
k(t(0x30000, 1000), t(0x40004, 1000), 3, -1)
assert stream() == 0x5150 and f32(param(2)) == 3.0
assert param(3) == 0xffffffff            # -1 as the s32 it is
print("ok")
''',
    "refusals_after_a_first_signature": '''
x, y = t(0x10000, 1000), t(0x20000, 1000)
k(x, y, 1.0, 2)
refused("RT_ARG_DTYPE", t(0x10000, 1000, torch.float64), y, 1.0, 2)
m = refused("RT_SYM_MISMATCH", x, t(0x20000, 999), 1.0, 2)
assert "999" in m and "1000" in m, m
refused("RT_ARG_STRIDE", t(0x10000, 1000, strides=(2,)), y, 1.0, 2)
refused("RT_ARG_ALIGN", t(0x10008, 1000), y, 1.0, 2)  # X: align=16
refused("RT_ARG_NULL", x, t(0, 1000), 1.0, 2)
refused("RT_ARG_KIND", x, y, "1.0", 2)
refused("RT_ARG_DTYPE", x, y, 1.0, 2.5)              # k: int32
refused("RT_ARG_DTYPE", x, y, 1.0, 2 ** 31)          # out of int32
cpu = T(0x10000, (1000,), dev=None)
assert "a tensor on cpu" in refused(None, cpu, y, 1.0, 2)
for args in [(x, y, 1.0), (x, y, 1.0, 2, 3), ()]:
    try:
        k(*args)
    except TypeError as e:
        assert isinstance(e, ptxtile.LaunchError)
        assert "takes 4 arguments" in str(e), str(e)
    else:
        raise AssertionError("no TypeError for %d arguments" % len(args))
# the accepted signature still launches, from both caches
n0 = launches()
k(t(0x50000, 1000), t(0x60000, 1000), 1.0, 2)
assert launches() == n0 + 1 and param(0) == 0x50000 and param(4) == 1000
print("ok")
''',
    "a_new_signature_is_planned_again": '''
x, y = t(0x10000, 1000), t(0x20000, 1000)
k(x, y, 1.0, 2)
assert grid() == 4 and param(4) == 1000
k(t(0x10000, 4096), t(0x20000, 4096), 1.0, 2)    # new n: new plan
assert grid() == 16 and param(4) == 4096
k(t(0x30000, 4096), t(0x40000, 4096), 1.0, 2)    # its fast path
assert grid() == 16 and param(0) == 0x30000
k(x, y, 1.0, 2)                                  # and back
assert grid() == 4 and param(4) == 1000 and param(0) == 0x10000
s = t(0x10000, 2000, strides=(2,))
try:
    k(s, y, 1.0, 2)
except ptxtile.LaunchError as e:
    assert e.code == _lib.code("RT_ARG_STRIDE")
else:
    raise AssertionError("strided X accepted")
print("ok")
''',
    "another_device_takes_the_general_path": '''
torch.cuda.devices = 2  # torch sees two; the stub driver has one
x, y = t(0x10000, 1000), t(0x20000, 1000)
k(x, y, 1.0, 2)
n0 = launches()
try:
    k(t(0x10000, 1000, dev=1), t(0x20000, 1000, dev=1), 1.0, 2)
except ptxtile.LaunchError as e:
    assert "no CUDA device 1" in str(e), str(e)   # the stub has one
else:
    raise AssertionError("device 1 launched")
assert launches() == n0
print("ok")
''',
    "one_get_and_one_launch_per_cached_launch": '''
x, y = t(0x10000, 1000), t(0x20000, 1000)
k(x, y, 1.0, 2)
names = ["cuCtxGetCurrent", "cuCtxSetCurrent", "cuLaunchKernelEx",
         "cuLaunchKernel", "cuFuncSetAttribute", "cuTensorMapEncodeTiled",
         "cuModuleLoadDataEx", "cuDeviceGetAttribute"]
before = {n: calls(n) for n in names}
for i in range(100):
    k(t(0x10000 + 256 * i, 1000), y, float(i), i)
after = {n: calls(n) - before[n] for n in names}
want = dict.fromkeys(names, 0)
want.update(cuCtxGetCurrent=100, cuLaunchKernelEx=100)
assert after == want, after
print("ok")
''',
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_stub_launch(name):
    if not LIBDIR or not os.path.exists(STUB):
        pytest.fail("%s is missing: `make test` builds it (make %s)"
                    % (STUB, os.path.relpath(STUB)))
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.path.dirname(STUB) + (
        os.pathsep + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH")
        else "")
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(HERE, "stub_torch"), os.path.join(HERE, "..")])
    code = textwrap.dedent(PRELUDE) + textwrap.dedent(SCENARIOS[name])
    r = subprocess.run([sys.executable, "-c", code], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), (
        r.stdout + r.stderr)[-3000:]
