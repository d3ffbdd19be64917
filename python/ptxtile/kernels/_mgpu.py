"""What the multi-GPU kernels of ptxtile.kernels share, without torch:
the layout of their symmetric buffers, their pointer tables, epochs and
limits.  kernels/collectives.py runs them on GPUs (torch symmetric
memory); the tests run the same layout on ptxtile.EmulatedDevices.

A symmetric buffer (one per device, the same size on every device) is
    [0, data_bytes)            the data every peer reads (the input of
                               all-reduce, the A shard of all-gather GEMM)
    [data_bytes, + PAD_BYTES)  the kernel's signal pad, zeroed once when
                               the buffer is made, never reset (the flags
                               hold epochs)
The kernels read peers through two 8-entry uint64 tables in the
launching device's memory: table[r] = device r's data (or pad) address
as this device reaches it; entries past the world size are 0.
"""
import struct

MAX_WORLD = 8
# examples/allreduce_oneshot.py: 2 * PAD_CTAS * 8 uint32 words
ALLREDUCE_PAD_CTAS = 32
ALLREDUCE_PAD_BYTES = 2 * ALLREDUCE_PAD_CTAS * 8 * 4
# examples/allgather_gemm.py: 24 uint32 words
GEMM_PAD_BYTES = 24 * 4
PAD_BYTES = 4096  # room for either, and a 4 KiB-aligned end
# the one-shot all-reduce reads world * n elements on every device:
# worth it for small and medium tensors (issue 26's targets: <= 16 MiB)
ALLREDUCE_MAX_BYTES = 16 << 20
ALLREDUCE_KERNELS = {"float32": "allreduce_f32", "bfloat16": "allreduce_bf16"}
ITEMSIZE = {"float32": 4, "bfloat16": 2}


def data_bytes(nbytes):
    """The data region for nbytes of payload: rounded up to 4 KiB, so
    the pad (and a TMA map's base) stays aligned."""
    return max(4096, (nbytes + 4095) // 4096 * 4096)


def buffer_bytes(nbytes):
    """The whole symmetric buffer for nbytes of payload."""
    return data_bytes(nbytes) + PAD_BYTES


def table(addrs):
    """The 8 uint64 entries of a pointer table of addrs (one per rank)
    as 64 little-endian bytes."""
    if not 1 <= len(addrs) <= MAX_WORLD:
        raise ValueError("a group of %d devices: the multi-GPU kernels take "
                         "1 to %d" % (len(addrs), MAX_WORLD))
    for r, a in enumerate(addrs):
        if not 0 < a < 2 ** 64:
            raise ValueError("rank %d's address 0x%x is not a device "
                             "address" % (r, a))
    return struct.pack("<8Q", *(list(addrs) + [0] * (MAX_WORLD - len(addrs))))


def next_epoch(epoch):
    """The epoch after `epoch` (uint32, never 0: 0 is a zeroed pad)."""
    return epoch + 1 if epoch < 2 ** 32 - 1 else 1


def allreduce_kernel(dtype, numel, world):
    """The kernel name of the one-shot all-reduce for dtype (a dtype
    name) and numel elements on world devices; TypeError for a dtype it
    lacks, ValueError for a size or group it does not take (the caller
    may fall back to NCCL for those: collectives.all_reduce does for
    sizes)."""
    name = ALLREDUCE_KERNELS.get(dtype)
    if name is None:
        raise TypeError("all_reduce: %s tensors are not supported by the "
                        "one-shot kernel (float32 and bfloat16 are)" % dtype)
    if not 1 <= world <= MAX_WORLD:
        raise ValueError("all_reduce: a group of %d devices; the one-shot "
                         "kernel takes 1 to %d" % (world, MAX_WORLD))
    nbytes = numel * ITEMSIZE[dtype]
    if nbytes > ALLREDUCE_MAX_BYTES:
        raise ValueError("all_reduce: %d bytes is over the one-shot kernel's "
                         "%d (16 MiB)" % (nbytes, ALLREDUCE_MAX_BYTES))
    if numel >= 2 ** 31:
        raise ValueError("all_reduce: %d elements do not fit the kernel's "
                         "int32 indices" % numel)
    return name


def gemm_shapes(ms, k, n, world):
    """Checks the all-gather GEMM shapes: A shards (ms, K), B (N, K), C
    (world * ms, N); ValueError naming what is wrong."""
    if not 1 <= world <= MAX_WORLD:
        raise ValueError("all_gather_matmul: a group of %d devices; the "
                         "kernel takes 1 to %d" % (world, MAX_WORLD))
    if ms < 1 or n < 1 or k < 1:
        raise ValueError("all_gather_matmul: empty shapes (shard rows %d, "
                         "N %d, K %d)" % (ms, n, k))
    if k % 8:
        raise ValueError("all_gather_matmul: K = %d must be a multiple of 8 "
                         "(16-byte TMA row strides)" % k)
    if world * ms >= 2 ** 31 or n >= 2 ** 31:
        raise ValueError("all_gather_matmul: C (%d, %d) is too large for "
                         "int32 indices" % (world * ms, n))
    return world * ms


def shard_map_desc(addr, ms, k):
    """cuTensorMapEncodeTiled's arguments for one A shard as
    examples/allgather_gemm.py reads it: bf16 (format 9), dims (K, ms)
    innermost first, row stride K * 2 bytes, box (64, 128), element
    strides 1, no interleave, 128-byte swizzle (3), zero fill."""
    return dict(format=9, rank=2, addr=addr, dims=(k, ms), strides=(k * 2,),
                box=(64, 128), elem_strides=(1, 1), interleave=0, swizzle=3,
                oob_fill=0)
