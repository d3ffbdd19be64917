"""ptxtile.autotune: pick the fastest of several specializations of one
kernel, per key, and remember the choice on disk.

    mm = ptxtile.autotune("gemm.py", configs=[{"BM": 128}, {"BM": 64}],
                          key=["M", "N", "K"])
    mm(a, b, c)            # first call per key tunes, later calls launch

For a key not seen before (the values of the named arguments, or of a
callable's result), every config is compiled (in threads: the compiler
releases the GIL), configs that do not compile or whose launch check
refuses the arguments are dropped (the reason goes to the
"ptxtile.autotune" logger at DEBUG level), and the rest are timed on the
GPU: `warmup` untimed launches each, then `rep` interleaved rounds (one
launch of every config per round, in a rotating order, so clock and
thermal drift spread over all configs), each launch between two CUDA
events; the winner has the lowest median.  It is stored in
<cache_dir>/autotune/, keyed by the device name, the compiler build, the
source text, the configs, the target and the key values, so a fresh
process launches the stored winner with no timing and compiles only it
(a compile-cache hit).

Without a GPU the first valid config is used, untimed, and a warning says
so (nothing is stored).  PTXTILE_AUTOTUNE_PRINT=1 prints every config's
timings; PTXTILE_AUTOTUNE_CONFIG=<index> or a JSON object of constants
(or force= when creating the tuner) uses that config with no tuning.
Tests inject timer=fn(launch, kernel) -> seconds in place of the GPU.
"""
from __future__ import annotations

import concurrent.futures
import hashlib
import json
import logging
import os
import statistics
import sys
import threading
import time
import warnings
from typing import (TYPE_CHECKING, Any, Callable, List, Mapping, Optional,
                    Sequence, Union)

if TYPE_CHECKING:
    from ._compile import Kernel

from . import _cache, _constants
from ._errors import CompileError, LaunchError

log = logging.getLogger("ptxtile.autotune")

_PROGRESS_AFTER_S = 1.0


class Config(object):
    """One specialization: constants (compile(constants=)) and launch
    keyword options given to every launch (for example stream=, or the
    options of a launch= function)."""

    __slots__ = ("constants", "launch")

    def __init__(self, constants=None, **launch):
        self.constants = dict(constants or {})
        self.launch = launch

    def __repr__(self):
        extra = "".join(", %s=%r" % kv for kv in sorted(self.launch.items()))
        return "Config(%r%s)" % (self.constants, extra)

    def _text(self):
        """A stable text of the config (part of the disk key)."""
        return json.dumps([sorted(_constants.normalize(
            self.constants).items()), sorted((k, repr(v)) for k, v in
                                             self.launch.items())])


def _as_config(c):
    if isinstance(c, Config):
        return c
    if isinstance(c, dict):
        return Config(c)
    raise TypeError("autotune configs are dicts of constants or "
                    "ptxtile.Config, not %s" % type(c).__name__)


class _Candidate(object):
    __slots__ = ("index", "config", "kernel", "times", "reason")

    def __init__(self, index, config):
        self.index = index
        self.config = config
        self.kernel = None
        self.times = []
        self.reason = None


def _key_reader(kernel, names):
    """fn(args) -> the key values of `names`: a parameter's value (a
    tensor gives its shape and dtype) or a symbolic size's value, read
    from the first tensor whose shape names it (worked out once)."""
    params = kernel.params
    index = {p[0]: i for i, p in enumerate(params)}
    getters = []
    for name in names:
        if name in index:
            getters.append(lambda args, i=index[name]: _value_key(args[i]))
            continue
        for i, (_, kind, _, shape) in enumerate(params):
            if kind == "tensor" and shape and name in shape:
                d = shape.index(name)
                getters.append(lambda args, i=i, d=d: int(args[i].shape[d]))
                break
        else:
            raise ValueError("autotune key %r is neither a parameter nor a "
                             "symbolic size of the kernel (parameters: %s)"
                             % (name, ", ".join(p[0] for p in params)))

    def read(args):
        if len(args) != len(params):
            return None  # the launch reports the count
        return tuple(g(args) for g in getters)
    return read


def _value_key(a):
    shape = getattr(a, "shape", None)
    if shape is not None:
        return (tuple(int(d) for d in shape), str(getattr(a, "dtype", "")))
    if isinstance(a, (int, float, bool, str)) or a is None:
        return a
    return repr(a)


def _device_name(args):
    """The name of the CUDA device the arguments are on, or None when
    there is no GPU to time on."""
    torch = sys.modules.get("torch")
    if torch is not None:
        for a in args:
            if isinstance(a, torch.Tensor) and a.is_cuda:
                return torch.cuda.get_device_name(a.device)
    try:
        from . import _runtime
        return _runtime.get(_runtime.default_device()).name
    except (LaunchError, OSError, ImportError):
        return None


_TIMED_S = 1e-3    # the timed launches of one measurement fill about this
_TIMED_MAX = 100   # and are at most this many


def cuda_event_timer(launch: Callable[[], Any], kernel: Any) -> float:
    """Seconds per launch between two CUDA events on torch's current
    stream (the default timer; needs torch).  An untimed launch goes
    first, so the GPU is still busy with it when the start event and the
    timed launches are queued: neither the host's cost of a launch nor
    an idle GPU's ramp-up lands in the time (a single launch timed from
    an idle GPU ranked the attention variants wrongly on the H200:
    bench/README.md, 2026-12-02).  Short kernels are timed over as many
    back-to-back launches as fill about a millisecond."""
    import torch

    def timed(n):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        launch()
        start.record()
        for _ in range(n):
            launch()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1e3 / n

    t = timed(1)
    n = _TIMED_MAX if t <= 0 else int(min(_TIMED_MAX, _TIMED_S / t))
    return t if n <= 1 else timed(n)


def _forced_from_env():
    v = os.environ.get("PTXTILE_AUTOTUNE_CONFIG")
    if not v:
        return None
    v = v.strip()
    if v.lstrip("-").isdigit():
        return int(v)
    try:
        return json.loads(v)
    except ValueError:
        raise ValueError("PTXTILE_AUTOTUNE_CONFIG is a config index or a "
                         "JSON object of constants, not %r" % v)


class Autotuner(object):
    """Call it like the kernel: tuner(*args, stream=None).  .best(*args)
    is the Kernel chosen for those arguments (tuning if needed),
    .best_config(*args) its Config, .timings the last tuning's median
    seconds per config index."""

    def __init__(self, source, configs, key=None, *, warmup=3, rep=10,
                 prune=None, target=None, name=None, cache=True,
                 timer=None, force=None, restore=(), launch=None,
                 compile_threads=None):
        from . import _compile
        self._compile = _compile
        if not configs:
            raise ValueError("autotune needs at least one config")
        if warmup < 0 or rep < 1:
            raise ValueError("autotune needs warmup >= 0 and rep >= 1")
        self.source = source
        self.configs = [_as_config(c) for c in configs]
        if key is not None and not callable(key):
            key = [key] if isinstance(key, str) else list(key)
        self.key = key
        self.warmup, self.rep = warmup, rep
        self.prune = prune
        self.target = target
        self.name = name
        self.cache = cache
        self.timer = timer
        self.force = force
        self.restore = tuple(restore)
        self.launch_fn = launch
        self.compile_threads = compile_threads
        self.timings = {}
        self._chosen = {}     # key values -> _Candidate
        self._kernels = {}    # config index -> Kernel or CompileError
        self._lock = threading.Lock()
        self._src = None
        self._read_key = None

    # ---- compiling ----

    def _source_text(self):
        if self._src is None:
            self._src = self._compile._read_source(self.source)
        return self._src

    def _kernel(self, i):
        """The Kernel of config i (compiled once), or raises its
        CompileError."""
        k = self._kernels.get(i)
        if k is None:
            try:
                k = self._compile.compile(
                    self.source, self.target, name=self.name,
                    constants=self.configs[i].constants, cache=self.cache)
            except (CompileError, TypeError, ValueError) as e:
                k = e
            self._kernels[i] = k
        if isinstance(k, Exception):
            raise k
        return k

    def _compile_all(self, cands):
        todo = [c for c in cands if c.index not in self._kernels]
        workers = self.compile_threads or min(len(todo), os.cpu_count() or 1)
        if len(todo) > 1 and workers > 1:
            with concurrent.futures.ThreadPoolExecutor(workers) as ex:
                list(ex.map(self._try_kernel, todo))
        for c in cands:
            self._try_kernel(c)
        return [c for c in cands if c.kernel is not None]

    def _try_kernel(self, c):
        try:
            c.kernel = self._kernel(c.index)
        except Exception as e:
            c.reason = "does not compile: %s" % str(e).splitlines()[0]

    # ---- keys and the disk ----

    def _key_values(self, args):
        if self.key is None:
            return ()
        if callable(self.key):
            v = self.key(*args)
            return tuple(v) if isinstance(v, (tuple, list)) else (v,)
        if self._read_key is None:
            self._read_key = _key_reader(self._reference_kernel(), self.key)
        return self._read_key(args)

    def _reference_kernel(self):
        """A compiled config, for the parameter list of the key."""
        for i in range(len(self.configs)):
            try:
                return self._kernel(i)
            except Exception:
                continue
        raise CompileError("autotune: no config of %s compiles (%s)"
                           % (self._source_text()[0], "; ".join(
                               "%d: %s" % (i, str(k).splitlines()[0])
                               for i, k in sorted(self._kernels.items()))))

    def _disk_path(self, device, keyvals):
        name, text = self._source_text()[:2]
        doc = json.dumps([device, _cache.compiler_identity(), self.target
                          or "", name if self.name else "", self.name or "",
                          hashlib.sha256(text.encode()).hexdigest(),
                          [c._text() for c in self.configs], repr(keyvals)])
        h = hashlib.sha256(doc.encode()).hexdigest()
        return os.path.join(_cache.cache_dir(), "autotune", h[:2],
                            h + ".json")

    def _load_choice(self, path):
        if not (self.cache and _cache.enabled()):
            return None
        try:
            with open(path) as f:
                doc = json.load(f)
            i = int(doc["config"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return i if 0 <= i < len(self.configs) else None

    def _store_choice(self, path, winner, cands, device, keyvals):
        if not (self.cache and _cache.enabled()):
            return
        doc = {"config": winner.index, "constants": winner.config.constants,
               "device": device, "key": repr(keyvals),
               "median_s": {str(c.index): statistics.median(c.times)
                            for c in cands if c.times}}
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = "%s.tmp-%d-%d" % (path, os.getpid(), threading.get_ident())
            with open(tmp, "w") as f:
                json.dump(doc, f, default=repr)
            os.replace(tmp, path)
        except OSError:
            pass  # an unwritable cache only costs a re-tune

    # ---- choosing ----

    def _forced_index(self):
        f = self.force if self.force is not None else _forced_from_env()
        if f is None:
            return None
        if isinstance(f, int):
            if not 0 <= f < len(self.configs):
                raise ValueError("forced autotune config %d: there are %d "
                                 "configs" % (f, len(self.configs)))
            return f
        want = _as_config(f)
        for i, c in enumerate(self.configs):
            if c.constants == want.constants and (
                    not want.launch or c.launch == want.launch):
                return i
        self.configs.append(want)  # a config of its own
        return len(self.configs) - 1

    def _candidate(self, i):
        c = _Candidate(i, self.configs[i])
        c.kernel = self._kernel(i)
        return c

    def choose(self, args):
        """The _Candidate for args: remembered, forced, stored on disk, or
        tuned now."""
        forced = self._forced_index()
        if forced is not None:
            return self._candidate(forced)
        keyvals = self._key_values(args)
        c = self._chosen.get(keyvals)
        if c is not None:
            return c
        with self._lock:
            c = self._chosen.get(keyvals)
            if c is None:
                c = self._choose_new(args, keyvals)
                self._chosen[keyvals] = c
        return c

    def _choose_new(self, args, keyvals):
        timed = self.timer is not None
        device = _device_name(args)
        if device is None and not timed:
            return self._first_valid(args, keyvals)
        device = device or "no-gpu"
        path = self._disk_path(device, keyvals)
        i = self._load_choice(path)
        if i is not None:
            try:
                log.debug("autotune %s %r: config %d from %s",
                          self._label(), keyvals, i, path)
                return self._candidate(i)
            except Exception as e:  # a stored config that stopped working
                log.debug("stored config %d no longer compiles: %s", i, e)
        cands = self._valid(args)
        if len(cands) == 1 and not self.timings_wanted():
            winner = cands[0]
        else:
            self._time(cands, args)
            winner = min(cands, key=lambda c: statistics.median(c.times))
        self._report(cands, winner, keyvals)
        self._store_choice(path, winner, cands, device, keyvals)
        return winner

    def _label(self):
        return self.name or self._source_text()[0]

    def _pruned(self, args):
        cands = [_Candidate(i, c) for i, c in enumerate(self.configs)]
        if self.prune is None:
            return cands
        keep = self.prune([c.config for c in cands], args)
        keep_ids = {id(k) for k in keep}
        for c in cands:
            if id(c.config) not in keep_ids:
                log.debug("config %d %r pruned", c.index, c.config)
        return [c for c in cands if id(c.config) in keep_ids]

    @staticmethod
    def timings_wanted():
        return os.environ.get("PTXTILE_AUTOTUNE_PRINT", "0") not in ("",
                                                                     "0")

    def _valid(self, args):
        """The configs that compile and whose launch check accepts args."""
        pruned = self._pruned(args)
        ok = []
        for c in self._compile_all(pruned):
            try:
                c.kernel.check(*args)
                ok.append(c)
            except LaunchError as e:
                c.reason = "launch check: %s" % e
        for c in pruned:
            if c not in ok:
                log.debug("config %d %r dropped: %s", c.index, c.config,
                          c.reason or self._reason_of(c.index))
        if not ok:
            raise LaunchError(
                "autotune %s: no config is valid for these arguments (set "
                "logging.getLogger('ptxtile.autotune').setLevel('DEBUG') "
                "for the reasons)" % self._label())
        return ok

    def _reason_of(self, i):
        k = self._kernels.get(i)
        if isinstance(k, Exception):
            return "does not compile: %s" % str(k).splitlines()[0]
        return "refused"

    def _first_valid(self, args, keyvals):
        c = self._valid(args)[0]
        warnings.warn("ptxtile.autotune %s: no GPU to time on; using the "
                      "first valid config %d %r untimed"
                      % (self._label(), c.index, c.config), RuntimeWarning,
                      stacklevel=4)
        return c

    def _time(self, cands, args):
        timer = self.timer or cuda_event_timer
        runs = [(c, self._launcher(c, args)) for c in cands]
        saved = self._save(args)
        t0 = time.perf_counter()
        shown = False
        try:
            for c, run in runs:
                for _ in range(self.warmup):
                    timer(run, c.kernel)  # untimed: the result is dropped
            for r in range(self.rep):
                k = r % len(runs)
                for c, run in runs[k:] + runs[:k]:
                    c.times.append(timer(run, c.kernel))
                if time.perf_counter() - t0 > _PROGRESS_AFTER_S:
                    shown = True
                    sys.stderr.write("\rptxtile.autotune %s: round %d/%d of "
                                     "%d configs" % (self._label(), r + 1,
                                                     self.rep, len(runs)))
                    sys.stderr.flush()
        finally:
            self._put_back(args, saved)
            if shown:
                sys.stderr.write("\n")

    def _launcher(self, c, args):
        opts = c.config.launch
        if self.launch_fn is not None:
            return lambda: self.launch_fn(c.kernel, *args, **opts)
        return lambda: c.kernel(*args, **opts)

    def _save(self, args):
        if not self.restore:
            return []
        names = [p[0] for p in self._reference_kernel().params]
        out = []
        for n in self.restore:
            a = args[names.index(n)]
            out.append((a, a.clone() if hasattr(a, "clone") else a.copy()))
        return out

    @staticmethod
    def _put_back(args, saved):
        for a, copy in saved:
            if hasattr(a, "copy_"):
                a.copy_(copy)
            else:
                a[...] = copy

    def _report(self, cands, winner, keyvals):
        self.timings = {c.index: statistics.median(c.times)
                        for c in cands if c.times}
        lines = ["autotune %s key=%r: config %d %r wins" % (
            self._label(), keyvals, winner.index, winner.config)]
        for c in cands:
            if c.times:
                lines.append("  config %d %r: median %.3f us (min %.3f, %d "
                             "runs)" % (c.index, c.config,
                                        statistics.median(c.times) * 1e6,
                                        min(c.times) * 1e6, len(c.times)))
        log.debug("\n".join(lines))
        if self.timings_wanted():
            sys.stderr.write("\n".join(lines) + "\n")

    # ---- the public face ----

    def best(self, *args: Any) -> "Kernel":
        """The Kernel chosen for args (tuning first if needed)."""
        return self.choose(args).kernel

    def best_config(self, *args: Any) -> Config:
        return self.choose(args).config

    def __call__(self, *args: Any, stream: Any = None) -> Any:
        c = self.choose(args)
        opts = c.config.launch
        if stream is not None:
            opts = dict(opts, stream=stream)
        if self.launch_fn is not None:
            return self.launch_fn(c.kernel, *args, **opts)
        return c.kernel(*args, **opts)

    def __repr__(self):
        return "<ptxtile.Autotuner %s (%d configs)>" % (self._label(),
                                                        len(self.configs))


def autotune(kernel: Any = None, *,
             configs: Sequence[Union[Mapping[str, Any], Config]],
             key: Union[None, str, Sequence[str], Callable[..., Any]] = None,
             warmup: int = 3, rep: int = 10,
             prune: Optional[Callable[[List[Config], tuple],
                                      List[Config]]] = None,
             target: Optional[str] = None, name: Optional[str] = None,
             cache: bool = True,
             timer: Optional[Callable[[Callable[[], Any], Any],
                                      float]] = None,
             force: Union[None, int, Mapping[str, Any]] = None,
             restore: Sequence[str] = (),
             launch: Optional[Callable[..., Any]] = None) -> Any:
    """An Autotuner over `configs` for kernel (a script path, script text
    or @T.function), or a decorator when kernel is left out.

    configs: dicts of constants (compile(constants=)) or ptxtile.Config.
    key: argument names (a tensor parameter stands for its shape and
      dtype; a symbolic size such as "M" for its value) or a callable
      args -> tuple; one winner is kept per key.
    warmup, rep: untimed launches per config, then timed rounds.
    prune: fn(configs, args) -> the configs worth timing.
    restore: names of tensor arguments the kernel writes in place; they
      are saved before timing and put back afterwards.
    launch: fn(kernel, *args, **config.launch) that launches one config
      (default kernel(*args, **config.launch)).
    force: a config index or constants dict to use without tuning (also
      PTXTILE_AUTOTUNE_CONFIG).
    timer: fn(launch, kernel) -> seconds for one run (default: CUDA
      events); with one, tuning needs no GPU (the tests' injected
      timer).
    The rest as for ptxtile.compile."""
    opts = dict(configs=configs, key=key, warmup=warmup, rep=rep,
                prune=prune, target=target, name=name, cache=cache,
                timer=timer, force=force, restore=restore, launch=launch)
    if kernel is None:
        return lambda fn: Autotuner(fn, **opts)
    return Autotuner(kernel, **opts)
