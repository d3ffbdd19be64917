"""Timing helpers for benchmarks (needs torch and a CUDA device).

bench(fn) times fn() with CUDA events on torch's current stream:
`warmup` untimed calls, then `rounds` rounds of `iters` calls between two
events each; the result's .median is the median round's time per call in
milliseconds (rounds damp clock and power drift; events time the GPU,
so for launch-bound fn it is the launch rate)."""
import statistics


class BenchResult(object):
    __slots__ = ("median", "min", "max", "rounds", "iters")

    def __init__(self, times, iters):
        self.rounds = times
        self.iters = iters
        self.median = statistics.median(times)
        self.min = min(times)
        self.max = max(times)

    def __repr__(self):
        return ("<bench median %.4f ms/call (min %.4f, max %.4f; %d rounds "
                "of %d)>" % (self.median, self.min, self.max,
                             len(self.rounds), self.iters))


def bench(fn, warmup=10, iters=100, rounds=5, stream=None):
    """Times fn() as described in the module doc; returns a BenchResult
    (times in ms per call)."""
    import torch
    if warmup < 0 or iters < 1 or rounds < 1:
        raise ValueError("bench needs warmup >= 0, iters >= 1, rounds >= 1")
    ctx = torch.cuda.stream(stream) if stream is not None else None
    if ctx is not None:
        ctx.__enter__()
    try:
        for _ in range(warmup):
            fn()
        times = []
        for _ in range(rounds):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(iters):
                fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / iters)
    finally:
        if ctx is not None:
            ctx.__exit__(None, None, None)
    return BenchResult(times, iters)
