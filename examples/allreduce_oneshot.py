# allreduce_oneshot.py - one-shot all-reduce (sum) over `world` devices,
# one launch per device (one process per GPU): afterwards, on every device,
#     out[i] == X_0[i] + X_1[i] + ... + X_{world-1}[i]
# added in that fixed rank order, so the result is bit-identical on every
# device.  allreduce_f32: float32 in, float32 sums.  allreduce_bf16:
# bfloat16 in, each element converted to float32, summed in rank order in
# float32, rounded once to bfloat16 (round to nearest even).
#
# Parameters (stable; both kernels take the same list):
#   out    (n,)  this device's output
#   inp    (n,)  this device's input (the buffer its peers read as X_rank)
#   peers  (8,)  uint64: peers[r] = address of device r's input buffer, as
#                device `rank` reaches it (a peer pointer: torch symmetric
#                memory's peer views, or an emulated device's address);
#                entries >= world are unused
#   pads   (8,)  uint64: pads[r] = address of device r's signal pad, 2 *
#                PAD_CTAS * 8 uint32 words zeroed once before the first
#                call, never reset
#   rank   this device, 0 <= rank < world
#   world  number of devices, 1..8
#   epoch  1 on the first call, +1 on every later call (never 0)
# All devices must be called with the same n, world and epoch.
#
# Per CTA b (of at most PAD_CTAS, each resident for the whole kernel):
#   round 0  thread r < world stores epoch to word (0, b, rank) of device
#            r's pad with st.release.sys ("my input is ready"), then spins
#            with ld.acquire.sys on word (0, b, r) of its own pad until it
#            reads epoch; bar.sync
#   sum      elements i = b * 256 + tid, then + grid * 256 ...: plain
#            ld.global of every device's X_r[i] for r = 0..world-1
#   round 1  bar.sync (this CTA has read its elements of every peer), then
#            the same exchange on words (1, b, *): when it ends no device
#            reads this device's input any more, so it may be rewritten
# Because the flag words hold the epoch rather than being reset, call k+1
# never races with a late reader of call k.
# No multimem / NVLink multicast.  Target: sm_80 and later (.sys scope
# ld.acquire / st.release need sm_70).
from tvm_tirx.script import tirx as T

n = T.dynamic("n")
BLOCK = 256
PAD_CTAS = 32  # CTAs at most; a pad holds 2 * PAD_CTAS * 8 words


@T.function
def allreduce_f32(out: T.Tensor((n,), "float32"),
                  inp: T.Tensor((n,), "float32"),
                  peers: T.Tensor((8,), "uint64"),
                  pads: T.Tensor((8,), "uint64"),
                  rank: T.int32, world: T.int32, epoch: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.max(T.min(T.ceildiv(n, BLOCK), PAD_CTAS), 1), block=BLOCK))
    b = T.cuda.block_idx("x")
    tid = T.cuda.thread_idx("x")
    grid = T.max(T.min(T.ceildiv(n, BLOCK), PAD_CTAS), 1)
    mypad = pads[rank]
    # round 0: my input is ready; wait until every peer's is
    if tid < world:
        T.ptx["st.release.sys.global.u32"](pads[tid] + T.cast((b * 8 + rank) * 4, "uint64"), epoch)
        f0: T.uint32 = T.uint32(0)
        T.ptx["ld.acquire.sys.global.u32"](f0, mypad + T.cast((b * 8 + tid) * 4, "uint64"))
        while f0 != epoch:
            T.ptx["ld.acquire.sys.global.u32"](f0, mypad + T.cast((b * 8 + tid) * 4, "uint64"))
    T.cuda.cta_sync()
    i = b * BLOCK + tid
    while i < n:
        s: T.float32 = T.float32(0.0)
        for r in range(world):
            v: T.float32 = T.float32(0.0)
            if r == rank:
                v = inp[i]
            else:
                T.ptx["ld.global.f32"](v, peers[r] + T.cast(i, "uint64") * T.uint64(4))
            if r == 0:
                s = v
            else:
                s = s + v
        out[i] = s
        i = i + grid * BLOCK
    # round 1: I have read my elements of every peer's input
    T.cuda.cta_sync()
    if tid < world:
        T.ptx["st.release.sys.global.u32"](pads[tid] + T.cast(((PAD_CTAS + b) * 8 + rank) * 4, "uint64"), epoch)
        f1: T.uint32 = T.uint32(0)
        T.ptx["ld.acquire.sys.global.u32"](f1, mypad + T.cast(((PAD_CTAS + b) * 8 + tid) * 4, "uint64"))
        while f1 != epoch:
            T.ptx["ld.acquire.sys.global.u32"](f1, mypad + T.cast(((PAD_CTAS + b) * 8 + tid) * 4, "uint64"))


@T.function
def allreduce_bf16(out: T.Tensor((n,), "bfloat16"),
                   inp: T.Tensor((n,), "bfloat16"),
                   peers: T.Tensor((8,), "uint64"),
                   pads: T.Tensor((8,), "uint64"),
                   rank: T.int32, world: T.int32, epoch: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.max(T.min(T.ceildiv(n, BLOCK), PAD_CTAS), 1), block=BLOCK))
    b = T.cuda.block_idx("x")
    tid = T.cuda.thread_idx("x")
    grid = T.max(T.min(T.ceildiv(n, BLOCK), PAD_CTAS), 1)
    mypad = pads[rank]
    if tid < world:
        T.ptx["st.release.sys.global.u32"](pads[tid] + T.cast((b * 8 + rank) * 4, "uint64"), epoch)
        f0: T.uint32 = T.uint32(0)
        T.ptx["ld.acquire.sys.global.u32"](f0, mypad + T.cast((b * 8 + tid) * 4, "uint64"))
        while f0 != epoch:
            T.ptx["ld.acquire.sys.global.u32"](f0, mypad + T.cast((b * 8 + tid) * 4, "uint64"))
    T.cuda.cta_sync()
    i = b * BLOCK + tid
    while i < n:
        s: T.float32 = T.float32(0.0)
        for r in range(world):
            v: T.bfloat16 = T.bfloat16(0.0)
            if r == rank:
                v = inp[i]
            else:
                T.ptx["ld.global.b16"](v, peers[r] + T.cast(i, "uint64") * T.uint64(2))
            if r == 0:
                s = T.cast(v, "float32")
            else:
                s = s + T.cast(v, "float32")
        out[i] = T.cast(s, "bfloat16")
        i = i + grid * BLOCK
    T.cuda.cta_sync()
    if tid < world:
        T.ptx["st.release.sys.global.u32"](pads[tid] + T.cast(((PAD_CTAS + b) * 8 + rank) * 4, "uint64"), epoch)
        f1: T.uint32 = T.uint32(0)
        T.ptx["ld.acquire.sys.global.u32"](f1, mypad + T.cast(((PAD_CTAS + b) * 8 + tid) * 4, "uint64"))
        while f1 != epoch:
            T.ptx["ld.acquire.sys.global.u32"](f1, mypad + T.cast(((PAD_CTAS + b) * 8 + tid) * 4, "uint64"))
