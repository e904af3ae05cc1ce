"""Build step beyond pyproject.toml: the package carries its decoder's compiled kernels.

After the sources are copied into the build folder, ``python -m iron.trace.warm
--into <build>/iron/trace/_kernels`` compiles the trace decoder's numba kernels
there (about 10 s on 2 cores), so the first decode after ``pip install`` loads them
instead of compiling them (see ``iron/trace/jit.py``). numba checks each kernel at
load time (numba version, CPU, source content) and compiles whatever does not fit,
so a build without numba, or one that fails here, only loses that head start.
"""

import os
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyWithKernels(build_py):
    """``build_py``, then the decoder's kernels compiled into the built package."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install runs the checkout: kernels go to the user cache
        lib = Path(self.build_lib).resolve()
        env = dict(os.environ)
        # pip's isolated build environment reaches its packages through PYTHONPATH: keep it
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(lib), env.get("PYTHONPATH")]))
        print("iron: compiling the trace decoder's kernels into the package (numba, ~10 s)", flush=True)
        cmd = [sys.executable, "-m", "iron.trace.warm", "--into", str(lib / "iron" / "trace" / "_kernels")]
        proc = subprocess.run(cmd, env=env, cwd=lib, stderr=subprocess.PIPE, text=True)
        if proc.returncode:
            tail = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
            print(f"iron: kernels not compiled ({tail}); the first big decode compiles them", flush=True)


setup(cmdclass={"build_py": BuildPyWithKernels})
