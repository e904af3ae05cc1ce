"""Lower flat npu register ops (iron.mlir.ir) to transaction ops (iron.mlir.txn_codec).

One lowering rule per op type (:data:`RULES`). ``aiex.npu.sync`` and
``aiex.npu.address_patch`` are transaction ops as they stand (TCT, DDR_PATCH).
"""

from __future__ import annotations

from iron.errors import IronError
from iron.mlir import ir, txn_codec
from iron.target import registers, shim_dma, tile_dma
from iron.target.geometry import SHIM_ROW

# writebd attributes that shim BDs do not have (memtile-only padding); must be 0.
_MEMTILE_ONLY = {f for f in ir.WRITEBD_FIELDS if "zero_" in f} | {"d2_size"}


def _address(op) -> int:
    """With column/row the address is tile-relative: mlir-aie keeps its low 20 bits."""
    if op.column is None and op.row is None:
        return op.address
    return registers.tile_address(op.column or 0, op.row or 0, op.address & registers.OFFSET_MASK)


def _writebd(op: ir.WriteBd, pdi_ids, arch: str) -> txn_codec.BlockWrite:
    # Like mlir-aie's writebd -> blockwrite pattern: the BD's word 0 address, every word of
    # the tile kind's BD (8 shim / memtile, 6 compute tile; iron.target.tile_dma).
    col, row = op["column"], op["row"]
    try:
        if row == SHIM_ROW:
            return txn_codec.BlockWrite(
                registers.tile_address(col, row, shim_dma.bd_address(op["bd_id"])), bd_image(op, arch)
            )
        kind = tile_dma.kind_of_row(row)
        fields = {k: v for k, v in op.fields.items() if k not in ("bd_id", "column", "row")}
        if kind is tile_dma.MEMTILE:  # as mlir-aie's writebd lowering, which leaves them out
            fields = {k: v for k, v in fields.items() if k not in tile_dma.MEMTILE_UNWRITTEN}
        words = tile_dma.pack_bd(kind, **fields)
        return txn_codec.BlockWrite(
            registers.tile_address(col, row, tile_dma.bd_address(kind, op["bd_id"])), words
        )
    except IronError as exc:
        raise IronError(f"aiex.npu.writebd at column {col} row {row} (BD {op['bd_id']}): {exc}") from None


def _load_pdi(op: ir.LoadPdi, pdi_ids: dict[str, int], arch: str) -> txn_codec.LoadPdi:
    if op.device_ref not in pdi_ids:
        raise IronError(f"aiex.npu.load_pdi: no PDI for device @{op.device_ref}")
    return txn_codec.LoadPdi(pdi_ids[op.device_ref])


#: npu op type -> rule(op, pdi_ids, arch) returning its transaction op.
RULES = {
    ir.Write32: lambda op, _p, _a: txn_codec.Write(_address(op), op.value),
    ir.MaskWrite32: lambda op, _p, _a: txn_codec.MaskWrite(_address(op), op.value, op.mask),
    ir.BlockWrite: lambda op, _p, _a: txn_codec.BlockWrite(
        _address(op), tuple(op.data), op.column or 0, op.row or 0
    ),
    ir.WriteBd: _writebd,
    ir.AddressPatch: lambda op, _p, _a: op,
    ir.Sync: lambda op, _p, _a: op,
    ir.LoadPdi: _load_pdi,
}


def lower_op(op, pdi_ids: dict[str, int], arch: str) -> txn_codec.TxnOp:
    """One npu op -> one transaction op. ``arch`` is "npu1" or "npu2" (BD burst encoding)."""
    rule = RULES.get(type(op))
    if rule is None:
        raise IronError(f"cannot lower {type(op).__name__} to the transaction binary (materialize first)")
    return rule(op, pdi_ids, arch)


def bd_image(op: ir.WriteBd, arch: str) -> tuple[int, ...]:
    """The 8-word shim BD image of a ``writebd``."""
    fields = {k: v for k, v in op.fields.items() if k not in ("bd_id", "column", "row")}
    extra = {k: v for k, v in fields.items() if k in _MEMTILE_ONLY and v}
    if extra:
        raise IronError(f"aiex.npu.writebd: shim BDs have no {', '.join(sorted(extra))}")
    fields = {k: v for k, v in fields.items() if k not in _MEMTILE_ONLY}
    return shim_dma.pack_bd(arch=arch, **fields)


def lower_ops(ops: list, pdi_ids: dict[str, int], arch: str) -> list[txn_codec.TxnOp]:
    return [lower_op(op, pdi_ids, arch) for op in ops]
