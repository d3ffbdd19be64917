# target: sm_90a
# ldmatrix/stmatrix tile calls: x1/x2/x4, .trans, permuted register
# slots, gapped rows, warp and cta scope, the per-lane row address of a
# reshaped (m-axis) view, .trans over float32 containers.
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, warpid


@T.function
def ldm_warp(out: T.Tensor((32, 8), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    S = T.alloc_shared((4, 8, 8), "uint32", align=16)
    # x1: one matrix, row pitch 8 words (gaps between rows)
    R1 = T.alloc_local((1, 8, 4), "uint32", layout=T.TileLayout(T.S[(1, 8, 4):(1, 4@laneid, 1@laneid)]))
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x1.shared.b16"], R1, S[0:1, :, 4:8], scope="warp")
    # x2 repeated twice: repeat axis over matrix pairs
    R2 = T.alloc_local((2, 2, 8, 4), "uint32", layout=T.TileLayout(T.S[(2, 2, 8, 4):(2, 1, 4@laneid, 1@laneid)]))
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x2.shared.b16"], R2, S.view(2, 2, 8, 8)[:, :, :, 0:4], scope="warp")
    # x4 .trans, register slots permuted (matrix i -> slot 2*(i%2) + i//2)
    R4 = T.alloc_local((4, 8, 4), "uint32", layout=T.TileLayout(T.S[(2, 2, 8, 4):(1, 2, 4@laneid, 1@laneid)]))
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"], R4, S[:, :, 0:4], scope="warp")
    T.cuda.tile.apply(T.ptx["stmatrix.sync.aligned.m8n8.x4.shared::cta.b16"], S[:, :, 4:8], R4, scope="warp")


@T.function
def ldm_cta(out: T.Tensor((64, 8), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    # bf16 tile with a padded 40-element row pitch, seen as b32 words;
    # matrix i = (col half i//2, row half i%2) of each warp's 16x16 block
    S = T.alloc_shared((64, 40), "bfloat16", align=16)
    V = S.view("uint32").view(4, 4, 8, 4, layout=T.TileLayout(T.S[(4, 2, 2, 8, 4):(320, 4, 160, 20, 1)]))
    R = T.alloc_local((4, 4, 8, 4), "uint32", layout=T.TileLayout(T.S[(4, 4, 8, 4):(1@warpid, 1, 4@laneid, 1@laneid)]))
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], R, V, scope="cta")
    T.cuda.tile.apply(T.ptx["stmatrix.sync.aligned.m8n8.x4.trans.shared.b16"], V, R, scope="cta")


@T.function
def ldm_trans_f32():
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    # .trans over float32 containers: any b32 container holds two 16-bit
    # values (reference "Matrix loads and stores"), the registers are .f32
    S = T.alloc_shared((4, 8, 4), "float32", align=16)
    R = T.alloc_local((4, 8, 4), "float32", layout=T.TileLayout(T.S[(4, 8, 4):(1, 4@laneid, 1@laneid)]))
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"], R, S, scope="warp")
    T.cuda.tile.apply(T.ptx["stmatrix.sync.aligned.m8n8.x4.trans.shared.b16"], S, R, scope="warp")


@T.function
def ldm_shared_cta():
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    # forms whose row spells .shared::cta literally (not a tagged space
    # group): the state space is the address operand's (emu_fuzz found
    # these rejected as "generic addressing")
    S = T.alloc_shared((1, 8, 4), "uint32", align=16)
    R = T.alloc_local((1, 8, 4), "uint32", layout=T.TileLayout(T.S[(1, 8, 4):(1, 4@laneid, 1@laneid)]))
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x1.trans.shared::cta.b16"], R, S, scope="warp")
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x1.shared::cta.b16"], R, S, scope="warp")
