"""A recording fake of pyxrt, for the XRT backend's contract tests (no NPU here).

``make(features=...)`` returns a module object to put in ``sys.modules["pyxrt"]``.
Every call that matters is appended to ``module.calls`` as a tuple, BOs hold
real bytes (sub-buffers share their parent's), and ``module.on_start(kernel,
args)`` lets a test play the device (write outputs, trace words).
``xclbin_kernels`` are the kernel names the registered xclbin carries;
``kernel(ctx, name)`` with another name fails as XRT does.
Objects that XRT frees when their last reference goes (hardware contexts, BOs,
sub-BOs) record ``("release", kind, id)`` then, so a test can check the order
in which a runner gives them back.
``device.get_info(xrt_info_device.name)`` returns (None: a pyxrt without ``get_info``).
Feature sets mirror XRT releases: ``"2.23"`` (full-ELF context), ``"2.20"``
(ext/module, no ``hw_context(device, elf)``), ``"2.19"`` (elf only), ``"2.16"``.
"""

from __future__ import annotations

import enum
import types

import numpy as np


class _SyncDir(enum.Enum):
    XCL_BO_SYNC_BO_TO_DEVICE = 0
    XCL_BO_SYNC_BO_FROM_DEVICE = 1


class _Info(enum.Enum):  # pyxrt.xrt_info_device (pyxrt.cpp binds xrt::info::device)
    bdf = 0
    name = 1


class _State(enum.Enum):
    ERT_CMD_STATE_COMPLETED = 4
    ERT_CMD_STATE_ERROR = 7


def make(
    features: str = "2.23",
    *,
    device_ok: bool = True,
    final_state: str = "ERT_CMD_STATE_COMPLETED",
    xclbin_kernels=("MLIR_AIE",),
    device_name: str | None = None,
):
    m = types.ModuleType("pyxrt")
    m.calls = []
    m.on_start = None
    m.xclBOSyncDirection = _SyncDir
    m.ert_cmd_state = _State
    rec = m.calls.append
    counter = {"bo": 0}

    class device:
        def __init__(self, index):
            if not device_ok:
                raise RuntimeError("No such device")
            rec(("device", index))

        def get_info(self, key):  # a query, not recorded
            return {"name": device_name}[key.name]

        def register_xclbin(self, xclbin):
            rec(("register_xclbin", xclbin.path))
            return xclbin.get_uuid()

    class xclbin:
        def __init__(self, path):
            self.path = path
            with open(path, "rb") as f:
                self.data = f.read()
            rec(("xclbin", self.data))

        def get_uuid(self):
            return "uuid-1"

        def get_kernels(self):
            return [types.SimpleNamespace(get_name=lambda n=n: n) for n in xclbin_kernels]

    class elf:
        def __init__(self, path):
            self.path = path
            rec(("elf", path))

    def released(kind, obj):
        try:
            rec(("release", kind, getattr(obj, "id", None)))
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    class hw_context:
        def __del__(self):
            released("hw_context", self)

        def __init__(self, dev, what):
            if isinstance(what, elf):
                if features != "2.23":
                    raise TypeError("__init__(): incompatible constructor arguments")
                rec(("hw_context", "elf", what.path))
            else:
                rec(("hw_context", "uuid", what))

    class bo:
        normal, cacheable, device_only, host_only = "normal", "cacheable", "device_only", "host_only"

        def __del__(self):
            released("sub_bo" if getattr(self, "parent", None) is not None else "bo", self)

        def __init__(self, *args):
            counter["bo"] += 1
            self.id = counter["bo"]
            if isinstance(args[0], bo):  # sub-buffer: (parent, size, offset)
                parent, size, offset = args
                self.mem = parent.mem[offset : offset + size]
                self.parent, self.offset = parent, offset
                rec(("sub_bo", self.id, parent.id, size, offset))
            else:
                _dev, size, flags, group = args
                self.mem = np.zeros(size, dtype=np.uint8)
                self.parent, self.offset = None, 0
                rec(("bo", self.id, size, flags, group))

        def write(self, data, seek):
            raw = np.frombuffer(bytes(data), dtype=np.uint8)
            self.mem[seek : seek + raw.size] = raw
            rec(("write", self.id, raw.size, seek))

        def read(self, size, skip):
            rec(("read", self.id, size, skip))
            return self.mem[skip : skip + size].view(np.int8).copy()

        def sync(self, direction, *rest):
            rec(("sync", self.id, direction.name))

        def size(self):
            return self.mem.size

    class kernel:
        def __init__(self, ctx, name):
            if name not in xclbin_kernels:
                raise RuntimeError(f"No such compute unit: {name}")
            self.name = name
            self.ctx = ctx
            rec(("kernel", name))

        def group_id(self, i):
            return 100 + i

        def __call__(self, *args):
            rec(("call", self.name, tuple(a.id if isinstance(a, bo) else a for a in args)))
            r = run(self)
            for i, a in enumerate(args):
                if isinstance(a, (bo, int)):
                    r.args[i] = a
            r.start()
            return r

    class run:
        def __init__(self, k):
            self.kernel = k
            self.args = {}
            rec(("run", k.name))

        def set_arg(self, i, value):
            self.args[i] = value
            rec(("set_arg", i, value.id if isinstance(value, bo) else value))

        def start(self):
            rec(("start", self.kernel.name))
            if m.on_start is not None:
                m.on_start(self.kernel.name, dict(self.args))

        def wait(self, *timeout):
            rec(("wait", self.kernel.name))
            return _State[final_state]

    m.device, m.xclbin, m.hw_context, m.bo, m.kernel, m.run = device, xclbin, hw_context, bo, kernel, run
    if device_name is not None:
        m.xrt_info_device = _Info
    else:
        del device.get_info
    if features in ("2.19", "2.20", "2.23"):
        m.elf = elf
    if features in ("2.20", "2.23"):

        class ext_kernel(kernel):
            def __init__(self, ctx, name):
                self.name = name
                rec(("ext.kernel", name))

        def ext_bo(dev, size):
            b = bo.__new__(bo)
            counter["bo"] += 1
            b.id, b.mem, b.parent, b.offset = counter["bo"], np.zeros(size, dtype=np.uint8), None, 0
            rec(("ext.bo", b.id, size))
            return b

        m.ext = types.SimpleNamespace(kernel=ext_kernel, bo=ext_bo)
    return m
