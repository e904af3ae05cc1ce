"""Trace configuration read from an mlir-aie MLIR file (drop-in for its parse.py).

mlir-aie's ``parse_mlir_trace_events`` reads the ``aiex.npu.write32`` ops of the
runtime sequences: Trace_Event0/1 give the 8 slot events of a unit; the unit's
kind comes from the register offset (the core and shim modules share offsets
and are told apart by row 0). Column and row come from the op's attributes or
from the address bits. Units appear in the order of their first Trace_Event
write, which fixes the ``pid`` order of its JSON output. iron also reads
Trace_Control0/1 (start/stop events, packet id) when present.

Differences from mlir-aie, on inputs it cannot handle: the register offset is
always taken from the low 20 address bits; a missing column or row is filled
from the address.
"""

from __future__ import annotations

from iron.errors import IronError
from iron.mlir.names import DEFAULT_DEVICE, DEFAULT_SEQUENCE
from iron.mlir.trace_config import scan
from iron.target import geometry
from iron.target.events import PACKET_TYPE, event_name
from iron.target.registers import TRACE_REGISTERS, split_address, unpack_trace_control0, unpack_trace_control1
from iron.target.trace_unit import SLOTS
from iron.artifact.manifest import Manifest, Slice, TraceUnit, kernel_name

# The full reader (iron.mlir.reader, iron.mlir.ir) and the modules built on it are imported
# where a module needs them: a lowered single-device module (what mlir-aie's parser reads)
# is read by iron.mlir.trace_config's scan, and a small decode then never loads the IR.

SLOT_FIELD_MASK = 0xFF  # mlir-aie keeps whole bytes (memtile ids go beyond 127)


class MlirConfigError(IronError):
    """The MLIR file holds no usable trace configuration."""


def _register_kind(offset: int, row: int) -> tuple[str, str] | None:
    """(kind, register name) of a trace register write, else None."""
    for kind, regs in TRACE_REGISTERS.items():
        if (kind == "shim") != (row == 0) and kind in ("core", "shim"):
            continue
        for name in ("trace_event0", "trace_event1", "trace_control0", "trace_control1"):
            if getattr(regs, name) == offset:
                return kind, name
    return None


def units_from_module(module: ir.Module, device: str | None = None) -> list[TraceUnit]:
    """Traced units of ``module`` (of the device with symbol ``device`` if given,
    else of every device), in first Trace_Event write order; units that only a
    declarative ``aie.trace`` op configures follow in op order."""
    from iron.instrument.declarative import declared_units
    from iron.mlir import ir

    devices = module.devices if device is None else [d for d in module.devices if d.symbol == device]
    writes = [
        (op.address, op.value, op.column, op.row)
        for dev in devices
        for seq in dev.sequences
        for op in ir.walk(seq.body)
        if isinstance(op, ir.Write32)
    ]
    arch = _arch([d.target for d in devices])
    units = units_from_writes(writes, arch)
    seen = {(u.kind, u.column, u.row) for u in units}
    for dev in devices:
        for u in declared_units(dev, arch):
            if (u.kind, u.column, u.row) not in seen:
                seen.add((u.kind, u.column, u.row))
                units.append(u)
    return units


def units_from_writes(writes, arch: str) -> list[TraceUnit]:
    """Traced units of register writes ``(address, value, column, row)`` (column and row
    None: from the address), in first Trace_Event write order."""
    slots: dict[tuple[str, int, int], list[int]] = {}
    control: dict[tuple[str, int, int], dict] = {}
    for address, value, column, row in writes:
        acol, arow, offset = split_address(address)
        col = column if column is not None else acol & 0x1F
        row = row if row is not None else arow
        hit = _register_kind(offset, row)
        if hit is None:
            continue
        kind, reg = hit
        key = (kind, col, row)
        if reg in ("trace_event0", "trace_event1"):
            ids = slots.setdefault(key, [0] * SLOTS)
            per_register = SLOTS // 2  # Trace_Event0 holds slots 0-3, Trace_Event1 4-7
            base = 0 if reg == "trace_event0" else per_register
            for i in range(per_register):
                ids[base + i] = (value >> (8 * i)) & SLOT_FIELD_MASK
        elif reg == "trace_control0":
            control.setdefault(key, {}).update(unpack_trace_control0(value, kind))
        else:
            control.setdefault(key, {}).update(unpack_trace_control1(value))
    units = []
    for (kind, col, row), ids in slots.items():
        ctl = control.get((kind, col, row), {})
        units.append(
            TraceUnit(
                column=col,
                row=row,
                kind=kind,
                packet_type=PACKET_TYPE[kind],
                packet_id=ctl.get("packet_id", 0),
                events=[event_name(kind, e, arch) for e in ids],
                event_ids=list(ids),
                start_event=ctl.get("start", 0),
                stop_event=ctl.get("stop", 0),
                mode=ctl.get("mode", 0),
            )
        )
    return units


def _arch(targets: list[str]) -> str:
    """Event table of the devices' generation (aie2 unless every device is npu2)."""
    try:
        arches = {geometry.target_for_device(t).arch for t in targets}
    except IronError:
        return "aie2"
    return arches.pop() if len(arches) == 1 else "aie2"


def units_from_mlir(text: str, filename: str | None = None) -> list[TraceUnit]:
    from iron.mlir import reader

    return units_from_module(reader.parse(text, filename))


def manifest_from_mlir(text: str, total_size: int, filename: str | None = None) -> Manifest:
    """A :class:`Manifest` configured from the MLIR's trace register writes and
    declarative ``aie.trace`` ops.

    A runtime sequence with upstream's ``trace_slices`` attribute (fused trace,
    :mod:`iron.trace.upstream_slices`) gives one slice per entry, each with the
    units of its own device; otherwise one slice covers the whole buffer
    (``total_size`` bytes) with the units of every device.

    ``total_size`` is the size of the captured argument. Upstream's
    ``#aie.trace_buffer<arg_index, offset, size, ...>`` on that sequence says the
    trace region starts ``offset`` bytes into the argument (``reuse_output_buffer``
    puts it after the output data): every slice is placed from there (the
    ``trace_slices`` offsets count from the region's start), so a capture of
    the whole argument is decoded from the right byte.
    """
    lowered = _lowered_manifest(text, total_size)
    if lowered is not None:
        return lowered
    from iron.mlir import reader

    module = reader.parse(text, filename)
    where = filename or "MLIR input"
    device = module.devices[0] if module.devices else None
    target, columns = _target(device.target if device else "npu1")
    region = _trace_region(module, where)
    base = region.offset if region is not None else 0
    arg_index = region.arg_index if region is not None else -1
    fused = _fused_sequence(module, where)
    if fused is not None:
        dev, seq, entries = fused
        slices = _fused_slices(module, entries, base, kernel_name(dev, seq))
        if not any(s.units for s in slices):
            raise MlirConfigError(f"{where}: no device named in trace_slices configures a trace unit")
        end = base + max(e.offset + e.size for e in entries)
        return _manifest(target, columns, kernel_name(dev, seq), arg_index, max(int(total_size), end), slices)
    units = units_from_module(module)
    if not units:
        raise MlirConfigError(
            f"{where}: no aiex.npu.write32 to a Trace_Event0/1 register (0x340E0/4, 0x140E0/4, 0x940E0/4) "
            "and no aie.trace op: nothing is traced (use the lowered MLIR with constant write32 operands)"
        )
    seq = device.sequences[0].name if device and device.sequences else DEFAULT_SEQUENCE
    dev = (device.symbol or DEFAULT_DEVICE) if device else DEFAULT_DEVICE
    size = region.size if region is not None else max(int(total_size) - base, 0)
    slices = [Slice(0, "mlir-aie", 0, dev, seq, base, size, units, kernel_name(dev, seq), arg_index)]
    return _manifest(
        target, columns, kernel_name(dev, seq), arg_index, max(int(total_size), base + size), slices
    )


def _lowered_manifest(text: str, total_size: int) -> Manifest | None:
    """The manifest of a lowered single-device module, read by its register writes
    without the IR; None when ``text`` is not one or configures no unit that way
    (then the full reader answers: declared units, or its error)."""
    lowered = scan(text)
    if lowered is None:
        return None
    units = units_from_writes(lowered.writes, _arch([lowered.target]))
    if not units:
        return None
    target, columns = _target(lowered.target)
    dev, seq = lowered.device, lowered.sequence
    size = max(int(total_size), 0)
    slices = [Slice(0, "mlir-aie", 0, dev, seq, 0, size, units, kernel_name(dev, seq), -1)]
    return _manifest(target, columns, kernel_name(dev, seq), -1, size, slices)


def _fused_slices(module: ir.Module, entries, base: int, kernel: str) -> list[Slice]:
    """One slice per ``trace_slices`` entry of the fused sequence ``kernel``, each with the
    units of its own device, placed ``base`` bytes into the argument."""
    slices = []
    for i, e in enumerate(entries):
        units = units_from_module(module, e.device)
        call = sum(1 for p in entries[:i] if (p.device, p.sequence) == (e.device, e.sequence))
        slices.append(
            Slice(
                i,
                kernel_name(e.device, e.sequence),
                call,
                e.device,
                e.sequence,
                base + e.offset,
                e.size,
                units,
                kernel,
                -1,
                i,
            )
        )
    return slices


def _target(name: str):
    """(target, columns) of a device name; npu1 with one column for a name iron does not know."""
    try:
        return geometry.target_for_device(name), geometry.device_columns(name)
    except IronError:
        return geometry.get_target("npu1"), 1


def _manifest(target, columns: int, kernel: str, arg_index: int, total: int, slices) -> Manifest:
    """A manifest for foreign MLIR: iron's column offset 0 (columns align to the data)."""
    return Manifest(
        target=target.name,
        columns=columns,
        column_offset=0,
        clock_mhz=target.clock_mhz,
        kernel=kernel,
        trace_arg_index=arg_index,
        total_size=total,
        slices=slices,
    )


def _trace_region(module: ir.Module, where: str):
    """The ``#aie.trace_buffer`` of the dispatched sequence: the one with
    ``trace_slices`` when there is one (its callees carry their own, which a
    capture of the fused buffer does not use), else the first sequence that
    has the attribute; None when absent."""
    from iron.trace.upstream_slices import trace_buffer, trace_slices

    first = None
    for dev in module.devices:
        for seq in dev.sequences:
            tb = trace_buffer(seq.attributes, f"{where}: @{seq.name}")
            if trace_slices(seq.attributes, f"{where}: @{seq.name}"):
                return tb
            first = first or tb
    return first


def _fused_sequence(module: ir.Module, where: str):
    """(device, sequence, slices) of the first runtime sequence with ``trace_slices``, else None."""
    from iron.trace.upstream_slices import trace_slices

    for dev in module.devices:
        for seq in dev.sequences:
            entries = trace_slices(seq.attributes, f"{where}: @{seq.name}")
            if entries:
                known = {d.symbol for d in module.devices}
                for e in entries:
                    if e.device not in known:
                        raise MlirConfigError(
                            f"{where}: trace_slices names device {e.device!r}, which the module does not "
                            f"define (devices: {', '.join(sorted(known))})"
                        )
                return dev.symbol or DEFAULT_DEVICE, seq.name, entries
    return None
