# ld_st.py - 64 threads copy a (2, 32, 3, 4) float32 tensor from global
# memory to shared memory through registers: three ld.global.v4.b32 per
# thread into a distributed register tensor, three st.shared.v4.b32 back
# out; then every thread writes the 12 values staged by the next thread
# to B.  Afterwards, with t = 32*w + l the thread rank,
#     B[w, l, :, :] == A[w', l', :, :]   where t' = 32*w' + l' = (t + 1) % 64.
#
# Source: cuda_tile_instruction_reference.rst, "Memory loads and stores"
# (the two calls are quoted as written) with the (2, 32, 3, 4) register
# layout of the operand-coordinate example: group (warp, lane), repeat 3,
# atom 4 words.  The caller supplies the register storage and the CTA
# barrier between the shared store and the other threads' reads.
# Target: sm_80 and later.
from tvm_tirx.script import tirx as T

@T.function
def ld_st(
    A: T.Tensor((2, 32, 3, 4), "float32", align=16),
    B: T.Tensor((2, 32, 3, 4), "float32", align=16),
):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    tid = T.cuda.thread_idx("x")
    R = T.alloc_local((2, 32, 3, 4), "float32",
                      layout=T.TileLayout(T.S[(2, 32, 3, 4):(1@T.cuda.Axis.warpid, 1@T.cuda.Axis.laneid, 4, 1)]))
    S = T.alloc_shared((2, 32, 3, 4), "float32", layout="default", align=16)
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], R, A, scope="cta")
    T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], S, R, scope="cta")
    T.cuda.cta_sync()
    nxt = (tid + 1) % 64
    for r in range(3):
        for k in range(4):
            B[tid // 32, tid % 32, r, k] = S[nxt // 32, nxt % 32, r, k]
