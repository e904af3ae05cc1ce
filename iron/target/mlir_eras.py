"""Op syntax per mlir-aie era: every form iron prints whose spelling changed between the
oldest mlir-aie iron supports and today's upstream, with the change that made it and a tiny
probe module in each spelling.

The oldest end is mlir-aie a9e39fae (2026-08-13, the era of the 1.4.2.dev wheels of August
2026; a real build of it is ``shared/tools/mlir-aie-a9e39fae.tar.xz``). Its source is the
andrej/mlir-aie mirror at commit a9e39faeb1447025b504ac10a28098fcdd467255. Today's end is the
text of the Xilinx/mlir-aie lit tests in ``iron/tests/data/upstream`` (SOURCES.md there names
each file's commit). Everything else iron prints (SSA npu ops since PR #3225, ``aie.device``
names ``npu1`` / ``npu1_Ncol`` / ``npu2_Ncol``, ``aie.shim_dma_allocation @s(%tile, MM2S, 0)``,
``aie.packet_flow``, ``aiex.configure`` / ``aiex.run``, ``memref.subview`` views,
``func.func private ... {link_with}``) is read alike by both ends: the real a9e39fae
``aie-opt`` verifies every module iron prints once the forms below are spelled its way
(``iron/tests/test_real_verify.py``).

An :class:`Era` is which spelling of each changed form an install reads. The printer
(:mod:`iron.mlir.printer`) prints the era it is handed (default :data:`TODAY`); the reader
reads every era (:mod:`iron.mlir.legacy` translates the older acquire). Which era an install
reads is asked of its own ``aie-opt`` with the probes (:func:`iron.builder.toolchain.era`).

:data:`RETIRED` lists spellings older than both ends (a foreign design written for an older
mlir-aie): neither end reads them, so :mod:`iron.mlir.legacy` rewrites each to the one form
both read when the design is read.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The mlir-aie commit of the oldest era iron prints for (andrej/mlir-aie, branch main history).
OLDEST_COMMIT = "a9e39faeb1447025b504ac10a28098fcdd467255"

_DESIGN = """module {{
  aie.device(npu1_1col) {{
    %tile_0_2 = aie.tile(0, 2)
    %tile_0_3 = aie.tile(0, 3)
    aie.objectfifo @of(%tile_0_2, {{%tile_0_3}}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
    %core_0_3 = aie.core(%tile_0_3) {{
{body}
      aie.objectfifo.release @of(Consume, 1)
      aie.end
    }}
  }}
}}
"""


@dataclass(frozen=True)
class Change:
    """One form whose spelling changed: ``old`` is how the older era spells it, ``new`` today's
    spelling; ``changed_by`` names the upstream change and where each spelling is written;
    ``probe_old`` / ``probe_new`` are modules that differ only in this form."""

    name: str
    old: str
    new: str
    changed_by: str
    probe_old: str
    probe_new: str


#: Every changed form, by name. The acquire: a9e39fae's ``ObjectFifoAcquireOp`` (AIEOps.td)
#: returns one ``!aie.objectfifosubview<memref<..>>`` opened by ``aie.objectfifo.subview.access``
#: (a9e39fae ``test/objectFifo-stateful-transform/access_patterns/AIE2_delayed_release.mlir``:
#: ``%subview = aie.objectfifo.acquire @fifo (Produce, 1) : !aie.objectfifosubview<memref<i32>>``);
#: mlir-aie PR #3553 ("Split ObjectFifo lowering into multiple passes and operations", merged
#: 2026-08-14, the day after a9e39fae) removed the subview: the acquire returns the memrefs
#: (Xilinx/mlir-aie ``test/parse-trace/test1/aie_test1.mlir`` @d44ca3e0:
#: ``%0 = aie.objectfifo.acquire @in(Consume, 1) : memref<...>``; amd/IRON #178 notes the removal).
CHANGES: dict[str, Change] = {
    "objectfifo.acquire": Change(
        name="objectfifo.acquire",
        old="%s = aie.objectfifo.acquire @of(Consume, 1) : !aie.objectfifosubview<memref<16xi32>>\n"
        "%a = aie.objectfifo.subview.access %s[0] : !aie.objectfifosubview<memref<16xi32>> -> memref<16xi32>",
        new="%a = aie.objectfifo.acquire @of(Consume, 1) : memref<16xi32>",
        changed_by="mlir-aie PR #3553 (merged 2026-08-14; a9e39fae of 2026-08-13 reads only the subview form)",
        probe_old=_DESIGN.format(
            body="      %s = aie.objectfifo.acquire @of(Consume, 1) : !aie.objectfifosubview<memref<16xi32>>\n"
            "      %a = aie.objectfifo.subview.access %s[0] : !aie.objectfifosubview<memref<16xi32>> -> memref<16xi32>"
        ),
        probe_new=_DESIGN.format(body="      %a = aie.objectfifo.acquire @of(Consume, 1) : memref<16xi32>"),
    ),
}


@dataclass(frozen=True)
class Era:
    """Which spelling of each changed form (:data:`CHANGES`) an mlir-aie reads: ``old`` names
    the forms it reads only in their older spelling (empty: today's upstream)."""

    old: frozenset = frozenset()

    def __post_init__(self):
        object.__setattr__(self, "old", frozenset(self.old))
        unknown = sorted(self.old - set(CHANGES))
        if unknown:
            raise ValueError(f"Era: unknown form(s) {unknown}; known: {sorted(CHANGES)}")

    def uses_old(self, name: str) -> bool:
        """True when this era spells form ``name`` (a key of :data:`CHANGES`) the older way."""
        if name not in CHANGES:
            raise KeyError(f"{name!r} is no changed form; known: {sorted(CHANGES)}")
        return name in self.old

    @property
    def label(self) -> str:
        """``"today"``, or the forms spelled the older way (``"old:objectfifo.acquire"``)."""
        return "today" if not self.old else "old:" + ",".join(sorted(self.old))


#: Today's upstream spelling of every form: what iron prints when no install says otherwise.
TODAY = Era()
#: The era of mlir-aie a9e39fae (every form in :data:`CHANGES` spelled the older way).
A9E39FAE = Era(frozenset(CHANGES))


@dataclass(frozen=True)
class Retired:
    """A spelling neither end reads any more (older than a9e39fae), with the one form both ends
    read; :func:`iron.mlir.legacy.translate` rewrites it when a foreign design is read, each
    rewrite reported as a ``LegacySyntaxWarning``. ``changed_by``: the upstream change (andrej/mlir-aie
    history, the commit that made the change in its own lit tests)."""

    name: str
    old: str
    new: str
    changed_by: str


#: Spellings older than both ends, translated on reading (key: the rule's name in iron.mlir.legacy).
RETIRED: dict[str, Retired] = {
    r.name: r
    for r in (
        Retired(
            "device npu1_4col",
            "aie.device(npu1_4col)",
            "aie.device(npu1)",
            "mlir-aie PR #2397 (3a3076baa, 2025-06-18) removed npu1_4col from AIEAttrs.td's AIEDevice; npu1 is "
            "the 4-column Phoenix",
        ),
        Retired(
            "objectfifo stream dimensions",
            "aie.objectfifo @f(%t toStream [...], {%c fromStream [...]}, ...)",
            "aie.objectfifo @f(%t dimensionsToStream [...], {%c dimensionsFromStream [...]}, ...)",
            "mlir-aie PR #1761 (ce58da34d, 2024-09-16) renamed the keywords in AIEDialect.cpp",
        ),
        Retired(
            "bundle Ctrl",
            'aie.packet_source<%t, "Ctrl" : 0>',
            "aie.packet_source<%t, TileControl : 0>",
            "mlir-aie PR #2010 (df46f74e0, 2025-01-10) renamed WireBundle::Ctrl to TileControl",
        ),
        Retired(
            "dma_bd positional",
            "aie.dma_bd(%b : memref<..>, 0, 128, [<size = 2, stride = 1>, <size = 3, stride = 2>])",
            "aie.dma_bd(%b : memref<..> offset = 0 len = 128 sizes = [2, 3] strides = [1, 2])",
            "mlir-aie PR #3306 (398f7f704, 2026-07-14), as its own diff of "
            "test/Targets/AIEGenerateXAIE/aie2_nd_DMA.mlir rewrites it",
        ),
        Retired(
            "trace host_config",
            "aie.trace.host_config buffer_size=65536 egress_shim_col=4",
            "aie.trace.host_config {buffer_size = 65536 : i32, egress_shim_col = 4 : i32}",
            "mlir-aie PR #3252 (aeebdbe0c, 2026-07-10) made its assembly format attr-dict "
            "(test/dialect/AIE/trace/test_insert_trace_flows.mlir)",
        ),
    )
}
