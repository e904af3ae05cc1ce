"""``aie.ir`` stand-in: ``Module.parse`` finds the ``aie.device`` and the constant-operand
``aiex.npu.write32`` ops of an MLIR text (both the attribute form and the SSA form with
``arith.constant`` operands), which is all the trace parser asks of a module."""

import re

_CONST = re.compile(r"(%[\w.$-]+)\s*=\s*arith\.constant\s+(-?\d+)\s*:")
_ATTR = re.compile(r"aiex\.npu\.write32\s*\{([^}]*)\}")
_SSA = re.compile(r"aiex\.npu\.write32\s*\(\s*(%[\w.$-]+)\s*,\s*(%[\w.$-]+)\s*\)(\s*\{[^}]*\})?")
_FIELD = re.compile(r"(\w+)\s*=\s*(-?\d+)")
_DEVICE = re.compile(r"aie\.device\s*\(\s*(\w+)\s*\)")


#: device names by the index ``int(device_op.device)`` gives (any order: only names are compared)
DEVICES: list = []


class _Device:
    def __init__(self, name):
        if name not in DEVICES:
            DEVICES.append(name)
        self.name = name

    def __int__(self):
        return DEVICES.index(self.name)


class Context:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Location(Context):
    @staticmethod
    def unknown():
        return Location()


class _Int:
    """An attribute or a constant operand: truthy whatever its value, as the bindings' objects are."""

    def __init__(self, value):
        self.value = value


class Op:
    def __init__(self, kind, **fields):
        self.kind = kind
        self.operation = self
        self.opview = self
        self.__dict__.update(fields)


class Module:
    def __init__(self, ops):
        self.operation = Op("module", ops=ops)

    @staticmethod
    def parse(text):
        consts = {name: int(v) for name, v in _CONST.findall(text)}
        ops = [Op("device", device=_Device(m.group(1))) for m in _DEVICE.finditer(text)]
        for m in _ATTR.finditer(text):
            f = {k: int(v) for k, v in _FIELD.findall(m.group(1))}
            ops.append(_write32(f.get("address"), f.get("value"), f.get("row"), f.get("column")))
        for m in _SSA.finditer(text):
            f = {k: int(v) for k, v in _FIELD.findall(m.group(3) or "")}
            ops.append(
                _write32(consts.get(m.group(1)), consts.get(m.group(2)), f.get("row"), f.get("column"))
            )
        return Module(ops)


def _write32(address, value, row, column):
    return Op(
        "write32",
        address=None if address is None else _Int(address),
        value=None if value is None else _Int(value),
        row=None if row is None else _Int(row),
        column=None if column is None else _Int(column),
    )
