"""Materialize a fused module: each kernel's control code as one flat list of npu ops.

As mlir-aie's ``-aie-materialize-runtime-sequences``: every ``aiex.configure``
becomes an ``aiex.npu.load_pdi`` and every ``aiex.run`` is inlined with the
callee's arguments replaced by the caller's operands. iron additionally
translates the callee's numeric ``address_patch``es: ``arg_idx`` named the
callee's own argument, but the firmware resolves it against the *dispatched*
sequence, so it must become the caller's host-buffer index, with the window's
byte offset added to ``arg_plus``. Skipping that translation
(``translate_patches=False``) reproduces the original bug: the trace DMA then
patches whatever buffer sits at the operator's own index.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from iron.errors import IronError
from iron.fuse.fusion import FusedModule, Kernel
from iron.instrument import layout
from iron.lower import buffer_write, dma, dma_task
from iron.mlir import objectfifo
from iron.mlir.trace_ops import is_trace_op, strip_trace_ops
from iron.mlir import ir

_PASSTHROUGH = (ir.Write32, ir.MaskWrite32, ir.BlockWrite, ir.WriteBd, ir.Sync, ir.LoadPdi)


@dataclass(frozen=True)
class _Binding:
    index: int  # host-buffer index in the dispatched sequence
    offset: int  # bytes into that buffer
    type: ir.MemRefType


def kernel_ops(fm: FusedModule, kernel: Kernel, *, translate_patches: bool = True) -> list:
    """Flat npu ops of one kernel (starting with the PDI load of its first device)."""
    device = fm.module.device(kernel.device)
    sequence = device.sequence(kernel.sequence)
    if not any(isinstance(op, (ir.Configure, ir.Run)) for op in sequence.body):
        # A plain device sequence dispatched on its own (separate dispatch).
        identity = {a.name: _Binding(i, 0, a.type) for i, a in enumerate(sequence.args)}
        return [ir.LoadPdi(device.symbol)] + _inline(fm.module, device, sequence, identity, translate_patches)
    top = {a.name: _Binding(i, 0, a.type) for i, a in enumerate(sequence.args)}
    return _flatten(fm.module, sequence.body, top, translate_patches)


def materialize(fm: FusedModule, *, translate_patches: bool = True) -> ir.Module:
    """A copy of the module whose dispatched sequences hold their flat control code."""
    module = copy.deepcopy(fm.module)
    for kernel in fm.kernels:
        device = module.device(kernel.device)
        device.sequence(kernel.sequence).body = kernel_ops(fm, kernel, translate_patches=translate_patches)
        if not any(is_trace_op(op) for seq in device.sequences for op in seq.body):
            # A design's own aie.trace configuration that no sequence configures any more (an
            # untraced build skipped its host/start config): its declarations go too, since
            # mlir-aie's trace passes refuse aie.trace ops without an aie.trace.host_config.
            strip_trace_ops(device)
    return module


def sequence_ops(
    module: ir.Module,
    device: ir.Device,
    sequence: ir.RuntimeSequence,
    *,
    inline: bool,
    translate_patches=True,
) -> list:
    """Flat npu ops of ``sequence`` (of ``device``), its operands the sequence's own arguments:
    a sequence that is flat already is kept as it is; ``inline``: a device's own sequence,
    inlined without a PDI load; else its ``aiex.configure`` / ``aiex.run`` materialized as
    :func:`kernel_ops` does (the fake toolchain's aiebu lowers aiecc's input with this)."""
    env = {a.name: _Binding(i, 0, a.type) for i, a in enumerate(sequence.args)}
    if all(isinstance(op, (*_PASSTHROUGH, ir.AddressPatch)) for op in sequence.body):
        return list(sequence.body)
    if inline:
        return _inline(module, device, sequence, env, translate_patches)
    return _flatten(module, sequence.body, env, translate_patches)


def _flatten(module: ir.Module, body: list, env: dict[str, _Binding], translate: bool) -> list:
    out: list = []
    for op in body:
        if isinstance(op, ir.Configure):
            out.append(ir.LoadPdi(op.device))
            callee_device = module.device(op.device)
            local = dict(env)
            for inner in op.body:
                if isinstance(inner, ir.View):
                    local[inner.name] = _view(inner, local)
                elif isinstance(inner, ir.Run):
                    out += _run(module, callee_device, inner, local, translate)
                else:
                    raise IronError(
                        f"aiex.configure @{op.device}: unexpected {type(inner).__name__} in its body"
                    )
        elif isinstance(op, ir.View):
            env[op.name] = _view(op, env)
        elif isinstance(op, ir.Run):
            raise IronError(f"aiex.run @{op.sequence} outside an aiex.configure block")
        else:
            out.append(copy.deepcopy(op))
    return out


def _view(view: ir.View, env: dict[str, _Binding]) -> _Binding:
    src = _lookup(env, view.source)
    offset = view.offset * ir.ELEMENT_BYTES[src.type.dtype]
    if offset + view.type.nbytes > src.type.nbytes:
        raise IronError(
            f"window %{view.name} ({view.type} at byte {offset}) exceeds %{view.source} ({src.type})"
        )
    return _Binding(src.index, src.offset + offset, view.type)


def _run(module, device: ir.Device, run: ir.Run, env, translate: bool) -> list:
    callee = device.sequence(run.sequence)
    if len(run.args) != len(callee.args):
        raise IronError(
            f"aiex.run @{device.symbol}::@{callee.name}: {len(run.args)} operands for {len(callee.args)} arguments"
        )
    binding = {}
    for j, (name, arg) in enumerate(zip(run.args, callee.args)):
        b = _lookup(env, name)
        if b.type != arg.type:
            raise IronError(
                f"aiex.run @{device.symbol}::@{callee.name}: argument {j} type mismatch ({b.type} vs {arg.type})"
            )
        binding[arg.name] = b
    return _inline(module, device, callee, binding, translate)


def _inline(module, device: ir.Device, callee: ir.RuntimeSequence, binding, translate: bool) -> list:
    """The callee's body with its arguments bound to the caller's buffers (one rule per op type)."""
    inliner = _Inliner(module, device, callee, binding, translate)
    out: list = []
    for op in callee.body:
        rule = _INLINED.get(type(op))
        if rule is None:
            raise inliner.cannot(type(op).__name__)
        out += rule(inliner, op)
    return out


class _Inliner:
    """The state of inlining one callee: its bindings and its shim allocations (derived on first use)."""

    def __init__(self, module, device: ir.Device, callee: ir.RuntimeSequence, binding, translate: bool):
        self.module, self.device, self.callee = module, device, callee
        self.binding, self.translate = binding, translate
        self.where = f"@{device.symbol}::@{callee.name}"
        self._allocations = None  # derived once per inlined sequence, when it moves data
        foreign = _is_foreign(module, device)
        self.tasks = dma_task.TaskLowering(device, callee, self.allocations, self.resolve, foreign=foreign)
        self.writes = buffer_write.BufferWrites(device, callee, self.where)

    def resolve(self, name: str) -> tuple[int, int, ir.MemRefType]:
        return _as_tuple(_lookup(self.binding, name))

    def allocations(self) -> dict[str, ir.ShimDmaAllocation]:
        if self._allocations is None:
            self._allocations = objectfifo.shim_allocations(self.device)
        return self._allocations

    def cannot(self, text: str) -> IronError:
        return IronError(f"{self.where}: iron's built-in lowering cannot lower `{text}`")

    def keep(self, op) -> list:
        return [copy.deepcopy(op)]

    def patch(self, op: ir.AddressPatch) -> list:
        args = self.callee.args
        if not 0 <= op.arg_idx < len(args):
            raise IronError(
                f"{self.where}: address_patch arg_idx {op.arg_idx} but the sequence has {len(args)} arguments"
            )
        if self.translate:
            b = self.binding[args[op.arg_idx].name]
            op = ir.AddressPatch(op.addr, *layout.through_window(op.arg_plus, b.index, b.offset))
        return [copy.deepcopy(op)]

    def memcpy(self, op: ir.DmaMemcpyNd) -> list:
        alloc = _allocation(self.device, self.allocations(), op.metadata)
        controller = dma.shim_controller(self.device, alloc.column)
        return dma.lower_memcpy(op, alloc, self.resolve, controller=controller)

    def wait(self, op: ir.DmaWait) -> list:
        return [dma.lower_wait(op, _allocation(self.device, self.allocations(), op.symbol))]

    def configure(self, op: ir.Configure) -> list:
        return _flatten(self.module, [op], self.binding, self.translate)

    def dma_task(self, op: ir.Opaque) -> list:
        lowered = self.writes.lower(op)
        if lowered is None:
            lowered = self.tasks.lower(op)
        if lowered is None:
            raise self.cannot(op.text.splitlines()[0])
        return lowered


#: Op type -> rule(inliner, op) returning the op's flat npu ops, for the body of an inlined sequence.
_INLINED = {
    ir.AddressPatch: _Inliner.patch,
    ir.DmaMemcpyNd: _Inliner.memcpy,
    ir.DmaWait: _Inliner.wait,
    ir.Configure: _Inliner.configure,
    ir.Opaque: _Inliner.dma_task,  # DMA tasks, buffer-relative writes; any other opaque op needs aiecc
    **dict.fromkeys(_PASSTHROUGH, _Inliner.keep),
}


def _is_foreign(module, device: ir.Device) -> bool:
    # Set by iron.operators.foreign on the devices it reads: their sequences may hold ops that act on
    # core-tile state only aiecc can lower (rtp writes, locks), which sim does not model.
    return device.symbol in module.foreign


def _allocation(device: ir.Device, allocations: dict, symbol: str) -> ir.ShimDmaAllocation:
    try:
        return allocations[symbol]
    except KeyError:
        raise IronError(
            f"device @{device.symbol}: no object FIFO or aie.shim_dma_allocation @{symbol} with a shim end"
        ) from None


def _lookup(env, name: str) -> _Binding:
    try:
        return env[name]
    except KeyError:
        raise IronError(f"undefined value %{name}") from None


def _as_tuple(b: _Binding) -> tuple[int, int, ir.MemRefType]:
    return b.index, b.offset, b.type
