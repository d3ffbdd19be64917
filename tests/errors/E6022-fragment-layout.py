# a named fragment layout that the PTX ISA does not define: no float32
# mma.sync input, ldmatrix moves 1, 2 or 4 matrices of 32-bit words or
# 16-bit elements, wgmma's N is a multiple of 8, order= is a permutation,
# tcgen05 datapath D holds 128 rows per CTA
from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((32,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    a = T.alloc_local((16, 8), "uint32", layout=T.cuda.mma_sync_layout("A", "m16n8k16", "float32"))
    b = T.alloc_local((3, 8, 4), "uint32", layout=T.cuda.ldmatrix_layout(3))
    c = T.alloc_local((4, 8, 4), "uint32", layout=T.cuda.ldmatrix_layout(4, dtype="uint8"))
    d = T.alloc_local((4, 16, 12), "float32", layout=T.cuda.wgmma_layout("D", "m64n12k16", "float32"))
    e = T.alloc_local((2, 2, 16, 8), "float32", layout=T.cuda.mma_sync_layout("D", "m16n8k16", "float16", repeat=(2, 2), order=(0, 0)))
    f = T.tmem((64, 128), "float32", scope="tmem", allocated_addr=T.uint32(0), layout=T.cuda.tmem_datapath_layout("D", 64, 128))
