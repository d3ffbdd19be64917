"""The exceptions of the package."""


class Diagnostic(object):
    """One compiler diagnostic: code ('E2001'), number (2001), file, line
    and column (1-based; 0 when it has no location) and message."""

    __slots__ = ("code", "number", "file", "line", "column", "message")

    def __init__(self, number, code, file, line, column, message):
        self.number = number
        self.code = code
        self.file = file
        self.line = line
        self.column = column
        self.message = message

    def __repr__(self):
        return "%s:%d:%d: error[%s]: %s" % (self.file, self.line,
                                             self.column, self.code,
                                             self.message)


class Error(Exception):
    """The base of every ptxtile error: CompileError, LaunchError (and its
    EmulatorError)."""


class CompileError(Error):
    """A kernel did not compile.  .diagnostics holds every diagnostic;
    .text (and str()) the rendered report, each with its source line."""

    def __init__(self, text, diagnostics=()):
        Exception.__init__(self, text)
        self.text = text
        self.diagnostics = list(diagnostics)

    @property
    def codes(self):
        return [d.code for d in self.diagnostics]


class LaunchError(Error):
    """A launch was refused or failed.  .code is the runtime status
    (5010, named .code_name 'E5010' in codes/runtime.def) or 0 for an
    argument Python could not convert; .argument the 0-based argument at
    fault when known; the message names the argument and what the kernel
    expected."""

    def __init__(self, message, code=0, argument=None):
        Exception.__init__(self, message)
        self.message = message
        self.code = code
        self.argument = argument

    @property
    def code_name(self):
        return "E%04d" % self.code if self.code else None


class PeerAccessError(LaunchError):
    """A pointer the launch device cannot reach: memory of another
    device without peer access between the two (.code 5030,
    RT_PEER_UNREACHABLE), mapped or pool memory whose access flags leave
    the launch device out (5031, RT_PEER_NO_ACCESS), or a failing
    cuCtxEnablePeerAccess (5032, RT_PEER_ENABLE).  The message names the
    argument (or the table entry) and both devices."""


PEER_CODES = ("RT_PEER_UNREACHABLE", "RT_PEER_NO_ACCESS", "RT_PEER_ENABLE")


def launch_error(message, code, argument=None):
    """The LaunchError of a runtime status: PeerAccessError for the peer
    codes (5030-5032), else LaunchError."""
    from . import _lib
    cls = LaunchError
    if code and code in [_lib.code(n) for n in PEER_CODES]:
        cls = PeerAccessError
    return cls(message, code, argument)


class ArgumentCountError(LaunchError, TypeError):
    """A kernel called with the wrong number of arguments: a TypeError, as
    for any Python callable, and a LaunchError with code 5008
    (PT_E_RT_ARG_COUNT) as the runtime reports it."""

    def __init__(self, message):
        from . import _lib  # here: _lib does not import the errors
        LaunchError.__init__(self, message, _lib.code("RT_ARG_COUNT"))
