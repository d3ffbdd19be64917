"""The multi-GPU kernels on what one GPU can show: the one-shot
all-reduce kernel launched with a world of 1 through real flags and
pointer tables (its sum is its input, bit for bit, over two epochs);
ptxtile.kernels.all_gather_matmul in a torch.distributed group of one
(torch symmetric memory, the peer table, TMA through the shard map the
runtime encodes) against a float32 product; a DevicePointer launch; the
runtime's peer check on the launch device's own torch memory (accepted,
as every launch is).  The several-GPU runs are bench/mgpu/run.py."""
import os

import pytest
import torch

import ptxtile
import ptxtile.kernels as K
from ptxtile.kernels import _mgpu, script_path

hopper = pytest.mark.skipif(torch.cuda.get_device_capability()[0] != 9,
                            reason="all_gather_matmul's kernel is sm_90a")


def table(addrs):
    raw = bytearray(_mgpu.table(addrs))
    return torch.frombuffer(raw, dtype=torch.int64).cuda().view(torch.uint64)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_allreduce_kernel_with_a_world_of_one(dtype):
    name = _mgpu.allreduce_kernel(str(dtype)[6:], 1000, 1)
    k = ptxtile.compile(script_path("allreduce_oneshot")).kernel(name)
    x = torch.randn(1000, device="cuda").to(dtype)
    out = torch.empty_like(x)
    pad = torch.zeros(_mgpu.PAD_BYTES, dtype=torch.uint8, device="cuda")
    peers, pads = table([x.data_ptr()]), table([pad.data_ptr()])
    for epoch in (1, 2):
        out.zero_()
        k(out, x, peers, pads, 0, 1, epoch)
        torch.cuda.synchronize()
        assert torch.equal(out, x)


def test_device_pointer_launch():
    k = ptxtile.compile(os.path.join(os.path.dirname(__file__), "..", "..",
                                     "examples", "saxpy_relu.py"))
    x = torch.randn(1000, device="cuda")
    y = torch.randn(1000, device="cuda")
    want = torch.relu(2.0 * x + y)
    k(ptxtile.DevicePointer(x.data_ptr(), (1000,), "float32",
                            device=x.device.index), y, 2.0)
    torch.cuda.synchronize()
    torch.testing.assert_close(y, want)


@hopper
def test_all_gather_matmul_in_a_group_of_one(tmp_path):
    import torch.distributed as dist
    if not dist.is_initialized():
        dist.init_process_group(
            "nccl", init_method="file://%s" % (tmp_path / "store"),
            rank=0, world_size=1, device_id=torch.device("cuda", 0))
    g = torch.Generator(device="cuda").manual_seed(3)
    a = (torch.randn(1000, 512, device="cuda", generator=g) / 8).to(
        torch.bfloat16)
    b = (torch.randn(264, 512, device="cuda", generator=g) / 8).to(
        torch.bfloat16)
    want = a.float() @ b.float().t()
    for _ in range(2):  # two epochs
        c = K.all_gather_matmul(a, b)
        torch.cuda.synchronize()
        err = ((c.float() - want).abs().max() / want.abs().max()).item()
        assert c.shape == (1000, 264) and err < 2e-2
    y = K.all_reduce(torch.ones(8, device="cuda"))
    assert torch.equal(y, torch.ones(8, device="cuda"))
