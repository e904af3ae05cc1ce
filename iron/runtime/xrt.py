"""The XRT backend: run an aiecc-built artifact on a real NPU through pyxrt.

pyxrt ships with XRT (not on PyPI) and is imported only when a runner needs it.
Two flows, chosen by how the artifact was compiled:

* npu2 full ELF (``aiecc-full-elf``): aiecc's ELF, byte for byte, is written from
  the artifact's ``.iron.full_elf`` section to a temporary file ``path``;
  ``hw_context(device, pyxrt.elf(path))``,
  ``pyxrt.ext.kernel(ctx, "<device>:<sequence>")``, ``run = pyxrt.run(kernel)``,
  ``run.set_arg(i, bo)`` for host buffer ``i`` (``arg_idx i`` of the dispatched
  sequence), ``run.start()``, ``run.wait()`` == ``ERT_CMD_STATE_COMPLETED``.
  Host buffers are ``pyxrt.ext.bo(device, nbytes)``.
* xclbin (``aiecc-xclbin``, npu1 and npu2 separate dispatch): the artifact's
  xclbin carries one kernel per device (:mod:`iron.builder.aiecc` links one
  aiecc run per device). ``device.register_xclbin(xclbin)`` once, one
  ``hw_context(device, uuid)``, then per distinct device
  ``pyxrt.kernel(ctx, schema.xclbin_kernel_name(device))``; per iron kernel an
  instruction BO ``pyxrt.bo(device, nbytes, pyxrt.bo.cacheable,
  kernel.group_id(1))`` written and synced TO_DEVICE; data BOs
  ``pyxrt.bo(device, nbytes, pyxrt.bo.host_only, kernel.group_id(i + 3))`` (group
  of the first kernel that binds them); each dispatch of the schedule is
  ``kernel(3, instr_bo, n_words, *bos)`` with its own bindings (opcode 3 =
  transaction; ``arg_idx i`` is kernel argument ``i + 3``).

Kernel arguments that are a window of a host buffer (separate dispatch binds
each call site's trace slice that way) are sub-buffers
``pyxrt.bo(parent, size, offset)``. Inputs are synced TO_DEVICE before the
first kernel; outputs and the trace buffer FROM_DEVICE after the last one.

Buffer lifetime: BOs and sub-BOs are created at the first run and reused by
every later run of the backend; each run rewrites inputs and zeroes the rest.
A trace drain task never completes, so after a run the device still holds the
trace BO's address in an active task (the next traced dispatch removes it with
a reconfiguration, :mod:`iron.fuse.fusion`). Giving that BO back while the context
lives would let the device write into freed memory; so :meth:`XrtBackend.close`
drops the run handles, kernels and the hardware context first and the BOs
after them, and no BO is ever freed between runs.

Which XRT offers what (XRT release history of pyxrt.cpp):
``pyxrt.elf`` 2.19 (2025.1), ``pyxrt.ext`` / ``module`` 2.20 (2025.2),
``hw_context(device, elf)`` 2.23 (2026.1).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import tempfile

import numpy as np

from iron.artifact import elf
from iron.artifact.schema import FULL_ELF, TRACE_BUFFER, XCLBIN, kernel_name, xclbin_kernel_name
from iron.errors import IronError
from iron.target.xclbin import XCLBIN_ARG_OFFSET

#: Feature -> XRT release that added it to pyxrt.
XRT_FEATURES = {
    "hw_context": "XRT >= 2.16 (2023.2)",
    "elf": "XRT >= 2.19 (2025.1)",
    "ext": "XRT >= 2.20 (2025.2)",
    "full_elf_context": "XRT >= 2.23 (2026.1)",
}
TXN_OPCODE = 3  # kernel argument 0 of the xclbin flow: "transaction" control code


class XrtError(IronError):
    """pyxrt is missing, too old, or a run did not complete."""


def import_pyxrt():
    """Import pyxrt now (never at iron import time)."""
    try:
        return importlib.import_module("pyxrt")
    except ImportError as exc:
        raise XrtError(
            f"pyxrt is not importable ({exc}); install XRT and source its setup script "
            "(pyxrt ships with XRT, not on PyPI), or run on device='sim'"
        ) from None


def probe() -> tuple[bool, str]:
    """``(True, "")`` when pyxrt imports and NPU device 0 opens, else ``(False, why)``."""
    try:
        px = importlib.import_module("pyxrt")
    except ImportError:
        return False, "pyxrt is not installed"
    try:
        px.device(0)
    except Exception as exc:  # noqa: BLE001 - pyxrt raises RuntimeError or its own types
        return False, f"pyxrt found but no NPU device opens ({exc})"
    return True, ""


def probe_target() -> str | None:
    """The generation (``npu1``/``npu2``) of NPU device 0 as XRT names it, or None when
    pyxrt cannot say (call after :func:`probe` succeeded)."""
    from iron.target.geometry import target_for_xrt_device

    px = importlib.import_module("pyxrt")
    name = device_name(px, px.device(0))
    return target_for_xrt_device(name) if name else None


def require(px, feature: str, flow: str) -> None:
    """Fail with the XRT version needed when pyxrt lacks ``feature``."""
    present = {
        "hw_context": hasattr(px, "hw_context"),
        "elf": hasattr(px, "elf"),
        "ext": hasattr(px, "ext") and hasattr(getattr(px, "ext"), "kernel"),
        "full_elf_context": hasattr(px, "hw_context") and hasattr(px, "elf"),
    }[feature]
    if not present:
        raise XrtError(
            f"{flow} needs pyxrt.{feature.replace('full_elf_context', 'hw_context(device, elf)')}, "
            f"which this pyxrt lacks: needs {XRT_FEATURES[feature]}"
        )


def device_name(px, device) -> str | None:
    """XRT's name of ``device`` (``device.get_info(pyxrt.xrt_info_device.name)``), or
    None when this pyxrt cannot say."""
    info = getattr(px, "xrt_info_device", None)
    if info is None or not hasattr(info, "name") or not hasattr(device, "get_info"):
        return None
    try:
        name = device.get_info(info.name)
    except Exception:  # noqa: BLE001 - pybind11 raises RuntimeError or its own types
        return None
    return str(name) if name else None


def check_device(artifact, name: str | None) -> None:
    """Refuse to run an artifact built for another NPU generation than device 0's."""
    from iron.target.geometry import target_for_xrt_device

    if name is None:
        return  # older pyxrt: nothing to compare (XRT itself refuses a foreign xclbin/ELF)
    target = target_for_xrt_device(name)
    if target is None:
        import warnings

        warnings.warn(
            f"iron: cannot tell which NPU generation XRT device {name!r} is; running {artifact.name} "
            f"(built for {artifact.target}) anyway",
            stacklevel=3,
        )
        return
    if target != artifact.target:
        raise XrtError(
            f"{artifact.name} was built for {artifact.target}, but NPU device 0 is {name!r} ({target}); "
            f"rebuild it with target={target!r} (iron.build(..., target={target!r}))"
        )


@contextlib.contextmanager
def _temporary(data: bytes, suffix: str):
    """A temporary file holding ``data`` (aiecc's bytes, unchanged) for pyxrt to read."""
    fd, path = tempfile.mkstemp(suffix=suffix, prefix="iron-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        yield path
    finally:
        os.unlink(path)


def _completed(px, state) -> bool:
    return state == px.ert_cmd_state.ERT_CMD_STATE_COMPLETED


class XrtBackend:
    """Holds the device, context and kernels of one artifact; ``run`` executes the schedule."""

    def __init__(self, artifact, pyxrt=None):
        if artifact.backend == "builtin":
            raise XrtError(
                f"{artifact.name} was built by iron's built-in lowering, which only sim can run "
                "(its PDIs are iron's own payloads); build it where mlir-aie's aiecc is installed "
                "to run it on an NPU, or load it with device='sim'"
            )
        if artifact.backend not in ("aiecc-full-elf", "aiecc-xclbin"):
            raise XrtError(f"{artifact.name}: unknown artifact backend {artifact.backend!r}")
        self.artifact = artifact
        self.px = px = pyxrt or import_pyxrt()
        try:
            self.device = px.device(0)
        except Exception as exc:  # noqa: BLE001
            raise XrtError(f"cannot open NPU device 0 through pyxrt: {exc}") from None
        check_device(artifact, device_name(px, self.device))
        self.full_elf = artifact.backend == "aiecc-full-elf"
        self.kernels = {}
        self.instr = {}  # kernel name -> (instruction BO, word count)
        self.bos: dict | None = None  # host buffer name -> BO, for the backend's life
        self.sub_bos: dict = {}  # (buffer, offset, size) -> sub-BO, for the backend's life
        self.context = None
        if self.full_elf:
            self._open_full_elf()
        else:
            self._open_xclbin()

    # ------------------------------------------------------------------ setup
    def _open_full_elf(self) -> None:
        px, art = self.px, self.artifact
        require(px, "elf", "running a full ELF")
        require(px, "ext", "running a full ELF")
        require(px, "full_elf_context", "running a full ELF")
        data = elf.read_sections(art.path).get(FULL_ELF)
        if not data:
            raise XrtError(f"{art.path}: no {FULL_ELF} section (not an aiecc full-ELF build); rebuild it")
        try:
            with _temporary(data, ".elf") as path:
                self.context = px.hw_context(self.device, px.elf(path))  # pyxrt.elf reads the file
        except TypeError:
            # pybind11 reports a missing overload as TypeError.
            raise XrtError(
                f"this pyxrt has no hw_context(device, elf) overload: running a full ELF needs "
                f"{XRT_FEATURES['full_elf_context']}"
            ) from None
        for name in dict.fromkeys(d.kernel for d in art.schedule):
            k = art.kernels[name]
            self.kernels[name] = px.ext.kernel(self.context, kernel_name(k.device, k.sequence))

    def _open_xclbin(self) -> None:
        px, art = self.px, self.artifact
        require(px, "hw_context", "running an xclbin")
        data = elf.read_sections(art.path).get(XCLBIN)
        if not data:
            raise XrtError(f"{art.path}: no {XCLBIN} section (not an aiecc xclbin build)")
        with _temporary(data, ".xclbin") as path:
            xclbin = px.xclbin(path)  # reads the whole file
            self.device.register_xclbin(xclbin)
        self.context = px.hw_context(self.device, xclbin.get_uuid())
        present = [k.get_name() for k in xclbin.get_kernels()] if hasattr(xclbin, "get_kernels") else None
        by_device = {}  # one pyxrt kernel per device: the xclbin has one kernel (and PDI) each
        for name in dict.fromkeys(d.kernel for d in art.schedule):
            image = art.kernels[name]
            if image.device not in by_device:
                kname = xclbin_kernel_name(image.device)
                if present is not None and kname not in present:
                    raise XrtError(
                        f"{art.path}: its xclbin has no kernel {kname!r} for device {image.device} "
                        f"(it has {', '.join(present) or 'none'}); rebuild the artifact with this iron"
                    )
                by_device[image.device] = px.kernel(self.context, kname)
            kernel = by_device[image.device]
            control = image.control
            if not control or len(control) % 4:
                raise XrtError(f"kernel {name!r} of {art.name}: instruction binary of {len(control)} bytes")
            bo = px.bo(self.device, len(control), px.bo.cacheable, kernel.group_id(1))
            bo.write(control, 0)
            bo.sync(px.xclBOSyncDirection.XCL_BO_SYNC_BO_TO_DEVICE)
            self.kernels[name] = kernel
            self.instr[name] = (bo, len(control) // 4)

    # ------------------------------------------------------------------ run
    def _buffers(self) -> dict:
        """One BO per host buffer (group from its first use in the xclbin flow)."""
        px, art = self.px, self.artifact
        group = {}
        for d in art.schedule:
            for i, a in enumerate(d.args):
                group.setdefault(a.buffer, (d.kernel, i))
        bos = {}
        for buf, t in art.buffers.items():
            nbytes = t.nbytes
            if self.full_elf:
                bos[buf] = px.ext.bo(self.device, nbytes)
            else:
                kname, i = group.get(buf, (art.schedule[0].kernel, 0))
                kernel = self.kernels[kname]
                bos[buf] = px.bo(self.device, nbytes, px.bo.host_only, kernel.group_id(i + XCLBIN_ARG_OFFSET))
        return bos

    def _arg_bo(self, bos, a):
        parent = bos[a.buffer]
        if a.offset == 0 and a.type.nbytes == self.artifact.buffers[a.buffer].nbytes:
            return parent
        key = (a.buffer, a.offset, a.type.nbytes)
        if key not in self.sub_bos:
            self.sub_bos[key] = self.px.bo(parent, a.type.nbytes, a.offset)
        return self.sub_bos[key]

    def run(self, inputs: dict[str, np.ndarray]):
        px, art = self.px, self.artifact
        if self.context is None:
            raise XrtError(f"{art.name}: the XRT backend was closed")
        to_dev = px.xclBOSyncDirection.XCL_BO_SYNC_BO_TO_DEVICE
        from_dev = px.xclBOSyncDirection.XCL_BO_SYNC_BO_FROM_DEVICE
        if self.bos is None:
            self.bos = self._buffers()
        bos = self.bos
        for name, bo in bos.items():
            data = inputs[name].tobytes() if name in inputs else bytes(art.buffers[name].nbytes)
            bo.write(data, 0)  # zero outputs and the trace buffer: "empty" must mean empty
            bo.sync(to_dev)
        for d in art.schedule:
            name = d.kernel
            args = [self._arg_bo(bos, a) for a in d.args]
            if self.full_elf:
                run = px.run(self.kernels[name])
                for i, bo in enumerate(args):
                    run.set_arg(i, bo)
                run.start()
                state = run.wait()
            else:
                instr_bo, n_words = self.instr[name]
                run = self.kernels[name](TXN_OPCODE, instr_bo, n_words, *args)
                state = run.wait()
            del run  # the command is done; only the context and the BOs outlive it
            if not _completed(px, state):
                raise XrtError(f"kernel {name!r} of {art.name} did not complete: {state}")
        outputs = {}
        for name in art.outputs:
            bos[name].sync(from_dev)
            outputs[name] = np.asarray(bos[name].read(art.buffers[name].nbytes, 0)).view(np.uint8).copy()
        trace = None
        if TRACE_BUFFER in bos:
            bos[TRACE_BUFFER].sync(from_dev)
            trace = (
                np.asarray(bos[TRACE_BUFFER].read(art.buffers[TRACE_BUFFER].nbytes, 0)).view(np.uint8).copy()
            )
        return outputs, trace

    def close(self) -> None:
        """Release the hardware context (and the kernels on it), then the BOs.

        Order matters: the device may still hold a BO's address in an active
        task (a trace drain task never completes) until its context is gone.
        """
        self.kernels.clear()  # pyxrt kernels keep their context alive: drop them first
        self.context = None
        self.instr.clear()
        self.sub_bos.clear()
        self.bos = None
