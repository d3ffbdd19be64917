"""Launches compose with torch: torch's current stream, an explicit
stream, CUDA graph capture and replay, tensors given through
__cuda_array_interface__ / __dlpack__, a @T.function defined in this very
module, launch errors on real tensors, and no growth of host or device
memory over 10^4 launches (each of which must have run exactly once)."""
import gc
import os

import pytest
import torch

import ptxtile
from ptxtile import tirx as T
from conftest import example

n = T.dynamic("n")


@T.function
def add_scaled(X: T.Tensor((n,), "float32"), Y: T.Tensor((n,), "float32"),
               a: T.float32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.ceildiv(n, 256),
                                              block=256))
    i = T.cuda.block_idx("x") * 256 + T.cuda.thread_idx("x")
    if i < n:
        Y[i] = Y[i] + a * X[i]


@pytest.fixture(scope="module")
def k():
    return ptxtile.compile(add_scaled)


def busy(stream):
    """Keeps `stream` busy for a while (~50 ms), so work that does not
    wait for it reads stale inputs."""
    with torch.cuda.stream(stream):
        torch.cuda._sleep(100_000_000)


def test_decorated_function_in_a_torch_module(k):
    assert k.name == "add_scaled"
    x = torch.randn(5000, device="cuda")
    y = torch.randn(5000, device="cuda")
    want = y + 0.5 * x
    k(x, y, 0.5)
    torch.cuda.synchronize()
    torch.testing.assert_close(y, want)


def test_runs_on_torchs_current_stream(k):
    s = torch.cuda.Stream()
    x = torch.zeros(1 << 20, device="cuda")
    y = torch.zeros_like(x)
    torch.cuda.synchronize()
    busy(s)
    with torch.cuda.stream(s):
        x.fill_(3.0)      # queued behind the sleep on s
        k(x, y, 2.0)      # must run after it, on s
    s.synchronize()
    assert torch.equal(y, torch.full_like(y, 6.0))


def test_explicit_stream(k):
    s = torch.cuda.Stream()
    x = torch.zeros(1 << 20, device="cuda")
    y = torch.zeros_like(x)
    torch.cuda.synchronize()
    busy(s)
    with torch.cuda.stream(s):
        x.fill_(1.0)
    k(x, y, 4.0, stream=s)          # a torch.cuda.Stream
    k(x, y, 4.0, stream=s.cuda_stream)  # a raw CUstream handle
    s.synchronize()
    assert torch.equal(y, torch.full_like(y, 8.0))


def test_cuda_graph_capture_and_replay(k):
    x = torch.ones(4096, device="cuda")
    y = torch.zeros_like(x)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):  # warm up (module load) off the capture
        k(x, y, 0.0)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        k(x, y, 3.0)
        y.mul_(2.0)
    torch.cuda.synchronize()
    assert torch.equal(y, torch.zeros_like(y))  # captured, not run
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(y, torch.full_like(y, 6.0))
    x.fill_(2.0)  # the graph reads x where it lies
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(y, torch.full_like(y, 24.0))  # (6 + 3*2) * 2


class CAIOnly(object):
    def __init__(self, t):
        self.__cuda_array_interface__ = t.__cuda_array_interface__


class DLPackOnly(object):
    def __init__(self, t):
        self.t = t

    def __dlpack__(self, stream=None):
        return self.t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def test_array_protocols(k):
    x = torch.randn(3000, device="cuda")
    y = torch.zeros_like(x)
    k(CAIOnly(x), DLPackOnly(y), 1.0)
    torch.cuda.synchronize()
    assert torch.equal(y, x)
    k(DLPackOnly(x), CAIOnly(y), -1.0)
    torch.cuda.synchronize()
    assert torch.equal(y, torch.zeros_like(y))


def test_launch_errors_on_real_tensors(k):
    x = torch.randn(100, device="cuda")
    with pytest.raises(ptxtile.LaunchError) as e:
        k(x, torch.zeros(100, device="cuda", dtype=torch.float16), 1.0)
    assert e.value.code == 5010 and 'argument 2 ("Y")' in str(e.value)
    with pytest.raises(ptxtile.LaunchError) as e:
        k(x, torch.zeros(99, device="cuda"), 1.0)
    assert e.value.code == 5013
    with pytest.raises(ptxtile.LaunchError) as e:
        k(x, torch.zeros(100), 1.0)
    assert "a tensor on cpu" in str(e.value)
    with pytest.raises(ptxtile.LaunchError) as e:
        k(x[::2], torch.zeros(50, device="cuda"), 1.0)
    assert e.value.code == 5015
    torch.cuda.synchronize()  # the context is still healthy
    y = torch.zeros(100, device="cuda")
    k(x, y, 1.0)
    torch.cuda.synchronize()
    assert torch.equal(y, x)


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_no_leak_over_ten_thousand_launches(k):
    x = torch.ones(1024, device="cuda")
    y = torch.zeros_like(x)
    for _ in range(1000):  # warm-up: allocator pools, code paths
        k(x, y, 1.0)
    torch.cuda.synchronize()
    gc.collect()
    rss0, free0 = rss_bytes(), torch.cuda.mem_get_info()[0]
    for _ in range(10000):
        k(x, y, 1.0)
    torch.cuda.synchronize()
    gc.collect()
    rss1, free1 = rss_bytes(), torch.cuda.mem_get_info()[0]
    assert torch.equal(y, torch.full_like(y, 11000.0))  # each ran once
    assert rss1 - rss0 < 1 << 20, "host memory grew by %d bytes" % (
        rss1 - rss0)
    assert free1 == free0, "device memory fell by %d bytes" % (free0 - free1)


def test_tma_kernel_in_a_loop_encodes_maps_each_time():
    # the tensor map is built from each call's tensor, not the first one
    kk = ptxtile.compile(example("tma_reduce_add.py"))
    d = torch.zeros(64, 64, device="cuda")
    for i in range(4):
        x = torch.full((64, 64), float(i + 1), device="cuda")
        kk(x, d)
    torch.cuda.synchronize()
    assert torch.equal(d, torch.full_like(d, 10.0))


def test_bench_helper(k):
    from ptxtile.testing import bench
    x = torch.ones(1024, device="cuda")
    y = torch.zeros_like(x)
    r = bench(lambda: k(x, y, 1.0), warmup=5, iters=50, rounds=3)
    assert len(r.rounds) == 3 and 0 < r.min <= r.median <= r.max
    torch.cuda.synchronize()
    assert torch.equal(y, torch.full_like(y, 155.0))  # 5 + 3 * 50 calls
