"""`from ptxtile import tirx as T`: the script language's namespace, as
far as plain Python needs it to import a module of kernels.

ptxtile does not run kernel bodies: `@T.function` records the function
(its name, file and line) and ptxtile.compile() reads the source.  Every
other name (T.Tensor, T.float32, T.cuda.LaunchConfig, T.dynamic, ...)
is a placeholder that accepts any attribute, call, index or arithmetic,
so annotations, defaults and module constants such as
`FRAG = T.TileLayout(T.S[(32, 4):(1@laneid, 1)])` evaluate without error.
What is valid is decided by the compiler, not here.
"""


class Placeholder(object):
    """Stands for a name of the script language; any use gives another."""

    __slots__ = ("_name",)

    def __init__(self, name):
        object.__setattr__(self, "_name", name)

    def __repr__(self):
        return "<ptxtile script name %s>" % self._name

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return Placeholder("%s.%s" % (self._name, attr))

    def __call__(self, *args, **kwargs):
        return Placeholder(self._name + "(...)")

    def __getitem__(self, key):
        return Placeholder(self._name + "[...]")

    def _op(self, *other):
        return Placeholder("(%s ...)" % self._name)

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _op
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = _op
    __mod__ = __rmod__ = __matmul__ = __rmatmul__ = __pow__ = __rpow__ = _op
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = _op
    __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = _op
    __neg__ = __pos__ = __invert__ = _op
    __lt__ = __le__ = __gt__ = __ge__ = _op

    def __bool__(self):
        raise TypeError("%s is a ptxtile script name; it has no truth value "
                        "in Python" % self._name)

    def __iter__(self):
        raise TypeError("%s is a ptxtile script name; it cannot be iterated "
                        "in Python" % self._name)


class Function(object):
    """A function marked @T.function: what ptxtile.compile() needs to find
    its source.  Calling it from Python is an error: compile it."""

    def __init__(self, fn):
        self.__wrapped__ = fn
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__module__ = fn.__module__
        self.__doc__ = fn.__doc__
        self.filename = fn.__code__.co_filename
        self.lineno = fn.__code__.co_firstlineno

    def __repr__(self):
        return "<ptxtile function %s (%s:%d)>" % (self.__name__,
                                                   self.filename, self.lineno)

    def __call__(self, *args, **kwargs):
        raise TypeError("%s is a @T.function: compile it with "
                        "ptxtile.compile(%s) and call the kernel that returns"
                        % (self.__name__, self.__name__))


def function(fn=None, **kwargs):
    """@T.function or @T.function(...): records fn for ptxtile.compile."""
    if fn is None:
        return lambda f: Function(f)
    return Function(fn)


prim_func = function


def __getattr__(name):
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    return Placeholder("T." + name)
