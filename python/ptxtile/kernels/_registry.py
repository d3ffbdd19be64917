"""What the kernels of ptxtile.kernels share: their scripts (package data,
readable and copyable), one autotuner per script, and their registration
as torch.library custom ops.

A kernel function here is three layers:
  the public function (matmul): checks shapes, dtypes and devices with
    messages that name the argument, then calls the op;
  the op (torch.ops.ptxtile.<name>): a torch.library custom op with a fake
    (meta) implementation, so torch.compile(fullgraph=True) traces it as
    one opaque node and CUDA graphs capture its launch (the launch goes
    to torch's current stream, which is the capture stream);
  the launch: an ptxtile.autotune-d kernel of a script in scripts/.
torch is imported on first use, never by `import ptxtile.kernels`.
"""
import os
import threading

_HERE = os.path.dirname(os.path.abspath(__file__))
_lock = threading.Lock()
_tuners = {}
_ops = {}


def script_path(name):
    """The path of scripts/<name>.py, shipped with the package: a kernel
    script to read, copy or compile with other constants."""
    p = os.path.join(_HERE, "scripts", name + ".py")
    if not os.path.isfile(p):
        raise FileNotFoundError("ptxtile.kernels has no script %r (scripts: "
                                "%s)" % (name, ", ".join(scripts())))
    return p


def scripts():
    """The names of the shipped scripts."""
    return sorted(f[:-3] for f in os.listdir(os.path.join(_HERE, "scripts"))
                  if f.endswith(".py") and not f.startswith("_"))


def tuner(script, configs, key, **options):
    """The one Autotuner of (script, its configs), made on first use."""
    from .. import _autotune
    k = (script, repr(configs), repr(key), repr(sorted(options.items())))
    t = _tuners.get(k)
    if t is None:
        with _lock:
            t = _tuners.get(k)
            if t is None:
                t = _tuners[k] = _autotune.autotune(
                    script_path(script), configs=configs, key=key,
                    **options)
    return t


def custom_op(name, schema, impl, fake, mutates_args=()):
    """torch.ops.ptxtile.<name>: a torch.library custom op of impl with
    fake (meta) implementation `fake`, defined once per process on first
    call; schema is the op's signature as torch writes it, e.g.
    "(Tensor a, Tensor b) -> Tensor"."""
    op = _ops.get(name)
    if op is None:
        with _lock:
            op = _ops.get(name)
            if op is None:
                import torch
                op = torch.library.custom_op(
                    "ptxtile::" + name, impl, mutates_args=mutates_args,
                    device_types="cuda", schema=schema)
                op.register_fake(fake)
                _ops[name] = op
    return op


def sm_count(device):
    """The SM count of a CUDA device (cached; what persistent kernels size
    their grid by)."""
    n = _sms.get(device)
    if n is None:
        import torch
        n = _sms[device] = torch.cuda.get_device_properties(
            device).multi_processor_count
    return n


_sms = {}


def plain(*tensors):
    """Whether a kernel function may skip its custom op and launch
    directly: every tensor given (None skipped) is a plain torch.Tensor
    or Parameter - fake, functional and proxy tensors of a trace are
    subclasses - and no autograd graph is being recorded through them
    (the ops have no backward: through the op, autograd says so, where a
    direct launch would return a result silently cut from the graph)."""
    import torch
    ok = (torch.Tensor, torch.nn.Parameter)
    if not all(t is None or type(t) in ok for t in tensors):
        return False
    return not (torch.is_grad_enabled() and
                any(t is not None and t.requires_grad for t in tensors))
