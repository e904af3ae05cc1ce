"""The event enums, made from iron's table of mlir-aie's event database
(iron/target/events.py names its source; the generated enums hold the same)."""

import sys
from enum import IntEnum
from pathlib import Path

sys.path.insert(0, (Path(__file__).parents[2] / "iron_root.txt").read_text())
from iron.target.events import event_table  # noqa: E402

sys.path.pop(0)


def _enum(name, kind, arch):
    return IntEnum(name, dict(sorted(event_table(kind, arch).items(), key=lambda kv: kv[1])))


CoreEventAIE = CoreEventAIE2 = _enum("CoreEventAIE2", "core", "aie2")
CoreEventAIE2P = _enum("CoreEventAIE2P", "core", "aie2p")
MemEventAIE = MemEventAIE2 = _enum("MemEventAIE2", "mem", "aie2")
MemEventAIE2P = _enum("MemEventAIE2P", "mem", "aie2p")
MemTileEventAIE2 = _enum("MemTileEventAIE2", "memtile", "aie2")
MemTileEventAIE2P = _enum("MemTileEventAIE2P", "memtile", "aie2p")
ShimTileEventAIE = ShimTileEventAIE2 = _enum("ShimTileEventAIE2", "shim", "aie2")
ShimTileEventAIE2P = _enum("ShimTileEventAIE2P", "shim", "aie2p")
