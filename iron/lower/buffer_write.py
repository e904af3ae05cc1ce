"""``aiex.npu.write32`` / ``maskwrite32`` / ``blockwrite`` into a buffer (``{buffer = @b}``).

Their address counts 32-bit words from the start of buffer ``@b``; the register address is the
buffer's tile, its byte address (:mod:`iron.mlir.placement`, the same sim reads) and ``4 *`` the
offset, as mlir-aie's ``AIEDmaToNpu`` (``Write32SymToAddr``, ``MaskWrite32SymToAddr``,
``BlockWriteSymToAddr``) through ``getAbsoluteAddress`` (``lib/Dialect/AIEX/IR/AIEXDialect.cpp``,
andrej/mlir-aie a9e39faeb1447025b504ac10a28098fcdd467255) writes it:
``col << 25 | row << 20 | ((buffer address + 4 * offset) & 0xfffff)``. A blockwrite's data is a
``memref.global`` named through ``memref.get_global``; both ops are consumed here.
"""

from __future__ import annotations

import re

from iron.errors import IronError
from iron.limits import parse_int
from iron.mlir import ir, placement
from iron.mlir.decl import NAME
from iron.target.registers import OFFSET_MASK, tile_address

_RE_WRITE = re.compile(
    rf"^aiex\.npu\.(write32|maskwrite32)\s*\(([^()]*)\)\s*\{{\s*buffer\s*=\s*@({NAME})\s*\}}\s*:.*$", re.S
)
_RE_BLOCK = re.compile(
    rf"^aiex\.npu\.blockwrite\s*\(\s*%({NAME})\s*\)\s*\{{(?=[^}}]*\bbuffer\s*=\s*@({NAME}))"
    r"(?:[^}]*\baddress\s*=\s*(\w+)\s*:\s*ui32)?[^}]*\}\s*:.*$",
    re.S,
)
_RE_CONST = re.compile(rf"^%({NAME})\s*=\s*arith\.constant\s+(-?(?:0x[0-9a-fA-F]+|\d+))\s*:\s*\w+$")
_RE_GET = re.compile(rf"^%({NAME})\s*=\s*memref\.get_global\s+@({NAME})\s*:.*$")
_RE_GLOBAL = re.compile(
    rf'^memref\.global\s+"private"\s+(?:constant\s+)?@({NAME})\s*:\s*[^=]*=\s*dense<(.*)>$', re.S
)


class BufferWrites:
    """Lowers the buffer-relative writes of one inlined runtime sequence of ``device``."""

    def __init__(self, device: ir.Device, sequence: ir.RuntimeSequence, where: str):
        self.device, self.where = device, where
        self.consts: dict[str, int] = {}
        self.gets: dict[str, str] = {}
        for op in sequence.body:
            if isinstance(op, ir.Opaque) and (m := _RE_CONST.match(op.text.strip())):
                self.consts[m.group(1)] = parse_int(m.group(2)) & 0xFFFFFFFF
        self._placed: dict[str, placement.Placed] | None = None

    def lower(self, op: ir.Opaque) -> list | None:
        """The absolute npu op(s) for ``op``, ``[]`` for a get_global, None when it is neither."""
        text = " ".join(op.text.split())
        if m := _RE_GET.match(text):
            self.gets[m.group(1)] = m.group(2)
            return []
        if m := _RE_WRITE.match(text):
            operands = [self._const(o.strip(), text) for o in m.group(2).split(",")]
            if len(operands) != (2 if m.group(1) == "write32" else 3):
                raise IronError(f"{self.where}: `{text}`: expected {m.group(1)}'s operands")
            address = self._address(m.group(3), operands[0], text)
            if m.group(1) == "write32":
                return [ir.Write32(address, operands[1])]
            return [ir.MaskWrite32(address, operands[1], operands[2])]
        if m := _RE_BLOCK.match(text):
            data, buffer, offset = m.group(1), m.group(2), parse_int(m.group(3) or "0")
            return [ir.BlockWrite(self._address(buffer, offset, text), self._data(data, text))]
        return None

    def _const(self, operand: str, text: str) -> int:
        value = self.consts.get(operand.lstrip("%"))
        if value is None:
            raise IronError(f"{self.where}: `{text}`: operand {operand} is not an arith.constant")
        return value

    def _address(self, symbol: str, words: int, text: str) -> int:
        if self._placed is None:
            self._placed = {p.symbol: p for p in placement.place(self.device).values()}
        buffer = self._placed.get(symbol)
        if buffer is None:
            raise IronError(
                f"{self.where}: `{text}`: buffer @{symbol} is not an aie.buffer of a core or memtile; "
                f"accepted: {sorted(self._placed)}"
            )
        return tile_address(buffer.col, buffer.row, (buffer.address + 4 * words) & OFFSET_MASK)

    def _data(self, value: str, text: str) -> tuple[int, ...]:
        symbol = self.gets.get(value)
        for op in self.device.body:
            if isinstance(op, ir.MemrefGlobal) and op.symbol == symbol:
                return tuple(op.values)
            if (
                isinstance(op, ir.Opaque)
                and (m := _RE_GLOBAL.match(op.text.strip()))
                and m.group(1) == symbol
            ):
                return tuple(parse_int(v) for v in re.split(r"[\s,\[\]]+", m.group(2)) if v)
        raise IronError(f"{self.where}: `{text}`: %{value} is no memref.get_global of a memref.global")
