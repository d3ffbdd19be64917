"""Loading libptxtile (the compiler) and libptxtile_rt (the runtime) with
ctypes, and the C prototypes of include/ptxtile.h and include/ptxtile_rt.h
that the package calls, and what the package reads from the library instead of
copying it (issue 21): the tables of pt_abi_row (dtypes, targets, axes,
importable names) and the layout of every ctypes structure the package
passes (checked at load: a structure that disagrees with the C header is
an AbiMismatch, an ImportError, never a wrong launch).

The libraries are looked up in $PTXTILE_LIB_DIR, then in the package's own
_lib folder (where `pip install .` puts them), then in the build folder of
a source checkout (python/ptxtile/../../build), so the package runs from
the repository after `make` without being installed.  Each library is
loaded once, on first use: `import ptxtile` needs neither.
"""
import ctypes
import os
import threading

_HERE = os.path.dirname(os.path.abspath(__file__))
_lock = threading.Lock()
_loaded = {}


class LibraryNotFound(ImportError):
    """libptxtile.so or libptxtile_rt.so is not where the package looks."""


class AbiMismatch(ImportError):
    """libptxtile.so binds another binary interface than this package
    (PT_ABI_VERSION of include/ptxtile.h)."""


# PT_ABI_VERSION of include/ptxtile.h that these prototypes follow
ABI_VERSION = 2


def lib_dirs():
    """The folders searched for the libraries, in order."""
    env = os.environ.get("PTXTILE_LIB_DIR")
    if env:
        return [env]
    return [os.path.join(_HERE, "_lib"),
            os.path.normpath(os.path.join(_HERE, "..", "..", "build"))]


def lib_path(name):
    for d in lib_dirs():
        p = os.path.join(d, name)
        if os.path.isfile(p):
            return p
    raise LibraryNotFound(
        "%s not found in %s; install the package with `pip install .` from "
        "the repository root, or run `make` there (or set PTXTILE_LIB_DIR)"
        % (name, ", ".join(lib_dirs())))


c_int, c_size_t, c_char_p, c_void_p = (ctypes.c_int, ctypes.c_size_t,
                                       ctypes.c_char_p, ctypes.c_void_p)
P = ctypes.POINTER

_COMPILER_PROTOS = {
    "pt_ctx_new": (c_void_p, [c_void_p]),
    "pt_ctx_free": (None, [c_void_p]),
    "pt_code_name": (c_char_p, [c_int, c_char_p]),
    "pt_diag_count": (c_size_t, [c_void_p]),
    "pt_diag_code": (c_int, [c_void_p, c_size_t]),
    "pt_diag_message": (c_char_p, [c_void_p, c_size_t]),
    "pt_diag_position": (None, [c_void_p, c_size_t, P(c_int), P(c_int)]),
    "pt_diag_render": (c_char_p, [c_void_p, c_int]),
    "pt_load": (c_int, [c_void_p, c_char_p, c_char_p, c_size_t,
                        P(c_void_p)]),
    "pt_compile": (c_int, [c_void_p, c_void_p, c_char_p, P(c_char_p),
                           P(c_char_p)]),
    "pt_explain": (c_int, [c_void_p, c_void_p, c_char_p, P(c_char_p)]),
    "pt_default_target": (c_char_p, []),
    "pt_set_lineinfo": (None, [c_void_p, c_int]),
    "pt_ctx_errmsg": (c_char_p, [c_void_p]),
    "pt_set_constant": (c_int, [c_void_p, c_char_p, c_char_p]),
    "pt_get_budget": (c_size_t, [c_void_p, c_int]),

    "pt_code_number": (c_int, [c_char_p]),
    "pt_abi_version": (c_int, []),
    "pt_abi_row": (c_char_p, [c_char_p, c_int, P(ctypes.c_longlong),
                              P(ctypes.c_longlong)]),
}

_RUNTIME_PROTOS = {
    "ptrt_open_device": (c_int, [c_int, P(c_void_p)]),
    "ptrt_close": (None, [c_void_p]),
    "ptrt_errmsg": (c_char_p, [c_void_p]),
    "ptrt_status": (c_int, [c_void_p]),
    "ptrt_jit_log": (c_char_p, [c_void_p]),
    "ptrt_device_info": (c_int, [c_void_p, P(c_int), P(c_int),
                                 P(c_char_p)]),
    "ptrt_dtype_name": (c_char_p, [c_int]),
    "ptrt_module_load": (c_int, [c_void_p, c_void_p, c_size_t, c_char_p,
                                 c_size_t, P(c_void_p)]),
    "ptrt_kernel_get": (c_int, [c_void_p, c_char_p, P(c_void_p)]),
    "ptrt_launch": (c_int, [c_void_p, c_void_p, c_size_t, c_void_p]),
    "ptrt_check_launch": (c_int, [c_char_p, c_size_t, c_char_p, c_void_p,
                                  c_size_t, c_char_p, c_size_t]),
    "ptrt_sync": (c_int, [c_void_p]),
    "ptrt_reach_pointer": (c_int, [c_void_p, ctypes.c_uint64, c_char_p]),
    "ptrt_forget_pointers": (None, [c_void_p]),
    "ptrt_tensor_map_encode": (c_int, [c_void_p, c_void_p,
                                       P(ctypes.c_uint32), c_int, c_void_p]),
}


def _load(name, protos):
    with _lock:
        lib = _loaded.get(name)
        if lib is None:
            path = lib_path(name)
            lib = ctypes.CDLL(path)
            if "pt_abi_version" in protos:
                _check_abi(lib, path)
            for fn, (res, args) in protos.items():
                f = getattr(lib, fn)
                f.restype = res
                f.argtypes = args
            if "pt_abi_row" in protos:
                for cls, cname in _structs:
                    _check_struct(lib, path, cls, cname)
            _loaded[name] = lib
        return lib


def _check_abi(lib, path):
    """A library from another build is refused here, with both versions,
    before any prototype is bound (a mismatch would be a wrong call)."""
    try:
        f = lib.pt_abi_version
    except AttributeError:
        have = "none (older than the ABI check)"
    else:
        f.restype, f.argtypes = c_int, []
        have = f()
    if have != ABI_VERSION:
        raise AbiMismatch(
            "%s has ABI version %s, this ptxtile package needs %d: rebuild "
            "the library from the package's own sources (`make` in the "
            "repository, or `pip install .`)" % (path, have, ABI_VERSION))


def _rows(lib, table):
    out, a, b = [], ctypes.c_longlong(), ctypes.c_longlong()
    while True:
        name = lib.pt_abi_row(table.encode(), len(out), ctypes.byref(a),
                              ctypes.byref(b))
        if name is None:
            return out
        out.append((name.decode(), a.value, b.value))


_tables = {}


def table(name):
    """Rows (name, a, b) of the library's table `name` (pt_abi_row in
    include/ptxtile.h says what a and b are)."""
    rows = _tables.get(name)
    if rows is None:
        rows = _tables[name] = _rows(compiler(), name)
    return rows


_structs = []


def c_struct(cname):
    """Class decorator: cls lays out the C struct cname of the public
    headers; the layout is checked against the library's (pt_abi_row
    "struct") when it loads, or now when it already has."""
    def mark(cls):
        lib = _loaded.get("libptxtile.so")
        if lib is not None:
            _check_struct(lib, lib._name, cls, cname)
        _structs.append((cls, cname))
        return cls
    return mark


def _check_struct(lib, path, cls, cname):
    rows = {n: (a, b) for n, a, b in _rows(lib, "struct")
            if n == cname or n.startswith(cname + ".")}
    want = {cname: (ctypes.sizeof(cls), ctypes.alignment(cls))}
    for f in cls._fields_:
        d = getattr(cls, f[0])
        want["%s.%s" % (cname, f[0])] = (d.offset, d.size)
    if rows != want:
        bad = sorted(k for k in set(rows) | set(want)
                     if rows.get(k) != want.get(k))
        raise AbiMismatch(
            "%s lays out struct %s otherwise than this ptxtile package "
            "(%s: library %s, package %s): rebuild the library from the "
            "package's own sources" % (path, cname, bad[0],
                                       rows.get(bad[0]), want.get(bad[0])))


def compiler():
    """libptxtile.so with its prototypes declared."""
    return _load("libptxtile.so", _COMPILER_PROTOS)


def runtime():
    """libptxtile_rt.so with its prototypes declared (the compiler
    first: its tables check the structures the runtime takes)."""
    compiler()
    return _load("libptxtile_rt.so", _RUNTIME_PROTOS)


def launch_packed():
    """libptxtile_rt's ptrt_launch_packed, called through ctypes.PyDLL:
    with the GIL held, as torch's own launches are (the call takes a few
    microseconds; dropping and retaking the GIL would be a large share
    of it).  Callers still hold the context's lock (_runtime.Runtime):
    the other runtime calls release the GIL.  No argtypes: it takes a
    ctypes pointer to the structure, the cheapest ctypes call there is."""
    with _lock:
        fn = _loaded.get("ptrt_launch_packed")
        if fn is None:
            fn = ctypes.PyDLL(lib_path("libptxtile_rt.so")).ptrt_launch_packed
            fn.restype = c_int
            _loaded["ptrt_launch_packed"] = fn
        return fn

_codes = {}


def code(name):
    """The number of the stable code `name` (its id in
    include/ptxtile/codes, e.g. 'RT_ARG_DTYPE' -> 5010), read from the
    library so that the package never copies a number."""
    n = _codes.get(name)
    if n is None:
        n = compiler().pt_code_number(name.encode())
        if not n:
            raise KeyError("ptxtile: no code named %r" % name)
        _codes[name] = n
    return n


def code_name(code):
    """'E5010' for 5010 (the stable code names of codes/*.def)."""
    buf = ctypes.create_string_buffer(8)
    r = compiler().pt_code_name(code, buf)
    return r.decode() if r else "E%04d" % code
