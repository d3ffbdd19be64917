# Round-trip input: allocations, views, layouts, raw PTX, tile calls,
# star arguments and scalar functions.
from tvm_tirx.script import tirx as T
from tvm_tirx.tirx.layout import S, R, TileLayout, ComposeLayout, Axis
from tvm_tirx.backend.cuda.axis import laneid, warpid

FRAG = TileLayout(S[(2, 32, 3, 4):(1@warpid, 1@laneid, 4, 1)])
SW = T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 8, 64):(64, 4096, 1)]))
OPS = (1, 2)


@T.function
def relu(v: T.float32) -> T.float32:
    r = v
    if v < 0.0:
        return 0.0
    return r


@T.function
def add3(a: T.float16, b: T.float16):
    s: T.float16 = a + b
    return s + T.float16(3)


@T.function
def tiles(A: T.Tensor((64, 32), "float32", layout=T.TileLayout(T.S[(64, 32):(32, 1)])),
          G: T.Tensor((256,), "uint8", scope="global"), M: T.TensorMap):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    tid = T.cuda.thread_idx("x")
    smem = T.alloc_shared((8, 32), "float32", layout="default", align=128)
    sw = T.alloc_shared((64, 8, 64), "float16", layout=SW, align=1024)
    dyn = T.alloc_buffer((1024,), "uint8", scope="shared.dyn", align=16)
    regs = T.alloc_local((2, 32, 3, 4), "float32", layout=FRAG)
    r2 = T.alloc_local((2,), "uint64", layout="default")
    plain = T.alloc_buffer((4,), "int32", scope="local")
    tm = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=0,
                       layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    l1 = T.alloc_local((8,), "float32", layout=TileLayout(S[8:4@laneid] + 1@laneid + 2@warpid + 64))
    l2 = T.alloc_local((8, 4), "float32", layout=TileLayout(S[(8, 4):("laneid", 1)] + R[2:4@warpid] + 5@warpid))
    l3 = T.alloc_local((32,), "float32", layout=T.TileLayout(T.S[32, 1]))
    l4 = T.alloc_local((8,), "float32", layout=T.TileLayout(T.S[8:"laneid"] + T.R[(2, 2):(1@Axis.warpid, 8@Axis.tx)]))
    words = smem.view("uint32")
    half = smem[0:4, :]
    row = smem.sub[tid, :]
    cols = smem[:, 8:16]
    w2 = smem.view(T.uint32)[1:3, 0:8]
    flat = smem.view(256)
    flat2 = regs.view((2, 32, 12), layout=T.TileLayout(T.S[(2, 32, 12):(1@warpid, 1@laneid, 1)]))
    bcast = smem.view(8, 32, layout=T.TileLayout(T.S[(8, 32):(0, 1)]))
    T.ptx.mbarrier.init.shared.b64(r2.ptr_to([0]), T.uint32(1))
    T.ptx.fence.proxy.async_.shared__cta()
    T.ptx.cp.async_.bulk.commit_group()
    T.ptx.tcgen05.commit.cta_group__1.mbarrier__arrive__one.shared__cluster.b64(r2.ptr_to([1]), pred=tid == 0)
    T.ptx["ld.global.nc.v4.b32"](*[plain[0], plain[1], plain[2], plain[3]], A.ptr_to([tid, 0]))
    T.ptx["st.global.b32"](G.ptr_to([tid]), plain[0], pred=tid < 4, preserve_dst=True)
    T.ptx.bar.sync(*OPS)
    T.cuda.mbarrier_wait(r2.ptr_to([0]), 0)
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], regs, A)
    T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], row, A.sub[tid, :], chunk_bytes=16, scope="cta")
    T.cuda.tile.apply(
        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes"],
        half, M, box=(1, 32), coords=(0, 0),
        gather4=(tid, tid + 3, tid + 7, tid + 11), mbar=r2.ptr_to([0]),
    )
    T.cuda.tile.apply(T.ptx.cp.async_.cg.shared.global_, cols, A[0:8, 8:16], chunk_bytes=16,
                      src_size=T.if_then_else(tid < 4, T.uint32(16), T.uint32(0)))
    T.cuda.tile.apply(T.ptx["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"], *[regs, regs, regs, regs], scope="warp")
    T.cuda.tile.ewise(relu, regs, regs)
    T.cuda.tile.ewise(relu, flat2, regs, scope="warpgroup")
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x2.shared.b16"], words, w2, bcast, flat, l1, l2, l3, l4, dyn, sw, tm, plain, scope="warp")
