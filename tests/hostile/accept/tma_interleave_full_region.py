# An interleaved TMA load (16B, NC/8WC8 as in tests/gpu/kernels/tma_modes.py
# interleave16) from A[:, :, :, :]: a region that keeps every element is
# the whole T.Tensor, so it takes the whole tensor's interleaved map like
# A itself; a proper region is E3923 (tests/errors/E3923-interleaved-tensor-map.py).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((2, 4, 64, 8), "uint16", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.alloc_shared((1, 1, 8, 8), "uint16", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    if T.cuda.lane_id() == 0:
        T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.3d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            t, A[:, :, :, :], box=(1, 1, 8), coords=(0, 1, 2), interleave=1, mbar=mbar.ptr_to([0]))
