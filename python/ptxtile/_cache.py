"""The on-disk cache of compiled kernels.

Folder: $PTXTILE_CACHE_DIR, else $XDG_CACHE_HOME/ptxtile, else
~/.cache/ptxtile.  Disabled by PTXTILE_CACHE=0 (or compile(..., cache=
False)).  One folder per key holds kernel.ptx, kernel.meta.json and, once
assembled, kernel.cubin.  The key hashes the source name and text, the
target, the options and the compiler's identity (its version and a hash
of libptxtile.so, so a rebuilt compiler never reuses stale output).
Entries are written into a temporary folder and renamed into place, so a
reader sees a whole entry or none; a cache that cannot be written is
skipped, never an error.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile

from . import _lib
from ._version import __version__

_identity = []


def cache_dir() -> str:
    d = os.environ.get("PTXTILE_CACHE_DIR")
    if d:
        return d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ptxtile")


def enabled():
    return os.environ.get("PTXTILE_CACHE", "1").lower() not in (
        "0", "off", "false", "no")


def compiler_identity():
    """ptxtile's version and the hash of the compiler library in use."""
    if not _identity:
        h = hashlib.sha256()
        with open(_lib.lib_path("libptxtile.so"), "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _identity.append("%s+%s" % (__version__, h.hexdigest()[:16]))
    return _identity[0]


def key(name, text, target, options):
    doc = json.dumps([compiler_identity(), name, text, target,
                      sorted(options.items())])
    return hashlib.sha256(doc.encode()).hexdigest()


def _entry(k):
    return os.path.join(cache_dir(), k[:2], k)


def load(k):
    """{'ptx', 'meta'} (str) of entry k, or None on a miss."""
    d = _entry(k)
    try:
        with open(os.path.join(d, "kernel.ptx")) as f:
            ptx = f.read()
        with open(os.path.join(d, "kernel.meta.json")) as f:
            meta = f.read()
    except (OSError, UnicodeDecodeError):
        return None
    return {"ptx": ptx, "meta": meta}


def store(k, ptx, meta):
    d = _entry(k)
    try:
        parent = os.path.dirname(d)
        os.makedirs(parent, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".tmp-", dir=parent)
        with open(os.path.join(tmp, "kernel.ptx"), "w") as f:
            f.write(ptx)
        with open(os.path.join(tmp, "kernel.meta.json"), "w") as f:
            f.write(meta)
        try:
            os.rename(tmp, d)
        except OSError:  # another process stored it first, or a broken
            shutil.rmtree(d, ignore_errors=True)  # entry: replace it
            try:
                os.rename(tmp, d)
            except OSError:
                shutil.rmtree(tmp, ignore_errors=True)
    except OSError:
        pass


def load_cubin(k):
    try:
        with open(os.path.join(_entry(k), "kernel.cubin"), "rb") as f:
            return f.read()
    except OSError:
        return None


def store_cubin(k, data):
    d = _entry(k)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=d)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, os.path.join(d, "kernel.cubin"))
    except OSError:
        pass


def clear() -> None:
    """Removes every cached kernel."""
    shutil.rmtree(cache_dir(), ignore_errors=True)
