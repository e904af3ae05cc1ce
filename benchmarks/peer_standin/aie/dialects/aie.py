"""``aie.dialects.aie`` stand-in: the device op, device enum and target model the trace
parser reads, and the two enums its events module imports."""

from enum import IntEnum

from aie.dialects.aiex import _Kind
from aie.ir import DEVICES


class DeviceOp(metaclass=_Kind):
    kind = "device"


class AIEDevice:
    """A device by index (``int(op.device)``) whose ``str`` names it, as the real enum's does."""

    def __init__(self, index):
        self.name = DEVICES[index]

    def __str__(self):
        return "AIEDevice." + self.name


class _TargetModel:
    def get_row_shift(self):
        return 20  # AIE2: tile address = col << 25 | row << 20 | offset

    def get_column_shift(self):
        return 25


def get_target_model(device):
    return _TargetModel()


WireBundle = IntEnum("WireBundle", "Core DMA FIFO South West North East PLIO NOC Trace Ctrl")
DMAChannelDir = IntEnum("DMAChannelDir", "S2MM MM2S", start=0)
