"""Object FIFOs, core bodies and cascade flows checked as mlir-aie checks them, before anything
is built (called by :func:`iron.mlir.check.check_device`); each refusal gives the upstream
reason (mlir-aie a9e39faeb1447025b504ac10a28098fcdd467255; MLIR's scf dialect):

* ``aie.objectfifo`` depth: ``elemNumber`` is an i32 "whose minimum value is 0" (a depth of 0
  holds no object: iron refuses it too); the objects of each non-shim end fit that tile's memory
  (``AIEAssignBuffers.cpp``: "allocated buffers exceeded available memory");
* ``aie.objectfifo.acquire`` / ``release`` sizes: an i32 "whose minimum value is 1"
  (``AIE.td``); at most the FIFO's depth (an acquire of more never completes: the hardware
  hangs; the stateful transform: "cannot release more elements than are already acquired");
* ``scf.for`` with a constant step: "constant step operand must be positive" (``SCFOps.cpp``);
* ``aie.cascade_flow``: "shimTile row has no cascade stream interface", "memTile row has no
  cascade stream interface", "tiles must be adjacent" (``CascadeFlowOp::verify``).
"""

from __future__ import annotations

import re

from iron.errors import IronError
from iron.mlir import body as b
from iron.mlir import ir
from iron.mlir.decl import NAME
from iron.mlir.reader import memref_type
from iron.target.geometry import CORE_DATA_MEMORY, MEMTILE_MEMORY, MEMTILE_ROW, SHIM_ROW

#: Largest value of an i32 attribute (an acquire / release size, a depth).
I32_MAX = (1 << 31) - 1
_RE_CASCADE = re.compile(rf"^aie\.cascade_flow\s*\(\s*%({NAME})\s*,\s*%({NAME})\s*\)")
_RE_CONST = re.compile(r"^-?\d+$")


def check_fifos(name: str, dev: ir.Device, tiles: dict, error: type[IronError]) -> None:
    """Raise ``error`` (naming the design ``name``) for the first refusal listed above."""
    fifos = {op.name: op for op in dev.body if isinstance(op, ir.ObjectFifo)}
    links = [
        lk for lk in (op if isinstance(op, ir.ObjectFifoLink) else _opaque_link(op) for op in dev.body) if lk
    ]
    for link in links:
        _check_link(name, link, fifos, error)
    reach = _reaches(links, fifos)
    for op in fifos.values():
        _check_depth(name, op, tiles, error)
        _check_patterns(name, op, reach.get(op.name, _numel(op)), error)
    for op in dev.body:
        if isinstance(op, ir.Core):
            _check_body(f"{name}: aie.core(%{op.tile})", op.body, fifos, {}, error)
        elif isinstance(op, ir.Opaque) and (m := _RE_CASCADE.match(op.text.strip())):
            _check_cascade(name, [tiles.get(t) for t in m.groups()], op.text.strip(), error)


def _check_depth(name: str, op: ir.ObjectFifo, tiles: dict, error) -> None:
    what = f"{name}: aie.objectfifo @{op.name}"
    if not isinstance(op.depth, int) or not 1 <= op.depth <= I32_MAX:
        raise error(
            f"{what}: depth {op.depth}; 'aie.objectfifo' op attribute 'elemNumber' failed to satisfy "
            "constraint: 32-bit signless integer attribute whose minimum value is 0 (mlir-aie's verifier); "
            f"accepted: 1 to {I32_MAX} objects"
        )
    typ = memref_type(op.type) if isinstance(op.type, str) else None
    if typ is None:
        return
    for end in (op.producer, *op.consumers):
        tile = tiles.get(end)
        if tile is None or tile.row == SHIM_ROW:
            continue
        memory = MEMTILE_MEMORY if tile.row == MEMTILE_ROW else CORE_DATA_MEMORY
        if op.depth * typ.nbytes > memory:
            raise error(
                f"{what}: depth {op.depth} x {typ.nbytes} bytes on aie.tile({tile.col}, {tile.row}) exceeds its "
                f"{memory} bytes (mlir-aie: 'allocated buffers exceeded available memory'); accepted: at most "
                f"{memory // max(typ.nbytes, 1)} objects of this type there"
            )


def _numel(op: ir.ObjectFifo | None) -> int | None:
    typ = memref_type(op.type) if op is not None and isinstance(op.type, str) else None
    return typ.numel if typ is not None else None


def _reaches(links: list, fifos: dict) -> dict[str, int]:
    """Elements a pattern of each distributed part may address: the memtile reads a part at its
    offset in the whole source object, so up to that object's end."""
    out = {}
    for lk in links:
        if len(lk.sources) == 1 and len(lk.dests) > 1 and lk.dest_offsets:
            whole = _numel(fifos.get(lk.sources[0]))
            for off, part in zip(lk.dest_offsets, lk.dests):
                if whole is not None:
                    out[part] = whole - off
    return out


def _check_patterns(name: str, op: ir.ObjectFifo, numel: int | None, error) -> None:
    """A ``dimensionsToStream`` / ``dimensionsFromStream`` pattern stays inside the memory it
    reads (``numel`` elements: its object, or the rest of a distributed source object): its
    largest index ``sum((size - 1) * stride)`` is below that (mlir-aie's ``getDimsMaxIdx``
    bound of ``ObjectFifoLinkOp::verify``: "out of bounds access")."""
    if numel is None:
        return
    for what, dims in (("dimensionsToStream", op.dims_to_stream), *(
        ("dimensionsFromStream", d) for d in op.dims_from_stream or ()
    )):  # fmt: skip
        top = sum((size - 1) * stride for size, stride in dims or ())
        if dims and (top >= numel or any(size < 1 or stride < 0 for size, stride in dims)):
            raise error(
                f"{name}: aie.objectfifo @{op.name}: {what} {list(dims)} reaches element {top} of the {numel} "
                "elements it reads (mlir-aie: 'stride(s) and size(s) result in out of bounds access'); accepted: "
                "sizes >= 1 and strides >= 0 whose largest index is inside the object"
            )


_RE_LINK = re.compile(
    r"^aie\.objectfifo\.link\s*\[([^\]]*)\]\s*->\s*\[([^\]]*)\]\s*\(\s*\[([^\]]*)\]\s*\[([^\]]*)\]\s*\)"
)


def _opaque_link(op) -> ir.ObjectFifoLink | None:
    """A link the reader kept as text (e.g. offsets on a one-to-one link), read for its offsets."""
    m = _RE_LINK.match(op.text.strip()) if isinstance(op, ir.Opaque) else None
    if m is None:
        return None
    names = [[n.strip().lstrip("@") for n in g.split(",") if n.strip()] for g in m.groups()[:2]]
    try:
        offsets = [tuple(int(v) for v in g.split(",") if v.strip()) for g in m.groups()[2:]]
    except ValueError:
        return None
    return ir.ObjectFifoLink(tuple(names[0]), tuple(names[1]), offsets[0], offsets[1])


def _check_link(name: str, op: ir.ObjectFifoLink, fifos: dict, error) -> None:
    """Each part of a distribute (join) lies inside the source (destination) object at its
    offset; offsets are i64 attributes. A forward (one to one) may change the object size
    (the stream carries it); only a non-zero offset on it is checked."""
    pairs = [(op.dest_offsets, op.dests, op.sources[0])] if op.dest_offsets and op.sources else []
    pairs += [(op.source_offsets, op.sources, op.dests[0])] if op.source_offsets and op.dests else []
    if len(op.sources) == len(op.dests) == 1:  # a forward: objects of other sizes stream through
        pairs = [(offs, parts, whole) for offs, parts, whole in pairs if any(offs)]
    for offsets, parts, whole in pairs:
        total = _numel(fifos.get(whole))
        for off, part in zip(offsets, parts):
            n = _numel(fifos.get(part))
            if not 0 <= off < 1 << 63 or (total is not None and n is not None and off + n > total):
                raise error(
                    f"{name}: aie.objectfifo.link offset {off} of @{part} ({n} elements) does not fit the "
                    f"{total} elements of @{whole}; accepted: 0 <= offset and offset + part <= the whole object"
                )


def _check_body(where: str, ops: list, fifos: dict, consts: dict, error) -> None:
    for op in ops:
        if isinstance(op, b.Constant) and op.results and _RE_CONST.match(str(op.value).strip()):
            consts[op.results[0]] = int(op.value)
        elif isinstance(op, (b.Acquire, b.Release)):
            _check_size(where, op, fifos, error)
        elif isinstance(op, b.For):
            step = consts.get(op.step.lstrip("%"), consts.get(op.step))
            if step is not None and step <= 0:
                raise error(
                    f"{where}: scf.for %{op.iv.lstrip('%')} has the constant step {step}; 'scf.for' op constant "
                    "step operand must be positive (MLIR's verifier); accepted: a step of 1 or more"
                )
        for region in ("body", "then", "orelse"):
            nested = getattr(op, region, None)
            if isinstance(nested, list):
                _check_body(where, nested, fifos, consts, error)


def _check_size(where: str, op, fifos: dict, error) -> None:
    kind = "acquire" if isinstance(op, b.Acquire) else "release"
    fifo = fifos.get(op.fifo)
    depth = fifo.depth if fifo is not None and isinstance(fifo.depth, int) else I32_MAX
    if not 1 <= op.size <= I32_MAX:
        raise error(
            f"{where}: aie.objectfifo.{kind} @{op.fifo}({op.port}, {op.size}): 'aie.objectfifo.{kind}' op "
            "attribute 'size' failed to satisfy constraint: 32-bit signless integer attribute whose minimum "
            f"value is 1 (mlir-aie's verifier); accepted: 1 to the FIFO's depth ({depth})"
        )
    if op.size > depth:
        raise error(
            f"{where}: aie.objectfifo.{kind} @{op.fifo}({op.port}, {op.size}): more objects than the FIFO's "
            f"depth {depth}" + (": the acquire never completes (the hardware hangs)" if kind == "acquire" else
                               ": mlir-aie: 'cannot release more elements than are already acquired'")
            + f"; accepted: 1 to {depth}"
        )  # fmt: skip


def _check_cascade(name: str, ends: list, text: str, error) -> None:
    if None in ends:
        return  # an undefined tile: check.py's tile() names it
    src, dst = ends
    for kind, row in (("shimTile", SHIM_ROW), ("memTile", MEMTILE_ROW)):
        if row in (src.row, dst.row):
            raise error(
                f"{name}: `{text}`: 'aie.cascade_flow' op {kind} row has no cascade stream interface "
                "(mlir-aie's verifier); accepted: two adjacent compute tiles"
            )
    if abs(src.col - dst.col) + abs(src.row - dst.row) != 1:
        raise error(f"{name}: `{text}`: 'aie.cascade_flow' op tiles must be adjacent (mlir-aie's verifier)")
