"""Firmware facts of the NPU transaction (TXN) binary, format v0.1.

The opcode numbers are Xilinx/mlir-aie ``include/aie/Runtime/TxnEncoding.h``
(``enum TxnOpcode``; checked at 027351e9 by ``iron/tests/test_txn.py``). aie-rt's
own ``xaie_txn.h`` numbers opcodes >= 5 differently on older branches; mlir-aie's
header is what the current firmware expects. The header layout is aie-rt's
``XAie_TxnHeader`` (``driver/src/global/xaiegbl.h``). Where each op's fields sit
in its words is declared with the op (:mod:`iron.mlir.txn_codec`).
"""

from __future__ import annotations

OPCODES: dict[str, int] = {
    "WRITE": 0,
    "BLOCKWRITE": 1,
    "BLOCKSET": 2,
    "MASKWRITE": 3,
    "MASKPOLL": 4,
    "NOOP": 5,
    "PREEMPT": 6,
    "MASKPOLL_BUSY": 7,
    "LOADPDI": 8,
    "LOAD_PM_START": 9,
    "CREATE_SCRATCHPAD": 10,
    "UPDATE_STATE_TABLE": 11,
    "UPDATE_REG": 12,
    "UPDATE_SCRATCH": 13,
    "CONFIG_SHIMDMA_BD": 14,
    "CONFIG_SHIMDMA_DMABUF_BD": 15,
    "TCT": 0x80,
    "DDR_PATCH": 0x81,
    "READ_REGS": 0x82,
    "RECORD_TIMER": 0x83,
    "MERGE_SYNC": 0x84,
    "LOAD_PM_END_INTERNAL": 200,
}
OPCODE_NAMES: dict[int, str] = {v: k for k, v in OPCODES.items()}

#: (major, minor) of the only format iron reads and writes.
VERSION = (0, 1)
#: Header size: byte 0 major, 1 minor, 2 device generation, 3 rows, 4 columns,
#: 5 memtile rows, 6-7 padding; word 2 op count, word 3 total bytes incl. header.
HEADER_WORDS = 4
#: Byte sizes a MASKWRITE/MASKPOLL op may declare: mlir-aie writes 28; aie-rt's
#: ``sizeof(XAie_MaskWrite32Hdr)`` is 32 (u64 alignment pads the 28-byte struct).
MASK_OP_SIZES = (28, 32)
#: DDR_PATCH action word: 0 = patch (the only action mlir-aie emits).
PATCH_ACTION = 0
