#!/usr/bin/env python3
"""bench/mgpu/run.py - the multi-GPU kernels of ptxtile.kernels against
NCCL (+ cuBLAS), one process per GPU (torch.multiprocessing.spawn),
torch.distributed with NCCL.

  all-reduce  ptxtile.kernels.all_reduce (one-shot; NCCL itself past 16
              MiB) vs dist.all_reduce, float32 and bfloat16, 64 KiB ..
              256 MiB; checked bit-exact against the fixed-order sum
              (rank 0 + rank 1 + ... in float32, rounded once for bf16)
              of every rank's input, computed with torch on each GPU
  all-gather  ptxtile.kernels.all_gather_matmul vs
  GEMM        dist.all_gather_into_tensor + torch.matmul at the prefill
              shapes of bench/gemm/suite.py (M = 8192, (N, K) in
              (4096, 4096), (14336, 4096), (4096, 14336)) split over the
              GPUs: A's rows sharded (8192 / world each), B (N / world,
              K) the rank's column shard; checked against the float32
              product within 2e-2 relative to its largest value
Times are CUDA-event means over --iters launches after --warmup, each
rank's, the slowest rank reported.  Prints one markdown table per part
with the issue 26 targets MET / NOT MET:
  all-reduce  >= 1.5x NCCL for <= 1 MiB, >= 1.0x up to 16 MiB
  GEMM        >= 1.15x all_gather_into_tensor + torch.matmul
NVLink multicast stays off: NCCL_NVLS_ENABLE=0,
TORCH_SYMM_MEM_DISABLE_MULTICAST=1 and NVSHMEM_DISABLE_NVLS=1 are set
before anything initializes.  With fewer than 2 GPUs visible it says so
and exits 0 (nothing to measure).  Exit status 1 when a check fails.
"""
import argparse
import os
import sys

NO_MULTICAST = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
                "NVSHMEM_DISABLE_NVLS": "1"}
os.environ.update(NO_MULTICAST)  # before torch, NCCL or NVSHMEM load

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SIZES = [64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20,
         256 << 20]
PREFILL_NK = [(4096, 4096), (14336, 4096), (4096, 14336)]
PREFILL_M = 8192


def parse(argv):
    p = argparse.ArgumentParser(
        prog="run.py", description="ptxtile multi-GPU kernels vs NCCL "
        "(one process per GPU).")
    p.add_argument("--gpus", type=int, default=0,
                   help="processes / GPUs to use (default: all visible)")
    p.add_argument("--iters", type=int, default=50)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--parts", default="allreduce,gemm",
                   help="comma-separated: allreduce, gemm")
    p.add_argument("--max-bytes", type=int, default=SIZES[-1],
                   help="largest all-reduce size (bytes)")
    p.add_argument("--port", type=int, default=29531)
    a = p.parse_args(argv)
    if a.iters < 1 or a.warmup < 0:
        p.error("--iters must be >= 1 and --warmup >= 0")
    bad = set(a.parts.split(",")) - {"allreduce", "gemm"}
    if bad:
        p.error("unknown --parts %s" % ",".join(sorted(bad)))
    return a


def timed(torch, fn, warmup, iters):
    for _ in range(warmup):
        fn()
    s, e = torch.cuda.Event(enable_timing=True), \
        torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    s.record()
    for _ in range(iters):
        fn()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) * 1000.0 / iters  # microseconds


def slowest(torch, dist, us):
    t = torch.tensor([us], dtype=torch.float64, device="cuda")
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.item()


def fixed_order_sum(torch, dist, x, world):
    parts = [torch.empty_like(x) for _ in range(world)]
    dist.all_gather(parts, x)
    s = parts[0].float()
    for p in parts[1:]:
        s = s + p.float()
    return s.to(x.dtype)


def bench_allreduce(torch, dist, K, a, rank, world):
    rows, ok = [], True
    for dt in (torch.float32, torch.bfloat16):
        es = torch.empty((), dtype=dt).element_size()
        for nbytes in SIZES:
            if nbytes > a.max_bytes:
                continue
            n = nbytes // es
            g = torch.Generator(device="cuda").manual_seed(1000 + rank)
            x = torch.randn(n, device="cuda", generator=g).to(dt)
            want = fixed_order_sum(torch, dist, x, world)
            got = K.all_reduce(x)
            exact = bool(torch.equal(got.view(torch.int16 if es == 2 else
                                              torch.int32),
                                     want.view(torch.int16 if es == 2 else
                                               torch.int32)))
            flag = torch.tensor([1 if exact else 0], device="cuda")
            dist.all_reduce(flag, op=dist.ReduceOp.MIN)
            one_shot = nbytes <= 16 << 20
            exact = bool(flag.item()) or not one_shot  # NCCL: its order
            ok = ok and exact
            y = x.clone()
            t_nccl = slowest(torch, dist, timed(
                torch, lambda: dist.all_reduce(y), a.warmup, a.iters))
            t_ours = slowest(torch, dist, timed(
                torch, lambda: K.all_reduce(x, out=y), a.warmup, a.iters))
            need = 1.5 if nbytes <= 1 << 20 else 1.0 if one_shot else None
            r = t_nccl / t_ours
            rows.append((str(dt).replace("torch.", ""), nbytes, t_ours,
                         t_nccl, r, need, exact, one_shot))
    if rank == 0:
        print("\n## all-reduce, %d GPUs (%s)\n" % (world,
                                                   torch.cuda.get_device_name()))
        print("| dtype | bytes | ptxtile us | NCCL us | ratio | target | "
              "check |")
        print("|---|---:|---:|---:|---:|---|---|")
        for dt, nb, to, tn, r, need, exact, one in rows:
            tgt = ("n/a (NCCL fallback)" if need is None else
                   "%s (>= %.2fx)" % ("MET" if r >= need else "NOT MET",
                                      need))
            chk = ("bit-exact" if one and exact else "DIFFERS" if one
                   else "NCCL order")
            print("| %s | %d | %.1f | %.1f | %.3f | %s | %s |"
                  % (dt, nb, to, tn, r, tgt, chk))
    return ok


def bench_gemm(torch, dist, K, a, rank, world):
    rows, ok = [], True
    for n, k in PREFILL_NK:
        ms, nl = PREFILL_M // world, n // world
        g = torch.Generator(device="cuda").manual_seed(7 + rank)
        a_shard = (torch.randn(ms, k, device="cuda", generator=g) / 8).to(
            torch.bfloat16)
        gb = torch.Generator(device="cuda").manual_seed(99 + rank)
        b = (torch.randn(nl, k, device="cuda", generator=gb) / 8).to(
            torch.bfloat16)
        a_full = torch.empty(ms * world, k, dtype=torch.bfloat16,
                             device="cuda")
        dist.all_gather_into_tensor(a_full, a_shard)
        want = a_full.float() @ b.float().t()
        got = K.all_gather_matmul(a_shard, b).float()
        err = ((got - want).abs().max() / want.abs().max()).item()
        good = torch.tensor([1 if err <= 2e-2 else 0], device="cuda")
        dist.all_reduce(good, op=dist.ReduceOp.MIN)
        ok = ok and bool(good.item())

        def base():
            dist.all_gather_into_tensor(a_full, a_shard)
            return torch.matmul(a_full, b.t())
        t_base = slowest(torch, dist, timed(torch, base, a.warmup, a.iters))
        t_ours = slowest(torch, dist, timed(
            torch, lambda: K.all_gather_matmul(a_shard, b), a.warmup,
            a.iters))
        rows.append((ms * world, nl, k, t_ours, t_base, t_base / t_ours,
                     err, bool(good.item())))
    if rank == 0:
        print("\n## all-gather + GEMM, %d GPUs (A %d rows sharded, B = the "
              "rank's N-shard)\n" % (world, PREFILL_M))
        print("| M | N/rank | K | ptxtile us | all_gather+matmul us | ratio "
              "| target | max rel err |")
        print("|---:|---:|---:|---:|---:|---:|---|---|")
        for m, nl, k, to, tb, r, err, good in rows:
            print("| %d | %d | %d | %.1f | %.1f | %.3f | %s (>= 1.15x) | "
                  "%.2e %s |" % (m, nl, k, to, tb, r,
                                 "MET" if r >= 1.15 else "NOT MET", err,
                                 "ok" if good else "FAIL"))
    return ok


def worker(rank, world, a, results):
    os.environ.update(NO_MULTICAST)
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(a.port))
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import torch
    import torch.distributed as dist
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world,
                            device_id=torch.device("cuda", rank))
    import ptxtile.kernels as K
    ok = True
    try:
        parts = a.parts.split(",")
        if "allreduce" in parts:
            ok = bench_allreduce(torch, dist, K, a, rank, world) and ok
        if "gemm" in parts:
            ok = bench_gemm(torch, dist, K, a, rank, world) and ok
    finally:
        dist.barrier()
        dist.destroy_process_group()
    results[rank] = ok


def main(argv=None):
    a = parse(sys.argv[1:] if argv is None else argv)
    try:
        import torch
        import torch.multiprocessing as mp
    except ImportError as e:
        print("SKIP mgpu: torch is not installed (%s)" % e)
        return 0
    have = torch.cuda.device_count() if torch.cuda.is_available() else 0
    world = a.gpus or have
    if have < 2 or world < 2 or world > have:
        print("SKIP mgpu: %d GPU(s) visible, %d asked; the multi-GPU "
              "benchmark needs at least 2 (nothing measured)"
              % (have, world))
        return 0
    results = mp.Manager().dict()
    mp.spawn(worker, args=(world, a, results), nprocs=world, join=True)
    ok = all(results.get(r, False) for r in range(world))
    print("\n%s: multi-GPU checks" % ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
