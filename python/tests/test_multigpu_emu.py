"""The multi-GPU kernels of ptxtile.kernels on emulated devices
(ptxtile.EmulatedDevices, no GPU, no torch): the one-shot all-reduce
script the package ships, laid out exactly as kernels/collectives.py lays
it out on GPUs (one symmetric buffer per device: data, then the signal
pad; the peer and pad tables; epochs), on 2 and 4 devices over two
calls, against a fixed-order float32 sum computed here with numpy
(bit-exact); the Python side of the arguments (DevicePointers of other
devices, table entries) and the emulator's refusals."""
import os

import pytest

np = pytest.importorskip("numpy")

import ptxtile  # noqa: E402
from ptxtile.kernels import _mgpu, script_path  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def bf16_bits(x):
    """float32 -> bfloat16 bits, round to nearest even (no NaNs here)."""
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7fff + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def inputs(world, n, epoch):
    rng = np.random.default_rng(1000 * world + epoch)
    return [rng.standard_normal(n).astype(np.float32) *
            np.float32(2.0 ** (r - 2)) for r in range(world)]


def fixed_order_sum(xs):
    s = xs[0].copy()
    for x in xs[1:]:
        s = (s + x).astype(np.float32)
    return s


class Group(object):
    """One symmetric buffer per emulated device, laid out by _mgpu."""

    def __init__(self, devs, nbytes):
        self.devs, self.world = devs, devs.n
        self.data = _mgpu.data_bytes(nbytes)
        self.bufs = [devs.zeros(d, (_mgpu.buffer_bytes(nbytes),), "uint8")
                     for d in range(devs.n)]
        addrs = [b.ptr for b in self.bufs]
        peers = _mgpu.table(addrs)
        pads = _mgpu.table([a + self.data for a in addrs])
        self.peers = [devs.put(d, np.frombuffer(peers, np.uint64))
                      for d in range(devs.n)]
        self.pads = [devs.put(d, np.frombuffer(pads, np.uint64))
                     for d in range(devs.n)]

    def inp(self, d, n, dtype):
        return ptxtile.DevicePointer(self.bufs[d].ptr, (n,), dtype, device=d)


@pytest.fixture(scope="module")
def allreduce():
    return ptxtile.compile(script_path("allreduce_oneshot"), target="sm_90a")


@pytest.mark.parametrize("world", [2, 4])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_allreduce_on_emulated_devices(allreduce, world, dtype):
    n = 300  # two CTAs, the second partly masked
    name = _mgpu.allreduce_kernel(dtype, n, world)
    k = allreduce.kernel(name)
    es = _mgpu.ITEMSIZE[dtype]
    with ptxtile.EmulatedDevices(world) as devs:
        g = Group(devs, n * es)
        outs = [devs.zeros(d, (n,), dtype) for d in range(world)]
        epoch = 1
        for call in range(2):
            xs = inputs(world, n, call)
            if dtype == "bfloat16":
                bits = [bf16_bits(x) for x in xs]
                xs = [bf16_value(b) for b in bits]
                for d in range(world):
                    devs.write(g.inp(d, n, dtype), bits[d])
            else:
                for d in range(world):
                    devs.write(g.inp(d, n, dtype), xs[d])
            devs.run([(k, (outs[d], g.inp(d, n, dtype), g.peers[d],
                           g.pads[d], d, world, epoch))
                      for d in range(world)])
            want = fixed_order_sum(xs)
            want = bf16_bits(want) if dtype == "bfloat16" else \
                want.view(np.uint32)
            for d in range(world):
                got = devs.get(outs[d])
                got = got if dtype == "bfloat16" else got.view(np.uint32)
                assert np.array_equal(got, want), (world, call, d)
            epoch = _mgpu.next_epoch(epoch)


def test_allreduce_checks_the_arguments_of_every_device(allreduce):
    k = allreduce.kernel("allreduce_f32")
    with ptxtile.EmulatedDevices(2) as devs:
        g = Group(devs, 64 * 4)
        out = devs.zeros(0, (64,), "float32")
        bad = devs.zeros(1, (64,), "bfloat16")
        with pytest.raises(ptxtile.LaunchError) as e:
            devs.run([(k, (out, g.inp(0, 64, "float32"), g.peers[0],
                           g.pads[0], 0, 2, 1)),
                      (k, (bad, g.inp(1, 64, "float32"), g.peers[1],
                           g.pads[1], 1, 2, 1))])
        assert e.value.code == 5010 and 'argument 1 ("out")' in str(e.value)
        with pytest.raises(ptxtile.LaunchError) as e:
            devs.run([(k, (out, np.zeros(64, np.float32), g.peers[0],
                           g.pads[0], 0, 2, 1))] * 2)
        assert "expected a DevicePointer" in str(e.value)
        with pytest.raises(ValueError, match="1 launches for 2 devices"):
            devs.run([(k, ())])


def test_a_device_that_never_signals_is_a_livelock(allreduce):
    # device 1 is told the world is 1: it never signals device 0, whose
    # acquire spin cannot end (E9560), and the run stops
    k = allreduce.kernel("allreduce_f32")
    with ptxtile.EmulatedDevices(2) as devs:
        g = Group(devs, 32 * 4)
        outs = [devs.zeros(d, (32,), "float32") for d in range(2)]
        with pytest.raises(ptxtile.EmulatorError) as e:
            devs.run([(k, (outs[0], g.inp(0, 32, "float32"), g.peers[0],
                           g.pads[0], 0, 2, 1)),
                      (k, (outs[1], g.inp(1, 32, "float32"), g.peers[1],
                           g.pads[1], 0, 1, 1))])
        assert e.value.code == 9560 and "device 0" in str(e.value)


def test_emulated_devices_api():
    with ptxtile.EmulatedDevices(3) as devs:
        a = devs.put(2, np.arange(6, dtype=np.int32).reshape(2, 3))
        assert a.device == 2 and a.shape == (2, 3) and a.dtype == "int32"
        assert devs.get(a).tolist() == [[0, 1, 2], [3, 4, 5]]
        b = devs.put(0, np.array([1, 2], np.uint16), dtype="bfloat16")
        assert b.dtype == "bfloat16" and devs.get(b).dtype == np.uint16
        assert a.ptr // (1 << 40) != b.ptr // (1 << 40)  # own windows
        with pytest.raises(ValueError, match="no device 3"):
            devs.zeros(3, (4,), "float32")
        with pytest.raises(ValueError, match="raw bits"):
            devs.put(0, np.zeros(2, np.float32), dtype="bfloat16")
        with pytest.raises(ValueError, match="in no device's memory"):
            devs.get(ptxtile.DevicePointer(0x10, (4,), "float32"))
    with pytest.raises(ValueError, match="1 to 8 devices"):
        ptxtile.EmulatedDevices(9)


def test_layout_and_limits():
    assert _mgpu.data_bytes(1) == 4096 and _mgpu.data_bytes(4097) == 8192
    assert _mgpu.buffer_bytes(4096) == 4096 + _mgpu.PAD_BYTES
    assert _mgpu.PAD_BYTES >= max(_mgpu.ALLREDUCE_PAD_BYTES,
                                  _mgpu.GEMM_PAD_BYTES)
    t = _mgpu.table([0x1000, 0x2000])
    assert len(t) == 64 and t[:8] == (0x1000).to_bytes(8, "little")
    assert t[16:] == bytes(48)
    with pytest.raises(ValueError, match="1 to 8"):
        _mgpu.table([1] * 9)
    with pytest.raises(ValueError, match="not a device address"):
        _mgpu.table([0x1000, 0])
    assert _mgpu.next_epoch(1) == 2 and _mgpu.next_epoch(2 ** 32 - 1) == 1
    assert _mgpu.allreduce_kernel("bfloat16", 8, 2) == "allreduce_bf16"
    with pytest.raises(TypeError, match="float16 tensors"):
        _mgpu.allreduce_kernel("float16", 8, 2)
    with pytest.raises(ValueError, match="over the one-shot"):
        _mgpu.allreduce_kernel("float32", (16 << 20) // 4 + 1, 2)
    with pytest.raises(ValueError, match="1 to 8"):
        _mgpu.allreduce_kernel("float32", 8, 9)
    assert _mgpu.gemm_shapes(128, 64, 256, 4) == 512
    with pytest.raises(ValueError, match="multiple of 8"):
        _mgpu.gemm_shapes(128, 60, 256, 2)


@pytest.mark.parametrize("name", ["allreduce_oneshot", "allgather_gemm"])
def test_shipped_scripts_are_the_examples(name):
    # the package data is a copy of the example (the one tested in
    # tests/unit/test_emu_mgpu.c): they must not drift apart
    with open(script_path(name)) as f, \
            open(os.path.join(ROOT, "examples", name + ".py")) as g:
        assert f.read() == g.read()


def test_collectives_import_without_torch():
    # importing the package's collectives needs neither torch nor a GPU;
    # their scripts ship as package data
    import subprocess
    import sys
    code = ("import sys, ptxtile.kernels as K\n"
            "assert callable(K.all_reduce) and callable(K.all_gather_matmul)\n"
            "assert 'torch' not in sys.modules\n"
            "assert {'allreduce_oneshot', 'allgather_gemm'} <= set(K.scripts())\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("name", ["allreduce_oneshot", "allgather_gemm"])
def test_shipped_scripts_compile_for_their_targets(name):
    k = ptxtile.compile(script_path(name), target="sm_90a")
    assert k.kernel_names


def test_allgather_gemm_on_emulated_devices():
    # the package's layout for all_gather_matmul: each device's A shard
    # at the start of its symmetric buffer, the pad after data_bytes,
    # the table of shard maps from _mgpu.shard_map_desc (the arguments
    # kernels/collectives.py hands the driver), on 2 devices
    world, ms, kk, n = 2, 64, 128, 40
    k = ptxtile.compile(script_path("allgather_gemm"), target="sm_90a")
    rng = np.random.default_rng(5)
    a = [bf16_bits(rng.standard_normal((ms, kk)).astype(np.float32) / 4)
         for _ in range(world)]
    b = [bf16_bits(rng.standard_normal((n, kk)).astype(np.float32) / 4)
         for _ in range(world)]
    with ptxtile.EmulatedDevices(world) as devs:
        g = Group(devs, ms * kk * 2)
        for d in range(world):
            devs.write(g.bufs[d], a[d])
        raw = bytearray(8 * 128)
        for s in range(world):
            raw[128 * s:128 * s + 128] = devs.encode_tensor_map(
                _mgpu.shard_map_desc(g.bufs[s].ptr, ms, kk))
        maps = [devs.put(d, np.frombuffer(bytes(raw), np.uint8).reshape(
            8, 128)) for d in range(world)]
        bs = [devs.put(d, b[d], dtype="bfloat16") for d in range(world)]
        cs = [devs.zeros(d, (world * ms, n), "bfloat16")
              for d in range(world)]
        devs.run([(k, (maps[d], bs[d], cs[d], g.pads[d], d, world, ms, 1,
                       1)) for d in range(world)])
        a_full = np.concatenate([bf16_value(x) for x in a]).astype(
            np.float64)
        for d in range(world):
            want = a_full @ bf16_value(b[d]).astype(np.float64).T
            got = bf16_value(devs.get(cs[d])).astype(np.float64)
            # one bfloat16 rounding of a float32 sum
            assert np.all(np.abs(got - want) <=
                          np.abs(want) / 128 + 1e-6), d
