"""Builds libptxtile.so and libptxtile_rt.so with the project's Makefile
(`make O=$PTXTILE_BUILD_DIR pylib`, default build/) and puts them in the
package as ptxtile/_lib/, where ptxtile._lib finds them.  The wheel is
marked platform-specific because it carries native libraries; the Python
code itself loads them with ctypes (no extension module)."""
import os
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))
LIBS = ("libptxtile.so", "libptxtile_rt.so")


class BuildWithLibraries(build_py):
    def run(self):
        super().run()
        out = os.environ.get("PTXTILE_BUILD_DIR", "build")
        jobs = str(os.cpu_count() or 1)
        subprocess.check_call(["make", "-C", ROOT, "-j" + jobs, "O=" + out,
                               "pylib"])
        dest = os.path.join(self.build_lib, "ptxtile", "_lib")
        os.makedirs(dest, exist_ok=True)
        for lib in LIBS:
            src = os.path.join(out if os.path.isabs(out)
                               else os.path.join(ROOT, out), lib)
            shutil.copy2(src, os.path.join(dest, lib))


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


STAGE = os.path.join(ROOT, "build", "python")  # setuptools' own outputs
os.makedirs(STAGE, exist_ok=True)
setup(cmdclass={"build_py": BuildWithLibraries},
      distclass=BinaryDistribution,
      options={"build": {"build_base": STAGE},
               "egg_info": {"egg_base": STAGE}})
