"""Lower flat npu register ops (iron.mlir.ir) to transaction ops (iron.lower.txn)."""

from __future__ import annotations

from iron.errors import IronError
from iron.lower import txn
from iron.mlir import ir
from iron.target import registers, shim_dma
from iron.target.geometry import SHIM_ROW

# writebd attributes that shim BDs do not have (memtile-only padding); must be 0.
_MEMTILE_ONLY = {f for f in ir.WRITEBD_FIELDS if "zero_" in f} | {"d2_size"}


def _address(address: int, column: int | None, row: int | None) -> int:
    """With column/row the address is tile-relative: mlir-aie keeps its low 20 bits."""
    if column is None and row is None:
        return address
    return registers.tile_address(column or 0, row or 0, address & registers.OFFSET_MASK)


def lower_op(op, pdi_ids: dict[str, int], arch: str) -> txn.TxnOp:
    """One npu op -> one transaction op. ``arch`` is "npu1" or "npu2" (BD burst encoding)."""
    if isinstance(op, ir.Write32):
        return txn.Write(_address(op.address, op.column, op.row), op.value)
    if isinstance(op, ir.MaskWrite32):
        return txn.MaskWrite(_address(op.address, op.column, op.row), op.value, op.mask)
    if isinstance(op, ir.BlockWrite):
        return txn.BlockWrite(
            _address(op.address, op.column, op.row), tuple(op.data), op.column or 0, op.row or 0
        )
    if isinstance(op, ir.WriteBd):
        if op["row"] != SHIM_ROW:
            raise IronError(
                f"aiex.npu.writebd at column {op['column']} row {op['row']}: iron lowers shim BDs (row 0) only"
            )
        # Like mlir-aie's writebd -> blockwrite pattern: address only, tile word 0.
        address = registers.tile_address(op["column"], SHIM_ROW, shim_dma.bd_address(op["bd_id"]))
        return txn.BlockWrite(address, bd_image(op, arch))
    if isinstance(op, ir.AddressPatch):
        return txn.DdrPatch(op.addr, op.arg_idx, op.arg_plus)
    if isinstance(op, ir.Sync):
        return txn.Sync(op.column, op.row, op.direction, op.channel, op.column_num, op.row_num)
    if isinstance(op, ir.LoadPdi):
        if op.device_ref not in pdi_ids:
            raise IronError(f"aiex.npu.load_pdi: no PDI for device @{op.device_ref}")
        return txn.LoadPdi(pdi_ids[op.device_ref])
    raise IronError(f"cannot lower {type(op).__name__} to the transaction binary (materialize first)")


def bd_image(op: ir.WriteBd, arch: str) -> tuple[int, ...]:
    """The 8-word shim BD image of a ``writebd``."""
    fields = {k: v for k, v in op.fields.items() if k not in ("bd_id", "column", "row")}
    extra = {k: v for k, v in fields.items() if k in _MEMTILE_ONLY and v}
    if extra:
        raise IronError(f"aiex.npu.writebd: shim BDs have no {', '.join(sorted(extra))}")
    fields = {k: v for k, v in fields.items() if k not in _MEMTILE_ONLY}
    return shim_dma.pack_bd(arch=arch, **fields)


def lower_ops(ops: list, pdi_ids: dict[str, int], arch: str) -> list[txn.TxnOp]:
    return [lower_op(op, pdi_ids, arch) for op in ops]
