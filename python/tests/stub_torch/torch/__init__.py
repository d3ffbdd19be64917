"""A stand-in for the few parts of torch that ptxtile's launch path reads
(python/ptxtile/_compile.py, _args.py), for tests on a machine without
torch or a GPU: CUDA "tensors" that are only metadata over fake device
addresses, a current stream per device, dtypes by name.  Only the
child processes of test_launch_stub.py import it (its folder goes on
their sys.path); it is not torch and says so in __version__.
"""
__version__ = "0.0+ptxtile-test-stand-in"


class dtype(object):
    def __init__(self, name, size):
        self.name, self.itemsize = name, size

    def __repr__(self):
        return "torch." + self.name


float32 = dtype("float32", 4)
float64 = dtype("float64", 8)
float16 = dtype("float16", 2)
int32 = dtype("int32", 4)
int64 = dtype("int64", 8)


def _dense(shape):
    out, s = [], 1
    for d in reversed(shape):
        out.append(s)
        s *= max(d, 1)
    return tuple(reversed(out))


class Size(tuple):
    pass


class device(object):
    def __init__(self, kind, index=None):
        self.type, self.index = kind, index

    def __str__(self):
        return self.type if self.index is None else "%s:%d" % (
            self.type, self.index)


class Tensor(object):
    """shape, strides (in elements), dtype, device index (None: CPU) and
    a data address; methods as torch spells them, each as cheap as a
    Python call can be (the launch benchmark times the code around
    them)."""

    def __init__(self, ptr, shape, dt=float32, strides=None, dev=0):
        self._ptr, self.shape = ptr, Size(shape)
        self._strides = tuple(strides) if strides is not None \
            else _dense(shape)
        self.dtype, self._dev = dt, dev
        self.is_cuda = dev is not None
        self._contiguous = all(s == d for s, d, n in zip(
            self._strides, _dense(self.shape), self.shape) if n != 1)

    @property
    def device(self):
        return device("cuda", self._dev) if self.is_cuda else device("cpu")

    def data_ptr(self):
        return self._ptr

    def stride(self):
        return self._strides

    def dim(self):
        return len(self.shape)

    def element_size(self):
        return self.dtype.itemsize

    def get_device(self):
        return -1 if self._dev is None else self._dev

    def is_contiguous(self):
        return self._contiguous


class _C(object):
    streams = {}  # device -> raw stream handle

    @staticmethod
    def _cuda_getCurrentRawStream(d):
        return _C.streams.get(d, 0)


class _Stream(object):
    def __init__(self, handle):
        self.cuda_stream = handle


class cuda(object):
    Stream = _Stream

    @staticmethod
    def is_initialized():
        return True

    devices = 1  # what device_count() says

    @staticmethod
    def device_count():
        return cuda.devices

    @staticmethod
    def current_device():
        return 0

    @staticmethod
    def current_stream(d=0):
        return _Stream(_C._cuda_getCurrentRawStream(d))
