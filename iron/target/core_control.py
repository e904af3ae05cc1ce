"""A compute tile's Core_Control register: how the runtime sequence stops, resets and restarts
its core.

Sources: mlir-aie a9e39faeb1447025b504ac10a28098fcdd467255
``lib/Dialect/AIE/Util/aie_registers_aie2.json`` (``Core_Control`` at ``0x32000``: ``Reset``
bit 1, ``Enable`` bit 0, reset value 0x2) and aie-rt ``driver/src/core/xaie_core.c``
(``XAie_CoreReset`` / ``XAie_CoreUnreset`` / ``XAie_CoreEnable``: one MaskWrite32 of a single
field each; ``AieMlCoreCtrlReg`` / ``Aie2CoreCtrlReg`` with the ``XAIEMLGBL_CORE_MODULE_CORE_CONTROL``
fields, the same offset and bits on AIE2P). What the bits do to a core, from mlir-aie
``test/npu-xrt/local_reset/core/README.md`` (a9e39fae, hardware-tested on npu1 and npu2):

* the configuration enables every core (``XAie_CoreEnable`` after unreset): Core_Control reads
  ``ENABLE`` while it runs;
* a core that reached ``aie.end`` is halted and "no longer enabled"; writing ``ENABLE`` alone
  does not re-run it (its program counter is past the end);
* ``RESET`` puts the program counter back to the start (data memory and locks keep their
  values) and holds the core; the core runs again once ``RESET`` is cleared with ``ENABLE`` set:
  "reset -> unreset -> enable re-runs the core", "reset without enable" leaves it halted.
"""

from __future__ import annotations

#: Tile-local offset of Core_Control (compute tiles).
CORE_CONTROL = 0x32000
#: Core_Control bits.
ENABLE = 1 << 0
RESET = 1 << 1
