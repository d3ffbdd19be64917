# tile_ldst.py - CTA-scope tile ld/st round trip with permuted register
# slots: 64 threads load A (2, 32, 3, 4) float32 with ld.global.v4.b32 into
# R, whose layout stores repeat r / word a of a thread in register
# r + 3*a (not 4*r + a); st.shared.v4.b32 puts the words back in order in
# S; after a barrier each thread loads the 12 values of the next thread
# (t + 1) % 64 with thread-scope ld.shared.v4.b32 and stores them to B
# with st.global.v4.b32.  Expected: B[t] == A[(t + 1) % 64] for each thread
# rank t = 32*w + l, word by word.
from tvm_tirx.script import tirx as T

@T.function
def tile_ldst(A: T.Tensor((2, 32, 3, 4), "float32", align=16),
              B: T.Tensor((2, 32, 3, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    tid = T.cuda.thread_idx("x")
    R = T.alloc_local((2, 32, 3, 4), "float32",
                      layout=T.TileLayout(T.S[(2, 32, 3, 4):(1@T.Axis.warpid, 1@T.Axis.laneid, 1, 3)]))
    S = T.alloc_shared((2, 32, 3, 4), "float32", layout="default", align=16)
    P = T.alloc_local((3, 4), "float32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], R, A, scope="cta")
    T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], S, R, scope="cta")
    T.cuda.cta_sync()
    nxt = (tid + 1) % 64
    T.cuda.tile.apply(T.ptx["ld.shared.v4.b32"], P, S.sub[nxt // 32, nxt % 32, :, :])
    T.cuda.tile.apply(T.ptx["st.global.v4.b32"], B.sub[tid // 32, tid % 32, :, :], P)
