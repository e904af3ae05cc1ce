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

``make(npu=True)`` is a fake NPU: iron's sim executes what XRT would be handed.
``hw_context(device, elf)`` parses the full ELF as XRT does (:func:`group_ctrlcode`:
``"<kernel>:<instance>"`` -> the group whose instance symbol names it -> its member
``.ctrltext`` section), ``.pdi.<id>`` sections are the PDIs (the fake aiebu writes
sim payloads there, ``iron/tests/fake_toolchain/aiebu.py``); a run binds BOs by
argument index. The xclbin flow runs the instruction BO the kernel is called with
(``kernel(3, instr, n_words, *bos)``) on the PDI the fake xclbin carries for that
kernel. BOs are sim host buffers, so the trace buffer is read back as the device
wrote it. Each hardware context is a fresh sim device (as :class:`SimBackend` is).
``m.loaded`` keeps the bytes of every ELF and xclbin file pyxrt was handed.
"""

from __future__ import annotations

import enum
import json
import struct
import types

import numpy as np

SHT_SYMTAB, SHT_GROUP = 2, 17


def elf_sections(data: bytes) -> list[tuple[str, int, int, int, bytes]]:
    """``(name, type, link, info, data)`` per section index of an ELF32 LE image, as ELFIO
    numbers them (the index is the position in this list)."""
    (shoff,) = struct.unpack_from("<I", data, 32)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 46)
    raw = [struct.unpack_from("<10I", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = raw[shstrndx]
    names = data[strtab[4] : strtab[4] + strtab[5]]
    out = []
    for h in raw:
        name = names[h[0] : names.index(b"\0", h[0])].decode() if h[1] else ""
        out.append((name, h[1], h[6], h[7], data[h[4] : h[4] + h[5]] if h[1] != 8 else b""))
    return out


def _symbol(sections, symtab: int, index: int) -> tuple[str, int, int]:
    _n, _t, link, _i, table = sections[symtab]
    name_off, _v, _s, info, _o, shndx = struct.unpack_from("<IIIBBH", table, 16 * index)
    strings = sections[link][4]
    return strings[name_off : strings.index(b"\0", name_off)].decode(), info & 0xF, shndx


def _demangled_name(mangled: str) -> str:
    """The function name of an Itanium ``_Z<len><name>...`` symbol (XRT demangles it)."""
    digits = ""
    for ch in mangled[2:]:
        if not ch.isdigit():
            break
        digits += ch
    start = 2 + len(digits)
    return mangled[start : start + int(digits)] if mangled.startswith("_Z") and digits else mangled


def group_ctrlcode(data: bytes, name: str) -> bytes:
    """The control code XRT builds for kernel ``"<kernel>:<instance>"`` of a group ELF:
    the ``.ctrltext`` sections among the members of the group whose ``sh_info`` symbol
    (``STT_OBJECT`` instance, ``st_shndx`` -> ``STT_FUNC`` kernel) matches (XRT
    ``xrt_elf.cpp`` ``parse_single_group_section``, ``resolve_ctrlcode_id``,
    ``init_simple_buf_map``). Raises RuntimeError as XRT does."""
    sections = elf_sections(data)
    if data[8] >> 4 < 1:
        raise RuntimeError("not a group ELF (ABI version major 0)")
    groups = {}
    for i, (_n, type_, link, info, body) in enumerate(sections):
        if type_ != SHT_GROUP:
            continue
        inst, kind, kernel_index = _symbol(sections, link, info)
        if kind != 1:
            raise RuntimeError("Expected STT_OBJECT for subkernel symbol")
        kname, kkind, _ = _symbol(sections, link, kernel_index)
        if kkind != 2:
            raise RuntimeError("Expected STT_FUNC for kernel symbol")
        members = struct.unpack(f"<{len(body) // 4}I", body)[1:]
        groups[_demangled_name(kname) + inst] = members
    kernel, _, instance = name.partition(":")
    if kernel + instance not in groups:
        raise RuntimeError(f"Unable to find group idx for kernel: {name}")
    code = b"".join(sections[m][4] for m in groups[kernel + instance] if ".ctrltext" in sections[m][0])
    if not code:
        raise RuntimeError(f"Unable to find ctrlcode entry for kernel: {name}")
    return code


def elf_pdis(data: bytes) -> dict[int, bytes]:
    """``.pdi.<id>`` sections by id."""
    return {
        int(n.rsplit(".", 1)[1]): body for n, _t, _l, _i, body in elf_sections(data) if n.startswith(".pdi.")
    }


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
    npu: bool = False,
):
    m = types.ModuleType("pyxrt")
    m.calls = []
    m.loaded = []  # bytes of every ELF / xclbin file handed to pyxrt
    sim = _Sim(device_name) if npu else None
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
            self.xclbin = xclbin.data
            return xclbin.get_uuid()

    class xclbin:
        def __init__(self, path):
            self.path = path
            with open(path, "rb") as f:
                self.data = f.read()
            m.loaded.append(self.data)
            rec(("xclbin", self.data))

        def get_uuid(self):
            return "uuid-1"

        def get_kernels(self):
            return [types.SimpleNamespace(get_name=lambda n=n: n) for n in xclbin_kernels]

    class elf:
        def __init__(self, path):
            self.path = path
            with open(path, "rb") as f:
                self.data = f.read()
            m.loaded.append(self.data)
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
            self.elf = None
            if isinstance(what, elf):
                if features != "2.23":
                    raise TypeError("__init__(): incompatible constructor arguments")
                rec(("hw_context", "elf", what.path))
                self.elf = what.data
            else:
                rec(("hw_context", "uuid", what))
            self.sim = sim.context(self.elf, dev) if sim is not None else None

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
                self.host = parent.host.window(offset, size) if sim is not None else None
                self.parent, self.offset = parent, offset
                rec(("sub_bo", self.id, parent.id, size, offset))
            else:
                _dev, size, flags, group = args
                self.host = sim.allocate(self.id, size) if sim is not None else None
                self.mem = self.host.data if sim is not None else np.zeros(size, dtype=np.uint8)
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
            self.control = None  # xclbin flow: the instruction BO of each call
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
            if sim is not None:
                self.kernel.ctx.sim.run(self.kernel, dict(self.args))

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
                self.ctx = ctx
                self.control = group_ctrlcode(ctx.elf, name) if sim is not None else None
                rec(("ext.kernel", name))

        def ext_bo(dev, size):
            b = bo.__new__(bo)
            counter["bo"] += 1
            b.id, b.parent, b.offset = counter["bo"], None, 0
            b.host = sim.allocate(b.id, size) if sim is not None else None
            b.mem = b.host.data if sim is not None else np.zeros(size, dtype=np.uint8)
            rec(("ext.bo", b.id, size))
            return b

        m.ext = types.SimpleNamespace(kernel=ext_kernel, bo=ext_bo)
    return m


class _Sim:
    """The fake NPU: one sim device per hardware context, host memory shared by its BOs."""

    def __init__(self, device_name):
        from iron.runtime.sim import HostMemory
        from iron.target.geometry import target_for_xrt_device

        self.target = target_for_xrt_device(device_name or "") or "npu2"
        self.memory = HostMemory()

    def allocate(self, bo_id: int, size: int):
        return self.memory.allocate(f"bo{bo_id}", size)

    def context(self, elf_data, dev):
        return _SimContext(self, elf_data, getattr(dev, "xclbin", None))


class _SimContext:
    def __init__(self, sim: _Sim, elf_data: bytes | None, xclbin: bytes | None):
        from iron.artifact.pdi import DevicePayload
        from iron.operators import from_payload
        from iron.runtime.sim import SimDevice

        self.device = SimDevice(sim.target, from_payload)
        self.kernel_pdi: dict[str, int] = {}
        if elf_data is not None:
            self.pdis = {pid: DevicePayload.from_json(body) for pid, body in elf_pdis(elf_data).items()}
        else:  # the fake aiecc's xclbin: JSON, one PDI per kernel
            entries = json.loads(xclbin)["kernels"]
            self.pdis = {i + 1: DevicePayload.from_json(e["pdi"]) for i, e in enumerate(entries)}
            self.kernel_pdi = {e["name"]: i + 1 for i, e in enumerate(entries)}

    def run(self, kernel, args: dict) -> None:
        if kernel.control is not None:  # full ELF: host buffer i is argument i
            bos = [args[i].host for i in range(len(args))]
            self.device.run(kernel.control, bos, self.pdis, kernel.name)
            return
        opcode, instr, n_words = args[0], args[1], args[2]
        if opcode != 3:
            raise RuntimeError(f"opcode {opcode}: the fake NPU runs transaction control code (3)")
        control = bytes(instr.mem[: 4 * n_words])
        bos = [args[i].host for i in range(3, len(args))]
        self.device.run(control, bos, self.pdis, kernel.name, pdi=self.kernel_pdi[kernel.name])
