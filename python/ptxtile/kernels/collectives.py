"""ptxtile.kernels.all_reduce and all_gather_matmul: multi-GPU kernels
over torch.distributed, one process per GPU, from the scripts
scripts/allreduce_oneshot.py and scripts/allgather_gemm.py (copies of
the examples of the same names).

The handshake (docs/multigpu.md): on the first call per (group, device,
kind, size class) every rank allocates one buffer with torch symmetric
memory (torch.distributed._symmetric_memory.empty, then rendezvous on the
group), laid out by kernels/_mgpu.py: the data peers read, then the
kernel's signal pad, zeroed, then a torch.distributed barrier so no rank
signals into a pad before it is zeroed.  The rendezvous gives every
rank's buffer address as this device reaches it (buffer_ptrs: cuMemMap
peer mappings); the runtime checks each (ptrt_reach_pointer:
PeerAccessError when this device has no access), and the package writes
the 8-entry peer and pad tables the kernels read into this device's
memory.  Every call copies the caller's tensor into the buffer, launches
on torch's current stream with the next epoch, and the kernel's last
signal round orders the next call after every peer's reads.  All ranks
must make the same calls in the same order with the same sizes, as with
any collective.

Nothing here imports torch before the first call; the kernels have been
run on 2 and 4 emulated devices (python/tests/test_multigpu_emu.py,
tests/unit/test_emu_mgpu.c) but, at the time of writing, on no machine
with several GPUs (docs/multigpu.md).
"""
from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    import torch

from . import _mgpu, _registry

_lock = threading.Lock()
_states = {}   # (kind, group name, device, capacity) -> _Symm
_kernels = {}  # (script, target) -> ptxtile.Kernel


def _dist():
    import torch.distributed as dist
    if not (dist.is_available() and dist.is_initialized()):
        raise RuntimeError("ptxtile.kernels collectives need torch."
                           "distributed initialized (dist.init_process_group"
                           "(\"nccl\"), one process per GPU)")
    return dist


def _symm_mem():
    try:
        import torch.distributed._symmetric_memory as symm_mem
    except ImportError as e:
        raise RuntimeError("ptxtile.kernels collectives need torch symmetric "
                           "memory (torch.distributed._symmetric_memory, "
                           "torch 2.5 or later): %s" % e)
    return symm_mem


def _group_name(dist, group):
    return getattr(group, "group_name", None) or str(group)


def _table(torch, addrs, device):
    raw = bytearray(_mgpu.table(addrs))
    t = torch.frombuffer(raw, dtype=torch.int64).to(device)
    return t.view(torch.uint64)


class _Symm(object):
    """One symmetric buffer (capacity bytes of data, then the pad) of this
    rank and what is derived from it: the peer and pad tables, the epoch,
    the tensor maps of the shards (all-gather GEMM)."""

    def __init__(self, dist, group, device, capacity):
        import torch
        from .. import _runtime
        symm_mem = _symm_mem()
        self.world = dist.get_world_size(group)
        self.rank = dist.get_rank(group)
        self.data_bytes = _mgpu.data_bytes(capacity)
        name = _group_name(dist, group)
        enable = getattr(symm_mem, "enable_symm_mem_for_group", None)
        if enable is not None:  # torch 2.5 - 2.7 ask for it first
            try:
                enable(name)
            except Exception:
                pass
        self.buf = symm_mem.empty(self.data_bytes + _mgpu.PAD_BYTES,
                                  dtype=torch.uint8, device=device)
        self.buf[self.data_bytes:].zero_()
        try:
            self.handle = symm_mem.rendezvous(self.buf, group)
        except TypeError:  # the older spelling takes the group's name
            self.handle = symm_mem.rendezvous(self.buf, name)
        self.ptrs = [int(p) for p in self.handle.buffer_ptrs]
        if len(self.ptrs) != self.world:
            raise RuntimeError("symmetric memory rendezvous gave %d buffers "
                               "for a group of %d" % (len(self.ptrs),
                                                       self.world))
        rt = _runtime.get(device.index)
        for r, p in enumerate(self.ptrs):
            rt.reach(p, "rank %d's symmetric buffer" % r)
        self.rt = rt
        self.peers = _table(torch, self.ptrs, device)
        self.pads = _table(torch, [p + self.data_bytes for p in self.ptrs],
                           device)
        self.epoch = 1
        self.maps = {}
        torch.cuda.synchronize(device)
        dist.barrier(group)  # every pad is zeroed before any signal

    def data(self, torch, dtype, shape):
        n = 1
        for s in shape:
            n *= s
        es = torch.empty((), dtype=dtype).element_size()
        return self.buf[:n * es].view(dtype).view(shape)

    def advance(self):
        e = self.epoch
        self.epoch = _mgpu.next_epoch(e)
        return e


def _capacity(nbytes):
    """Buffers come in power-of-two sizes from 1 MiB, so a run of
    varying sizes makes a few buffers, the same on every rank."""
    c = 1 << 20
    while c < nbytes:
        c *= 2
    return c


def _state(kind, group, device, nbytes):
    dist = _dist()
    key = (kind, _group_name(dist, group), device.index, _capacity(nbytes))
    st = _states.get(key)
    if st is None:
        with _lock:
            st = _states.get(key)
            if st is None:
                st = _states[key] = _Symm(dist, group, device, key[3])
    return st


def _kernel(script, device):
    import ptxtile
    target = ptxtile.target_for_capability(
        *__import__("torch").cuda.get_device_capability(device))
    k = _kernels.get((script, target))
    if k is None:
        k = _kernels[(script, target)] = ptxtile.compile(
            _registry.script_path(script), target=target)
    return k


def _dtname(dt):
    return str(dt).replace("torch.", "")


def _check_cuda(fn, name, t):
    import torch
    if not isinstance(t, torch.Tensor):
        raise TypeError("%s: %s must be a torch.Tensor, not %s"
                        % (fn, name, type(t).__name__))
    if not t.is_cuda:
        raise ValueError("%s: %s is on %s; it takes CUDA tensors"
                         % (fn, name, t.device))
    if not t.is_contiguous():
        raise ValueError("%s: %s must be contiguous" % (fn, name))


def _resolve(group):
    dist = _dist()
    return dist, (group if group is not None else dist.group.WORLD)


def _all_reduce(x, group, out):
    """all_reduce, eagerly."""
    import torch
    _check_cuda("all_reduce", "x", x)
    if out is None:
        out = torch.empty_like(x)
    else:
        _check_cuda("all_reduce", "out", out)
        if out.shape != x.shape or out.dtype != x.dtype or \
                out.device != x.device:
            raise ValueError("all_reduce: out must have x's shape, dtype and "
                             "device")
    dist, grp = _resolve(group)
    world = dist.get_world_size(grp)
    try:
        name = _mgpu.allreduce_kernel(_dtname(x.dtype), x.numel(), world)
    except ValueError:
        if out.data_ptr() != x.data_ptr():
            out.copy_(x)
        dist.all_reduce(out, group=grp)
        return out
    if world == 1:
        if out.data_ptr() != x.data_ptr():
            out.copy_(x)
        return out
    st = _state("allreduce", grp, x.device, x.numel() * x.element_size())
    inp = st.data(torch, x.dtype, (x.numel(),))
    inp.copy_(x.view(-1))
    k = _kernel("allreduce_oneshot", x.device).kernel(name)
    k(out.view(-1), inp, st.peers, st.pads, st.rank, world, st.advance())
    return out


def _check_gemm(a_shard, b):
    import torch
    for name, t in (("a_shard", a_shard), ("b", b)):
        _check_cuda("all_gather_matmul", name, t)
        if t.dim() != 2 or t.dtype != torch.bfloat16:
            raise TypeError("all_gather_matmul: %s must be a 2-D bfloat16 "
                            "tensor (it is %d-D %s)" % (name, t.dim(),
                                                         t.dtype))
    if b.device != a_shard.device:
        raise ValueError("all_gather_matmul: b is on %s, a_shard on %s"
                         % (b.device, a_shard.device))
    (ms, k), (n, k2) = a_shard.shape, b.shape
    if k != k2:
        raise ValueError("all_gather_matmul: a_shard is (Ms, K) = (%d, %d), "
                         "b (N, K) = (%d, %d): their K differ"
                         % (ms, k, n, k2))
    if torch.cuda.get_device_capability(a_shard.device)[0] != 9:
        raise RuntimeError("all_gather_matmul: the kernel is for sm_90a "
                           "(Hopper)")


def _all_gather_matmul(a_shard, b, group, sms):
    """all_gather_matmul, eagerly."""
    import torch
    _check_gemm(a_shard, b)
    (ms, k), n = a_shard.shape, b.shape[0]
    dist, grp = _resolve(group)
    world = dist.get_world_size(grp)
    m = _mgpu.gemm_shapes(ms, k, n, world)
    st = _state("allgather_gemm", grp, a_shard.device, ms * k * 2)
    st.data(torch, torch.bfloat16, (ms, k)).copy_(a_shard)
    maps = st.maps.get((ms, k))
    if maps is None:
        raw = bytearray(8 * 128)
        for r, p in enumerate(st.ptrs):
            d = _mgpu.shard_map_desc(p, ms, k)  # innermost first
            raw[128 * r:128 * r + 128] = st.rt.encode_tensor_map(
                p, "bfloat16", tuple(reversed(d["dims"])),
                (d["strides"][0], 2), tuple(reversed(d["box"])),
                d["swizzle"])
        maps = st.maps[(ms, k)] = torch.frombuffer(
            raw, dtype=torch.uint8).view(8, 128).to(a_shard.device)
    c = torch.empty((m, n), dtype=torch.bfloat16, device=a_shard.device)
    if sms is None:
        sms = _registry.sm_count(a_shard.device)
    kern = _kernel("allgather_gemm", a_shard.device)
    kern(maps, b, c, st.pads, st.rank, world, ms, int(sms), st.advance())
    return c


# ---- the torch.library custom ops (torch.compile, CUDA graphs) ----
# The group travels by name (ProcessGroup.group_name), which is what an
# op schema can carry; the real implementations resolve it back.


def _group_of(name):
    dist = _dist()
    if name == _group_name(dist, dist.group.WORLD):
        return dist.group.WORLD
    from torch.distributed.distributed_c10d import _resolve_process_group
    return _resolve_process_group(name)


def _all_reduce_impl(x, group_name):
    return _all_reduce(x, _group_of(group_name), None)


def _all_reduce_fake(x, group_name):
    return x.new_empty(x.shape)


def _agmm_impl(a_shard, b, group_name, sms):
    return _all_gather_matmul(a_shard, b, _group_of(group_name),
                              sms if sms > 0 else None)


def _agmm_fake(a_shard, b, group_name, sms):
    import torch.distributed as dist
    world = dist.get_world_size(_group_of(group_name))
    return a_shard.new_empty((world * a_shard.shape[0], b.shape[0]))


def _register():
    _registry.custom_op("all_reduce", "(Tensor x, str group_name) -> Tensor",
                        _all_reduce_impl, _all_reduce_fake)
    _registry.custom_op("all_gather_matmul", "(Tensor a_shard, Tensor b, "
                        "str group_name, int sms) -> Tensor", _agmm_impl,
                        _agmm_fake)


def all_reduce(x: "torch.Tensor", group=None, *,
               out: "Optional[torch.Tensor]" = None) -> "torch.Tensor":
    """The sum of x over the ranks of `group` (a torch.distributed
    ProcessGroup, default the world), on every rank: returns it (a new
    tensor, or out=, which may be x).  float32 or bfloat16, any shape,
    contiguous; one-shot: every rank reads every peer's copy in rank
    order 0, 1, ..., so the result is bit-identical on every rank (float32
    sums; bfloat16 inputs are summed in float32 and rounded once).
    Tensors over 16 MiB (or a group of more than 8) go to
    torch.distributed.all_reduce instead (NCCL; its order); other dtypes
    are a TypeError.  Needs torch symmetric memory and peer access
    between the GPUs (NVLink or PCIe P2P): PeerAccessError otherwise.
    torch.ops.ptxtile.all_reduce(x, group_name) is the custom op (no
    out=)."""
    import torch
    if out is not None or torch.compiler.is_compiling():
        return _all_reduce(x, group, out)
    _check_cuda("all_reduce", "x", x)
    _register()
    dist, grp = _resolve(group)
    return torch.ops.ptxtile.all_reduce(x, _group_name(dist, grp))


def all_gather_matmul(a_shard: "torch.Tensor", b: "torch.Tensor",
                      group=None, *, sms: Optional[int] = None
                      ) -> "torch.Tensor":
    """C = all_gather(a_shard) @ b.T over the ranks of `group`, without
    materialising the gathered A: rank r's a_shard (Ms, K) holds rows
    r*Ms .. r*Ms + Ms - 1 of A; b (N, K) is this rank's own B (e.g. its
    N-shard of a column-parallel weight); returns C (world * Ms, N),
    bfloat16, float32 accumulation.  Each GPU's producer warp pulls the
    peers' shards by TMA straight from their memory (after acquiring each
    shard's ready flag) while its consumer warpgroups run wgmma on the
    tiles already present, own shard first.  Needs sm_90a (Hopper), K %
    8 == 0, torch symmetric memory and peer access; sms: CTAs to use
    (default the SM count).  torch.ops.ptxtile.all_gather_matmul(a_shard,
    b, group_name, sms) is the custom op (sms 0: the default)."""
    import torch
    if torch.compiler.is_compiling():
        return _all_gather_matmul(a_shard, b, group, sms)
    _check_gemm(a_shard, b)
    _register()
    dist, grp = _resolve(group)
    return torch.ops.ptxtile.all_gather_matmul(
        a_shard, b, _group_name(dist, grp), int(sms or 0))


if "torch" in sys.modules:
    try:
        _register()
    except Exception:  # torch without torch.library custom ops
        pass
