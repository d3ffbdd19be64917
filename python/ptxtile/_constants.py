"""Compile-time constants: Python values as script literals.

`ptxtile.compile(..., constants={"BM": 128})` hands each value to the
compiler as script text (pt_set_constant), which replaces the module
constant of that name after checking it has the type of the value it
replaces.  The same conversion captures the module globals a
@T.function reads (_source.py).  Values: int, float, bool, str (a dtype
name or any other string), a torch or numpy dtype (its name), and tuples
or lists of those.
"""
import math
import re

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_MAX_ITEMS = 4096  # the script language's limit on a constant sequence
_INT_MIN, _INT_MAX = -(1 << 63), (1 << 64) - 1


class NotCapturable(TypeError):
    """A value with no script literal; the message says why."""


def _dtype_name(value):
    """'bfloat16' for torch.bfloat16 or numpy.dtype('float32'), else
    None (checked by type name, so neither package is imported)."""
    t = value if isinstance(value, type) else type(value)
    mod = (getattr(t, "__module__", None) or "").split(".")[0]
    if mod == "torch" and t.__name__ == "dtype":
        return str(value).split(".")[-1]
    if mod == "numpy":  # numpy.float16 (a type) or numpy.dtype(...)
        import numpy
        try:
            return numpy.dtype(value).name
        except TypeError:
            return None
    return None


def _is_numpy_scalar(value):
    t = type(value)
    return ((t.__module__ or "").split(".")[0] == "numpy" and
            getattr(value, "ndim", None) == 0 and hasattr(value, "item"))


def literal(value, depth=0):
    """The script text of value; NotCapturable says why there is none."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):  # int() and float(): an IntEnum or a
        value = int(value)      # numpy float64 spells itself otherwise
        if not _INT_MIN <= value <= _INT_MAX:
            raise NotCapturable("the int %d does not fit 64 bits" % value)
        return str(value)
    if isinstance(value, float):
        value = float(value)
        if not math.isfinite(value):
            raise NotCapturable("%r is not a finite float" % value)
        return repr(value)
    if _is_numpy_scalar(value):  # numpy.int32(4), numpy.bool_(True)
        return literal(value.item(), depth)
    if isinstance(value, str):
        value = str(value)
        if "\n" in value or "\r" in value or "\0" in value:
            raise NotCapturable("a string constant must be one line "
                                "without NUL bytes")
        return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')
    if isinstance(value, (tuple, list)):
        if depth > 8:
            raise NotCapturable("tuples nest more than 8 deep")
        if len(value) > _MAX_ITEMS:
            raise NotCapturable("a tuple of %d items is over the limit of "
                                "%d" % (len(value), _MAX_ITEMS))
        items = [literal(v, depth + 1) for v in value]
        return "(%s%s)" % (", ".join(items), "," if len(items) == 1 else "")
    name = _dtype_name(value)
    if name is not None:
        return literal(name)
    raise NotCapturable(
        "its value is of type '%s'; a constant is an int, float, bool, str "
        "(such as a dtype name), a torch/numpy dtype, or a tuple of them"
        % type(value).__name__)


def normalize(constants):
    """{name: script text} of a constants= mapping (sorted by name);
    TypeError or ValueError for a bad name or value."""
    if constants is None:
        return {}
    if not hasattr(constants, "items"):
        raise TypeError("constants= takes a dict of name: value, not %s"
                        % type(constants).__name__)
    out = {}
    for name, value in sorted(constants.items()):
        if not isinstance(name, str) or not _NAME.match(name):
            raise ValueError("constants=: %r is not a script name" % (name,))
        try:
            out[name] = literal(value)
        except NotCapturable as e:
            raise TypeError("constants=: %s: %s" % (name, e)) from None
    return out
