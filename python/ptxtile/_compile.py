"""ptxtile.compile() and the Kernel it returns."""
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

from . import _args, _cache, _emulate, _lib, _runtime, _source, _target
from ._errors import CompileError, Diagnostic, LaunchError
from .tirx import Function

_OPTIONS = ("name", "cache", "lineinfo")


def _read_source(kernel):
    """(source name, text, kernel name or None) of what compile() got."""
    if isinstance(kernel, Function):
        name, text = _source.function_source(kernel)
        return name, text, kernel.__name__
    if isinstance(kernel, os.PathLike) or (
            isinstance(kernel, str) and "\n" not in kernel):
        path = os.fspath(kernel)
        with open(path, encoding="utf-8") as f:
            return path, f.read(), None
    if isinstance(kernel, str):
        return "<string>", kernel, None
    raise TypeError("ptxtile.compile takes a script path, script text or "
                    "a @T.function, not %s" % type(kernel).__name__)


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


def _run(name, text, target, step):
    """Loads text into a fresh compiler context and runs step(lib, ctx,
    module) -> status; CompileError when any step fails."""
    lib = _lib.compiler()
    ctx = lib.pt_ctx_new(None)
    if not ctx:
        raise MemoryError("ptxtile: cannot allocate a compiler context")
    try:
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
            raise CompileError(rendered.decode(errors="replace").rstrip(),
                               diags)
        msg = (lib.pt_ctx_errmsg(ctx) or b"").decode(errors="replace")
        raise CompileError("%s: %s" % (name, msg or "error %d" % rc))
    finally:
        lib.pt_ctx_free(ctx)


def compile_text(name, text, target, lineinfo=False):
    """(PTX, metadata JSON) of a script, through libptxtile; lineinfo
    adds .file/.loc so emulator and GPU errors name script lines."""
    def step(lib, ctx, mod):
        ptx, meta = ctypes.c_char_p(), ctypes.c_char_p()
        lib.pt_set_lineinfo(ctx, 1 if lineinfo else 0)
        rc = lib.pt_compile(ctx, mod, target.encode(), ctypes.byref(ptx),
                            ctypes.byref(meta))
        return rc, rc == 0 and (ptx.value.decode(), meta.value.decode())
    return _run(name, text, target, step)


def find_ptxas():
    """$PTXAS, then PATH, then /usr/local/cuda/bin (as the CLI does)."""
    env = os.environ.get("PTXAS")
    if env:
        return env if os.access(env, os.X_OK) else None
    p = shutil.which("ptxas")
    if p:
        return p
    p = "/usr/local/cuda/bin/ptxas"
    return p if os.access(p, os.X_OK) else None


def compile(kernel, target=None, **options):
    """Compiles a kernel: a script path (.py, or .json IR), script text,
    or a @T.function of a Python module.  target=None takes the current
    device's target (ptxtile.default_target()).  Options: name= (which
    kernel of a module with several), cache= (False skips the on-disk
    cache), lineinfo= (True: .file/.loc, so errors name script lines).
    Raises CompileError with every diagnostic."""
    bad = sorted(set(options) - set(_OPTIONS))
    if bad:
        raise TypeError("unknown option(s) %s; ptxtile.compile takes %s"
                        % (", ".join(bad), ", ".join(_OPTIONS)))
    src_name, text, entry = _read_source(kernel)
    entry = options.get("name") or entry
    if target is None:
        target = _target.default_target()
    use_cache = options.get("cache", True) and _cache.enabled()
    lineinfo = bool(options.get("lineinfo", False))
    key = _cache.key(src_name, text, target,
                     {"lineinfo": True} if lineinfo else {})
    art = _cache.load(key) if use_cache else None
    hit = art is not None
    if not hit:
        ptx, meta = compile_text(src_name, text, target, lineinfo)
        if use_cache:
            _cache.store(key, ptx, meta)
    else:
        ptx, meta = art["ptx"], art["meta"]
    return Kernel(src_name, text, target, ptx, meta, entry,
                  key if use_cache else None, hit)


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

    def __getitem__(self, name):
        """The kernel `name` of the same module."""
        k = Kernel(self.source_name, self.source, self.target, self.ptx,
                   self.meta_json, name, self.cache_key, self.cache_hit)
        k._cubin = self._cubin
        return k

    @property
    def params(self):
        """The user arguments: [(name, kind, dtype, shape)]."""
        self._need_entry()
        return [(p.name, p.kind, p.dtype, p.shape) for p in self._user]

    # ---- artifacts ----

    @property
    def cubin(self):
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

    def explain(self):
        """Per tile call: family, resolved form, operand shapes, issues."""
        def step(lib, ctx, mod):
            text = ctypes.c_char_p()
            rc = lib.pt_explain(ctx, mod, self.target.encode(),
                                ctypes.byref(text))
            return rc, rc == 0 and text.value.decode()
        return _run(self.source_name, self.source, self.target, step)

    # ---- launching ----

    def _need_entry(self):
        if self.name is None:
            raise TypeError("%s holds several kernels (%s): compile with "
                            "name=, or pick one with kernel[name]"
                            % (self.source_name,
                               ", ".join(self.kernel_names)))

    def _pack(self, args, stream, buf):
        """Fills buf with the ptrt_arg array for args; returns the launch
        device (None when no argument tells), what must stay alive until
        the launch, and whether a torch tensor was among them."""
        user = self._user
        if len(args) != len(user):
            raise LaunchError('kernel "%s" takes %d arguments, got %d'
                              % (self.name, len(user), len(args)), 5008)
        keep, device, torch_seen = [], None, False
        torch = sys.modules.get("torch")
        tensor_type = torch.Tensor if torch is not None else ()
        for i, p in enumerate(user):
            a = args[i]
            try:
                if p.kind == "tensor":
                    if isinstance(a, tensor_type):
                        d = _args.pack_torch(buf, i, p, a)
                        torch_seen = True
                    else:
                        v = _args.tensor_view(a, i, p, stream)
                        keep.append(v.keep)
                        _args.pack_tensor(buf, i, p, v)
                        d = v.device
                    if d is not None and d != device:
                        if device is not None:
                            raise _args._bad(
                                i, p, "on CUDA device %d, but an earlier "
                                "tensor is on device %d" % (d, device))
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

    def check(self, *args):
        """Checks args as a launch would (argument count, kinds, dtypes,
        shapes, symbolic sizes, strides, alignment, tensor map limits,
        launch dimensions) without launching or needing a GPU; raises
        LaunchError."""
        buf = self._new_buffer()
        self._pack(args, None, buf)
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

    def __call__(self, *args, stream=None, device=None, **emulator):
        """Launches on `stream` (a torch.cuda.Stream, an object with
        .cuda_stream or __cuda_stream__, or a CUstream handle as int), by
        default torch's current stream of the tensors' device, in that
        device's primary context (torch's).
        device="emulator" runs it in the PTX emulator instead, on numpy
        arrays (updated in place), with no GPU; options late=True (late
        completion of asynchronous copies), check_races=True, max_steps=N
        (docs/emulator.md); returns the instructions executed."""
        if device == "emulator":
            self._need_entry()
            bad = sorted(set(emulator) - {"late", "check_races",
                                          "max_steps"})
            if bad or stream is not None:
                raise TypeError("device=\"emulator\" takes late=, "
                                "check_races=, max_steps=; not %s"
                                % ", ".join(bad or ["stream="]))
            return _emulate.launch(self, args, **emulator)
        if device is not None or emulator:
            raise TypeError("device= is \"emulator\" or left out (a GPU "
                            "launch goes to the tensors' device); late=, "
                            "check_races=, max_steps= are emulator options")
        s = _stream_handle(stream)
        if self._buf is None:
            self._buf = self._new_buffer()
        with self._lock:  # the argument buffer is the kernel's
            buf = self._buf
            device, keep, torch_seen = self._pack(args, s, buf)
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


def _launch(*a):
    global _launch
    _launch = _lib.runtime().ptrt_launch
    return _launch(*a)


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
