"""ptxtile.compile() and the Kernel it returns."""
from __future__ import annotations

import builtins
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
import re
import threading
import warnings
from typing import Any, List, Mapping, Optional, Tuple, Union

from . import (_args, _cache, _constants, _emulate, _lib, _runtime, _source,
               _target)
from ._errors import CompileError, Diagnostic, LaunchError
from .tirx import Function


def _read_source(kernel):
    """(source name, text, kernel name or None, notes) of what compile()
    got; notes: why a module global was not captured (_source.py)."""
    if isinstance(kernel, Function):
        name, text, notes = _source.function_source(kernel)
        return name, text, kernel.__name__, notes
    if isinstance(kernel, os.PathLike) or (
            isinstance(kernel, str) and "\n" not in kernel):
        path = os.fspath(kernel)
        return path, _read_bounded(path), None, {}
    if isinstance(kernel, str):
        return "<string>", kernel, None, {}
    raise TypeError("ptxtile.compile takes a script path, script text or "
                    "a @T.function, not %s" % type(kernel).__name__)


def _input_budget():
    """The library's input budget (pt_get_budget of a fresh context: the
    default, PT_BUDGET_INPUT_BYTES_DEFAULT)."""
    lib = _lib.compiler()
    ctx = lib.pt_ctx_new(None)
    if not ctx:
        raise MemoryError("pt_ctx_new failed")
    try:
        return lib.pt_get_budget(ctx, 0)  # PT_BUDGET_INPUT_BYTES
    finally:
        lib.pt_ctx_free(ctx)


def _read_bounded(path):
    """The text of a script file, read no further than the input budget:
    a larger file is CompileError E9009 (as pt_load and the CLI say)
    without being read whole.  Text mode reads characters, each at least
    one byte, so more than budget characters is more than budget bytes;
    pt_load checks the bytes of what is under it."""
    budget = _input_budget()
    with open(path, encoding="utf-8") as f:
        text = f.read(budget + 1)
    if len(text) > budget:
        msg = ("%s is over the input budget of %d bytes (ptxtile "
               "--max-input-bytes)" % (path, budget))
        d = Diagnostic(9009, _lib.code_name(9009), path, 0, 0, msg)
        raise CompileError("%s: error[%s]: %s" % (path, d.code, msg), [d])
    return text


def _diagnostics(lib, ctx, name):
    out = []
    line, col = ctypes.c_int(), ctypes.c_int()
    for i in range(lib.pt_diag_count(ctx)):
        num = lib.pt_diag_code(ctx, i)
        lib.pt_diag_position(ctx, i, ctypes.byref(line), ctypes.byref(col))
        msg = lib.pt_diag_message(ctx, i) or b""
        out.append(Diagnostic(num, _lib.code_name(num), name, line.value,
                              col.value, msg.decode(errors="replace")))
    return out


_UNKNOWN_NAME = re.compile(r"unknown name '([^']+)'")


def _explain_uncaptured(diags, notes):
    """Lines saying why each unknown name that is an uncaptured Python
    global was not captured."""
    out = []
    for d in diags:
        m = _UNKNOWN_NAME.search(d.message) if d.number == _lib.code("UNKNOWN_NAME") else None
        if m and m.group(1) in notes:
            out.append("note: " + notes[m.group(1)])
    return "".join("\n" + line for line in dict.fromkeys(out))


def _set_constants(lib, ctx, constants):
    for cname, value in constants.items():
        if lib.pt_set_constant(ctx, cname.encode(), value.encode()):
            msg = lib.pt_ctx_errmsg(ctx) or b""
            raise ValueError("constants=: %s" % msg.decode(errors="replace"))


def _run(name, text, target, step, constants=None, notes=None):
    """Loads text into a fresh compiler context (with the constant
    overrides, {name: script text}) and runs step(lib, ctx, module) ->
    status; CompileError when any step fails."""
    lib = _lib.compiler()
    ctx = lib.pt_ctx_new(None)
    if not ctx:
        raise MemoryError("ptxtile: cannot allocate a compiler context")
    try:
        _set_constants(lib, ctx, constants or {})
        data = text.encode("utf-8")
        mod = ctypes.c_void_p()
        rc = lib.pt_load(ctx, name.encode(), data, len(data),
                         ctypes.byref(mod))
        if rc == 0:
            rc, result = step(lib, ctx, mod)
            if rc == 0:
                return result
        diags = _diagnostics(lib, ctx, name)
        if diags:
            rendered = lib.pt_diag_render(ctx, 0) or b""
            text = rendered.decode(errors="replace").rstrip()
            raise CompileError(text + _explain_uncaptured(diags, notes or {}),
                               diags)
        msg = (lib.pt_ctx_errmsg(ctx) or b"").decode(errors="replace")
        raise CompileError("%s: %s" % (name, msg or "error %d" % rc))
    finally:
        lib.pt_ctx_free(ctx)


def compile_text(name, text, target, constants=None, notes=None,
                 lineinfo=False):
    """(PTX, metadata JSON) of a script, through libptxtile; constants:
    {name: script text}; lineinfo adds .file/.loc so emulator and GPU
    errors name script lines."""
    def step(lib, ctx, mod):
        ptx, meta = ctypes.c_char_p(), ctypes.c_char_p()
        lib.pt_set_lineinfo(ctx, 1 if lineinfo else 0)
        rc = lib.pt_compile(ctx, mod, target.encode(), ctypes.byref(ptx),
                            ctypes.byref(meta))
        return rc, rc == 0 and (ptx.value.decode(), meta.value.decode())
    return _run(name, text, target, step, constants, notes)


def find_ptxas() -> Optional[str]:
    """$PTXAS, then PATH, then /usr/local/cuda/bin (as the CLI does)."""
    env = os.environ.get("PTXAS")
    if env:
        return env if os.access(env, os.X_OK) else None
    p = shutil.which("ptxas")
    if p:
        return p
    p = "/usr/local/cuda/bin/ptxas"
    return p if os.access(p, os.X_OK) else None


def compile(kernel: Union[str, "os.PathLike[str]", Function],
            target: Optional[str] = None, *, name: Optional[str] = None,
            constants: Optional[Mapping[str, Any]] = None,
            cache: bool = True, lineinfo: bool = False) -> "Kernel":
    """Compiles a kernel: a script path (.py, or .json IR), script text,
    or a @T.function of a Python module.  target=None takes the current
    device's target (ptxtile.default_target()).

    name: which kernel of a module with several.
    constants: {NAME: value} overriding module constants (`NAME = ...`
      at module level) - int, float, bool, str (e.g. a dtype name), a
      torch/numpy dtype, or tuples of them; each must have the type of
      the value it replaces (E2051), and name a constant the script
      assigns (E2050).  They are part of the cache key; kernel.constants
      shows them.
    cache: False skips the on-disk cache.
    lineinfo: True adds .file/.loc, so emulator and GPU errors name
      script lines (its own cache entry).
    Raises CompileError with every diagnostic."""
    src_name, text, entry, notes = _read_source(kernel)
    entry = name or entry
    consts = _constants.normalize(constants)
    if target is None:
        target = _target.default_target()
    use_cache = cache and _cache.enabled()
    opts = {"constants": sorted(consts.items())} if consts else {}
    if lineinfo:
        opts["lineinfo"] = True
    key = _cache.key(src_name, text, target, opts)
    art = _cache.load(key) if use_cache else None
    hit = art is not None
    if not hit:
        ptx, meta = compile_text(src_name, text, target, consts, notes,
                                 bool(lineinfo))
        if use_cache:
            _cache.store(key, ptx, meta)
    else:
        ptx, meta = art["ptx"], art["meta"]
    k = Kernel(src_name, text, target, ptx, meta, entry,
               key if use_cache else None, hit)
    k.constants = dict(constants or {})
    k._const_text = consts
    return k


_modules_lock = threading.Lock()
_modules = {}  # (image digest, device) -> {kernel name: ptrt_kernel*}


class _Param(object):
    __slots__ = ("name", "kind", "dtype", "shape", "align")

    def __init__(self, d):
        self.name = d["name"]
        self.kind = d["kind"]
        self.dtype = d.get("dtype")
        self.shape = d.get("shape")
        self.align = d.get("align")


class Kernel(object):
    """A compiled kernel.  .ptx, .meta (the metadata of docs/metadata.md
    as a dict), .cubin (ptxas output, None without ptxas), .explain();
    call it with the kernel's arguments to launch it:
    kernel(*args, stream=None)."""

    def __init__(self, source_name, text, target, ptx, meta_json, entry,
                 cache_key, cache_hit):
        self.source_name = source_name
        self.source = text
        self.target = target
        self.ptx = ptx
        self.meta_json = meta_json
        self.meta = json.loads(meta_json)
        self.cache_key = cache_key
        self.cache_hit = cache_hit
        self.kernel_names = [k["name"] for k in self.meta["kernels"]]
        if entry is not None and entry not in self.kernel_names:
            raise ValueError("%s has no kernel %r (kernels: %s)"
                             % (source_name, entry,
                                ", ".join(self.kernel_names) or "none"))
        if entry is None and len(self.kernel_names) == 1:
            entry = self.kernel_names[0]
        self.name = entry
        self._cubin = None
        self._handles = {}
        self._buf = None
        self._lock = threading.Lock()
        self._params = None
        self._user = None
        self._fast = None       # _fast_path of the last signature
        self.constants = {}     # the constants= of compile()
        self._const_text = {}   # the same as script text
        if entry is not None:
            k = self.meta["kernels"][self.kernel_names.index(entry)]
            self._params = [_Param(p) for p in k["params"]]
            self._user = [p for p in self._params
                          if p.kind in ("tensor", "scalar", "tensormap")]
            self.launch_config = k["launch"]

    def __repr__(self):
        return "<ptxtile.Kernel %s (%s, %s)>" % (
            self.name or "|".join(self.kernel_names), self.target,
            self.source_name)

    def kernel(self, name: str) -> "Kernel":
        """The kernel `name` of the same module (also module.NAME)."""
        if name not in self.kernel_names:
            raise ValueError("%s has no kernel %r (kernels: %s)"
                             % (self.source_name, name,
                                ", ".join(self.kernel_names) or "none"))
        k = Kernel(self.source_name, self.source, self.target, self.ptx,
                   self.meta_json, name, self.cache_key, self.cache_hit)
        k._cubin = self._cubin
        k.constants, k._const_text = self.constants, self._const_text
        return k

    def __getattr__(self, attr):
        names = self.__dict__.get("kernel_names") or ()
        if attr in names and not attr.startswith("_"):
            return self.kernel(attr)
        raise AttributeError("%r object has no attribute %r%s" % (
            type(self).__name__, attr, " (kernels: %s)" % ", ".join(names)
            if names else ""))

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self.kernel_names))

    def __getitem__(self, name):
        """Deprecated: kernel.kernel(name) or kernel.NAME (in Triton
        k[...] is the grid, so ptxtile does not use it)."""
        warnings.warn("kernel[name] is deprecated; use kernel.kernel(name) "
                      "or kernel.%s" % name, DeprecationWarning, stacklevel=2)
        return self.kernel(name)

    @property
    def params(self) -> List[Tuple[str, str, Optional[str], Optional[list]]]:
        """The user arguments: [(name, kind, dtype, shape)]."""
        self._need_entry()
        return [(p.name, p.kind, p.dtype, p.shape) for p in self._user]

    # ---- artifacts ----

    @property
    def cubin(self) -> Optional[bytes]:
        """The cubin ptxas assembles from .ptx for .target (cached on
        disk with the PTX), or None when ptxas is not installed."""
        if self._cubin is None:
            data = _cache.load_cubin(self.cache_key) if self.cache_key \
                else None
            if data is None:
                data = self._assemble()
                if data is not None and self.cache_key:
                    _cache.store_cubin(self.cache_key, data)
            self._cubin = data
        return self._cubin or None

    def _assemble(self):
        ptxas = find_ptxas()
        if ptxas is None:
            return b""
        with tempfile.TemporaryDirectory(prefix="ptxtile-") as d:
            src, out = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
            with open(src, "w") as f:
                f.write(self.ptx)
            r = subprocess.run([ptxas, "-arch=" + self.target, src, "-o",
                                out], capture_output=True, text=True)
            if r.returncode != 0:
                raise CompileError("ptxas (%s) rejected the PTX of %s:\n%s"
                                   % (ptxas, self.source_name,
                                      (r.stderr or r.stdout).strip()))
            with open(out, "rb") as f:
                return f.read()

    def explain(self) -> str:
        """Per tile call: family, resolved form, operand shapes, issues."""
        def step(lib, ctx, mod):
            text = ctypes.c_char_p()
            rc = lib.pt_explain(ctx, mod, self.target.encode(),
                                ctypes.byref(text))
            return rc, rc == 0 and text.value.decode()
        return _run(self.source_name, self.source, self.target, step,
                    self._const_text)

    # ---- launching ----

    def _need_entry(self):
        if self.name is None:
            raise TypeError("%s holds several kernels (%s): compile with "
                            "name=, or pick one with .kernel(name)"
                            % (self.source_name,
                               ", ".join(self.kernel_names)))

    def _pack(self, args, stream, buf, host=False):
        """Fills buf with the ptrt_arg array for args; returns the launch
        device (the first tensor's; None when no argument tells), what
        must stay alive until
        the launch, and whether a torch tensor was among them.  With
        host=True, host arrays (numpy, CPU tensors) are packed at their
        host addresses, for the checks alone."""
        user = self._user
        _args.check_count(self.name, user, args)
        keep, device, torch_seen = [], None, False
        torch = sys.modules.get("torch")
        tensor_type = torch.Tensor if torch is not None else ()
        for i, p in enumerate(user):
            a = args[i]
            try:
                hv = _args.host_view(a, i, p) if host and p.kind == \
                    "tensor" else None
                if hv is not None:
                    _args.pack_tensor(buf, i, p, hv)
                elif p.kind == "tensor":
                    if isinstance(a, tensor_type):
                        d = _args.pack_torch(buf, i, p, a)
                        torch_seen = True
                    else:
                        v = _args.tensor_view(a, i, p, stream)
                        keep.append(v.keep)
                        _args.pack_tensor(buf, i, p, v)
                        d = v.device
                    # the first tensor's device is the launch device;
                    # a tensor elsewhere is a peer pointer, which the
                    # runtime checks the launch device reaches
                    if device is None:
                        device = d
                elif p.kind == "scalar":
                    _args.pack_scalar(buf, i, p, a)
                else:
                    _args.pack_tensormap(buf, i, p, a, keep)
            except _args.struct.error as e:
                raise _args._bad(i, p, "a value out of range (%s)" % e)
        return device, keep, torch_seen

    def _new_buffer(self):
        self._need_entry()
        return ctypes.create_string_buffer(max(1, len(self._user)) *
                                           _args.ARG_SIZE)

    def check(self, *args: Any) -> None:
        """Checks args as a launch would (argument kinds, dtypes, shapes,
        symbolic sizes, strides, alignment, tensor map limits, launch
        dimensions) without launching or needing a GPU: CUDA tensors, or
        host arrays (numpy, CPU torch tensors) at their host addresses.
        Raises LaunchError (TypeError for a wrong argument count)."""
        buf = self._new_buffer()
        self._pack(args, None, buf, host=True)
        self._check_packed(buf, len(args))

    def _check_packed(self, buf, n):
        msg = ctypes.create_string_buffer(4096)
        meta = self.meta_json.encode()
        rc = _lib.runtime().ptrt_check_launch(
            meta, len(meta), self.name.encode(), ctypes.addressof(buf), n,
            msg, len(msg))
        if rc != 0:
            raise LaunchError(msg.value.decode(errors="replace"), rc)

    def _handle(self, rt):
        """This kernel's ptrt_kernel on rt's device, loading the module
        (the cubin when ptxas is here, else the PTX) on first use."""
        k = self._handles.get(rt.device)
        if k is not None:
            return k
        mkey = (self.cache_key or self.ptx, self.target, rt.device)
        with _modules_lock:
            kernels = _modules.get(mkey)
            if kernels is None:
                kernels = self._load(rt, self.cubin or self.ptx.encode())
                _modules[mkey] = kernels
        k = self._handles[rt.device] = kernels[self.name]
        return k

    def _load(self, rt, image):
        lib = _lib.runtime()
        mod = ctypes.c_void_p()
        meta = self.meta_json.encode()
        with rt.lock:
            rc = lib.ptrt_module_load(rt.handle, image, len(image), meta,
                                      len(meta), ctypes.byref(mod))
            if rc != 0:
                raise rt.error("loading %s" % self.source_name)
            out = {}
            for n in self.kernel_names:
                k = ctypes.c_void_p()
                if lib.ptrt_kernel_get(mod, n.encode(), ctypes.byref(k)):
                    raise rt.error()
                out[n] = k.value
        return out

    def emulate(self, *args: Any, late: bool = False,
                check_races: bool = False, max_steps: int = 0) -> int:
        """Runs the kernel in the PTX emulator (docs/emulator.md) on numpy
        arrays, updated in place, with no GPU: after the checks of a GPU
        launch (check()) on the arrays as given.  late=True completes
        asynchronous copies as late as allowed, check_races=True reports
        shared-memory races, max_steps bounds the instructions (0: the
        default).  Returns the instructions executed; raises LaunchError
        or EmulatorError."""
        self._need_entry()
        return _emulate.launch(self, args, late=late,
                               check_races=check_races, max_steps=max_steps)

    def __call__(self, *args: Any, **options: Any) -> None:
        """kernel(*args, stream=None, device=None): launches on `stream` (a
        torch.cuda.Stream, an object with .cuda_stream or
        __cuda_stream__, or a CUstream handle as int), by default torch's
        current stream of the launch device, in that device's primary
        context (torch's).  The launch device is `device` (an ordinal,
        "cuda:N" or a torch.device), by default the first tensor
        argument's; tensors on other devices and peer mappings (torch
        symmetric memory) are peer pointers, which the runtime checks
        the launch device reaches (enabling peer access where needed;
        PeerAccessError when it cannot: docs/multigpu.md).  (device="emulator" is the older spelling of
        kernel.emulate(*args, ...), kept with a DeprecationWarning.)"""
        if not options:  # the fast path: no keyword to look at
            fast = self._fast
            if fast is not None and fast(args):
                return None
            return self._launch(args, None)
        return self._call_with(args, **options)

    def _call_with(self, args, stream=None, device=None, **emulator):
        if isinstance(device, str) and device == "emulator":
            warnings.warn("kernel(..., device=\"emulator\") is deprecated; "
                          "call kernel.emulate(...)", DeprecationWarning,
                          stacklevel=3)
            if stream is not None:
                raise TypeError("the emulator takes no stream=")
            return self.emulate(*args, **emulator)
        if emulator:
            raise TypeError("unexpected keyword argument(s) %s: a launch "
                            "takes stream= and device=; late=, "
                            "check_races=, max_steps= are options of "
                            "kernel.emulate()" % ", ".join(sorted(emulator)))
        if device is not None:
            try:
                on = _args.device_ordinal(device)
            except ValueError as e:
                raise TypeError("device=: %s (or \"emulator\", deprecated)"
                                % e)
            return self._launch(args, stream, on)
        if stream is None:
            fast = self._fast
            if fast is not None and fast(args):
                return None
        return self._launch(args, stream)

    def _launch(self, args, stream, on=None):
        """The general launch (on device `on`, by default the first
        tensor's): every argument converted and packed; then, for torch
        tensors on torch's stream, the fast path is prepared for the next
        calls with the same argument signature."""
        s = _stream_handle(stream)
        if self._buf is None:
            self._buf = self._new_buffer()
        with self._lock:  # the argument buffer is the kernel's
            buf = self._buf
            device, keep, torch_seen = self._pack(args, s, buf)
            if on is not None:
                device = on
            if device is None:
                device = _runtime.default_device()
            try:
                rt = _runtime.get(device)
            except LaunchError:
                self._check_packed(buf, len(args))  # argument errors first
                raise
            k = self._handles.get(device) or self._handle(rt)
            if stream is None:
                s = _current_stream(device, torch_seen)
            with rt.lock:
                if _launch(k, ctypes.addressof(buf), len(args), s):
                    raise rt.error()
            if stream is None and torch_seen and on is None:
                self._fast = _fast_path(self, args, buf, k, rt, device)


def _launch(*a):
    global _launch
    _launch = _lib.runtime().ptrt_launch
    return _launch(*a)


@_lib.c_struct("ptrt_packed_launch")
class _Packed(ctypes.Structure):
    """ptrt_packed_launch of include/ptxtile_rt.h (ctypes lays it out by
    the C rules, so the offsets below are the C compiler's)."""
    _fields_ = [("kernel", ctypes.c_void_p), ("args", ctypes.c_void_p),
                ("nargs", ctypes.c_uint32), ("nslots", ctypes.c_uint32),
                ("slot_offset", ctypes.c_uint32 * 32),
                ("slot_size", ctypes.c_uint32 * 32),
                ("stream", ctypes.c_void_p),
                ("slot", ctypes.c_uint64 * 32)]


PACKED_SLOTS = 32
_STREAM_AT = _Packed.stream.offset
# a slot's struct format and size for each scalar dtype (8-byte slots)
_SLOT = {"int32": ("i4x", 4), "uint32": ("I4x", 4), "int64": ("q", 8),
         "uint64": ("Q", 8), "float32": ("f4x", 4), "float64": ("d", 8)}


def _fast_path(kernel, args, buf, handle, rt, device):
    """fn(args) -> True after launching args on torch's current stream,
    or False (nothing launched) when args do not have the signature of
    `args` - the same count, torch CUDA tensors each on the device it was
    on (the launch goes to `device`) with the same
    dtypes, shapes and strides, Python numbers (in range: struct checks)
    for the scalars.  Then only the stream, the data pointers and the
    scalar values change: one struct.pack_into writes them into the slots
    of a private ptrt_packed_launch and one ctypes call with one pointer
    (ptrt_launch_packed, _lib.launch_packed: the GIL held) copies them
    into the argument array and launches; ptrt_launch, in C, finds the
    signature it accepted last and redoes the pointers' null and
    alignment checks (so the checks here must pin everything else: a
    stale shape or stride in the packed array would be taken as true).
    None when args are not of that kind.

    The function is generated for the signature, one line per argument
    (no loop, no per-argument tuple), because this is the whole Python
    cost of a launch."""
    torch = sys.modules["torch"]
    one_device = _one_cuda_device(torch)
    env = {"acquire": rt.lock.acquire, "release": rt.lock.release,
           "go": _lib.launch_packed(),
           "raw": _current_stream_fn(), "device": device, "rt": rt,
           "errors": (AttributeError, TypeError, ValueError,
                      _args.struct.error, OverflowError)}
    checks, values, fmt, slots = [], [], "=Q", []
    for i, p in enumerate(kernel._user):
        a, off = args[i], i * _args.ARG_SIZE
        if p.kind == "tensor" and isinstance(a, torch.Tensor):
            env["dt%d" % i], env["sh%d" % i] = a.dtype, a.shape
            env["st%d" % i], env["dev%d" % i] = a.stride(), a.get_device()
            checks.append("a%d.dtype is not dt%d or a%d.shape != sh%d or "
                          "%s or %s" % (i, i, i, i, _strides_differ(a, i),
                                        _device_differs(i, one_device)))
            values.append("a%d.data_ptr()" % i)
            fmt += "Q"
            slots.append((off + 8, 8))
        elif p.kind == "scalar" and type(a) in (int, float):
            f, size = _SLOT[p.dtype]
            if p.dtype in _args._RANGE:  # bool and others: general path
                checks.append("type(a%d) is not int" % i)
            else:
                checks.append("type(a%d) is not float and type(a%d) is not "
                              "int" % (i, i))
            values.append("a%d" % i)
            fmt += f
            slots.append((off + 8, size))
        else:
            return None
    if len(slots) > PACKED_SLOTS:
        return None
    mine = ctypes.create_string_buffer(buf.raw, len(buf))
    plan = _Packed(kernel=handle, args=ctypes.addressof(mine),
                   nargs=len(args), nslots=len(slots))
    for j, (off, size) in enumerate(slots):
        plan.slot_offset[j], plan.slot_size[j] = off, size
    # a structure without argtypes would go by value: pass a pointer,
    # made once - ctypes passes a byref() object as it is, where a
    # ctypes pointer object is converted anew on every call
    env["plan"], env["pplan"] = plan, ctypes.byref(plan)
    # struct writes through a memoryview: packing into the ctypes object
    # itself would export its buffer anew on every call
    env["slots"] = memoryview(plan).cast("B")
    env["mine"] = mine  # the argument array lives as long as fast
    env["put"] = _args.struct.Struct(fmt).pack_into
    n = len(args)
    names = "".join("a%d, " % i for i in range(n))
    body = ["def fast(args):",
            "    try:",
            "        %s = args" % names.rstrip(", ") + ("," if n == 1 else ""),
            "        if (%s):" % (" or\n                ".join(
                "(%s)" % c for c in checks) or "False"),
            "            return False",
            "        acquire()",
            "        try:",
            "            put(slots, %d, raw(device), %s)" % (
                _STREAM_AT, ", ".join(values)),
            "            rc = go(pplan)",
            "        finally:",
            "            release()",
            "    except errors:",
            "        return False",
            "    if rc:",
            "        raise rt.error()",
            "    return True"]
    exec(builtins.compile("\n".join(body), "<ptxtile fast launch of %s>"
                 % kernel.name, "exec"), env)
    return env["fast"]


def _strides_differ(t, i):
    """The test that argument i's strides differ from those of t: when no
    size is 0 or 1, is_contiguous() (a flag torch keeps) says exactly
    whether the strides are the dense ones, and is cheaper than
    comparing stride() tuples."""
    if t.dim() and min(t.shape) >= 2 and t.is_contiguous():
        return "not a%d.is_contiguous()" % i
    return "a%d.stride() != st%d" % (i, i)


def _one_cuda_device(torch):
    """True when torch sees exactly one CUDA device (the count is fixed
    for the life of a process once CUDA is initialised)."""
    try:
        return torch.cuda.is_initialized() and torch.cuda.device_count() == 1
    except Exception:
        return False


def _device_differs(i, one_device):
    """The test that argument i is not on the device it had in the
    signature (tensors may live on different devices: peer pointers):
    with one device, being a CUDA tensor says it (is_cuda is a plain
    attribute read; get_device() is a method call)."""
    if one_device:
        return "not a%d.is_cuda" % i
    return "a%d.get_device() != dev%d" % (i, i)


def _current_stream_fn():
    torch = sys.modules["torch"]
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    return raw or (lambda d: torch.cuda.current_stream(d).cuda_stream)


def _stream_handle(stream):
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream
    h = getattr(stream, "cuda_stream", None)
    if h is not None:
        return h
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        return proto()[1]
    raise TypeError("stream= takes a torch.cuda.Stream, an object with "
                    "__cuda_stream__, or a CUstream handle (int), not %s"
                    % type(stream).__name__)


_raw_stream = []


def _current_stream(device, torch_seen):
    """torch's current stream on device when torch is in use, else the
    default stream (NULL)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    if not torch_seen and not torch.cuda.is_initialized():
        return None
    if not _raw_stream:
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        _raw_stream.append(raw or (
            lambda d: torch.cuda.current_stream(d).cuda_stream))
    return _raw_stream[0](device) or None
