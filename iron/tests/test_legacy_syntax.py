"""Old mlir-aie syntax in foreign designs (iron.mlir.legacy): the `!aie.objectfifosubview`
acquire translated to today's acquire returning the memrefs, everything else without a
one-to-one form refused with the line. Expected texts are written by hand from the
stored upstream files (iron/tests/data/designs/SOURCES.md) and today's form in mlir-aie's
lit tests (`%1, %2 = aie.objectfifo.acquire @of (Consume, 2) : memref<16xi32>, memref<16xi32>`,
test/objectFifo-stateful-transform/access_patterns/AIE2_single_multiple_release.mlir)."""

from __future__ import annotations

from pathlib import Path

import pytest

import iron
from iron.target.mlir_eras import RETIRED
from iron.mlir.legacy import LegacySyntaxError, LegacySyntaxWarning, translate
from iron.tests.test_artifact import fake_aiecc  # noqa: F401  (the recording fake aiecc)

DATA = Path(__file__).parent / "data"
EVENT_TRACE = DATA / "designs" / "mlir-aie__programming_examples__basic__event_trace__aie_trace.mlir"
FULL_ELF = DATA / "corpus" / "mlir-aie__test__npu-xrt__full_elf_event_trace__aie.mlir"


def test_event_trace_core_in_todays_form():
    text = EVENT_TRACE.read_text()
    new, notes = translate(text, "ev.mlir")
    lines, old = new.split("\n"), text.split("\n")
    assert len(lines) == len(old) and "objectfifosubview" not in new and "subview.access" not in new
    # lines 49/50, 55/56, 57/58 of the file: acquire + access pairs (read by eye)
    assert lines[48].strip() == "%1 = aie.objectfifo.acquire @infactor_fwd(Consume, 1) : memref<1xi32>"
    assert lines[54].strip() == "%3 = aie.objectfifo.acquire @out(Produce, 1) : memref<1024xi32>"
    assert lines[56].strip() == "%5 = aie.objectfifo.acquire @in_fwd(Consume, 1) : memref<1024xi32>"
    assert lines[49] == lines[55] == lines[57] == ""
    assert [n.where for n in notes if "objectfifo.acquire" in n.new] == [
        "ev.mlir:49",
        "ev.mlir:55",
        "ev.mlir:57",
    ]
    # the retired spellings the file also has (test_retired_spellings_are_rewritten_as_upstream_did)
    retired = {int(n.where.split(":")[1]) - 1 for n in notes if "objectfifo.acquire" not in n.new}
    assert retired and all("aie.dma_bd(" in lines[i] or "host_config {" in lines[i] for i in retired)
    unchanged = [i for i in range(len(old)) if i not in (48, 49, 54, 55, 56, 57) and i not in retired]
    assert [lines[i] for i in unchanged] == [old[i] for i in unchanged]


#: (old, new) line pairs from the upstream change that retired each spelling (andrej/mlir-aie
#: history; each commit's own diff of the named lit test, "// CHECK: " prefixes dropped).
RETIRED_PAIRS = {
    "device npu1_4col": ("  aie.device(npu1_4col) {", "  aie.device(npu1) {"),  # 3a3076baa (PR #2397)
    "objectfifo stream dimensions": (  # ce58da34d (PR #1761), test/dialect/AIE/roundtrip.mlir
        "aie.objectfifo @obj2(%[[TILE_0_1]] toStream [<size = 8, stride = 4>, <size = 32, stride = 32>, "
        "<size = 4, stride = 1>], {%[[TILE_0_2]], %[[TILE_0_3]]}, 4 : i32) : !aie.objectfifo<memref<1024xi32, 1>>",
        "aie.objectfifo @obj2(%[[TILE_0_1]] dimensionsToStream [<size = 8, stride = 4>, <size = 32, stride = 32>, "
        "<size = 4, stride = 1>], {%[[TILE_0_2]], %[[TILE_0_3]]}, 4 : i32) : !aie.objectfifo<memref<1024xi32, 1>>",
    ),
    "bundle Ctrl": (
        "    aie.packet_dest<%02, Ctrl : 0>",
        "    aie.packet_dest<%02, TileControl : 0>",
    ),  # df46f74e0
    "dma_bd positional": (  # 398f7f704 (PR #3306), test/Targets/AIEGenerateXAIE/aie2_nd_DMA.mlir
        "      aie.dma_bd(%buf01_0 : memref<16xi32>, 0, 128, [<size = 2, stride = 1>, <size = 3, stride = 2>, "
        "<size = 2, stride = 4>, <size = 1, stride = 1>])",
        "      aie.dma_bd(%buf01_0 : memref<16xi32> offset = 0 len = 128 sizes = [2, 3, 2, 1] strides = [1, 2, 4, 1])",
    ),
    "trace host_config": (  # aeebdbe0c (PR #3252), test/dialect/AIE/trace
        "      aie.trace.host_config buffer_size = 65536",
        "      aie.trace.host_config {buffer_size = 65536 : i32}",
    ),
}


@pytest.mark.parametrize("name", sorted(RETIRED))
def test_retired_spellings_are_rewritten_as_upstream_did(name):
    old, new = RETIRED_PAIRS[name]
    got, notes = translate(old, "r.mlir")
    assert got == new and [(n.where, n.old, n.new) for n in notes] == [("r.mlir:1", old.strip(), new.strip())]
    assert translate(new, "r.mlir") == (new, [])  # today's spelling is left alone


def test_a_retired_spelling_without_one_modern_form_is_refused():
    with pytest.raises(LegacySyntaxError, match=r"r\.mlir:1: .*padding dimensions .*PR #3306"):
        translate(
            "aie.dma_bd(%b : memref<16xi32>, 0, 16, [<size = 16, stride = 1>], [<const_pad_before = 1>])",
            "r.mlir",
        )


def test_full_elf_event_trace_core_in_todays_form():
    new, notes = translate(FULL_ELF.read_text(), "f.mlir")
    assert "%ei = aie.objectfifo.acquire @of_in(Consume, 1) : memref<64xi32>" in new
    assert "%eo = aie.objectfifo.acquire @of_out(Produce, 1) : memref<64xi32>" in new
    assert len(notes) == 2 and "objectfifosubview" not in new


CORE = """aie.core(%t) {
  %s = aie.objectfifo.acquire @of(Consume, 3) : !aie.objectfifosubview<memref<16xi32>>
  %a = aie.objectfifo.subview.access %s[0] : !aie.objectfifosubview<memref<16xi32>> -> memref<16xi32>
  %b = aie.objectfifo.subview.access %s[2] : !aie.objectfifosubview<memref<16xi32>> -> memref<16xi32>
  %c = aie.objectfifo.subview.access %s[0] : !aie.objectfifosubview<memref<16xi32>> -> memref<16xi32>
  func.call @f(%a, %b, %c) : (memref<16xi32>, memref<16xi32>, memref<16xi32>) -> ()
  aie.objectfifo.release @of(Consume, 3)
  aie.end
}"""


def test_several_elements_a_repeated_access_and_an_unused_one():
    new, notes = translate(CORE, "c.mlir")
    assert new.split("\n") == [
        "aie.core(%t) {",
        "  %a, %s_1, %b = aie.objectfifo.acquire @of(Consume, 3) : memref<16xi32>, memref<16xi32>, memref<16xi32>",
        "", "", "",
        "  func.call @f(%a, %b, %a) : (memref<16xi32>, memref<16xi32>, memref<16xi32>) -> ()",
        "  aie.objectfifo.release @of(Consume, 3)",
        "  aie.end",
        "}",
    ]  # fmt: skip
    assert str(notes[0]).startswith("c.mlir:2: translated `%s = aie.objectfifo.acquire @of(Consume, 3)")


def test_a_name_defined_again_ends_the_subview():
    # a second core acquiring into %s again: its use of %s is checked against its own acquire
    two = CORE + "\n" + CORE.replace("@f(%a, %b, %c)", "@g(%s)")
    with pytest.raises(LegacySyntaxError, match=r"c\.mlir:15: `func\.call @g\(%s\).*\(line 11\)"):
        translate(two, "c.mlir")
    other = "%s = arith.constant 0 : index\n  %v = arith.addi %s, %s : index"
    new, _ = translate(CORE + "\n" + other, "c.mlir")
    assert new.endswith(other)  # %s here is a new value, not the subview


@pytest.mark.parametrize(
    "edit, needle",
    [
        (lambda t: t.replace("@f(%a, %b, %c)", "@f(%s)"),
         r"c\.mlir:6: `func\.call @f\(%s\).*uses %s, an `!aie\.objectfifosubview` \(line 2\); today's acquire "
         r"returns the memrefs themselves"),
        (lambda t: t.replace("%s[2]", "%s[3]"),
         r"c\.mlir:4: .* does not match its acquire \(line 2: 3 x memref<16xi32>\)"),
        (lambda t: t.replace("aie.core(%t) {", "func.func @k(%x: !aie.objectfifosubview<memref<16xi32>>) {"),
         r"c\.mlir:1: .*the `!aie\.objectfifosubview` type no longer exists"),
        (lambda t: "AIE.device(xcvc1902) {\n" + t, r"c\.mlir:1: `AIE\.device`: the capitalised AIE/AIEX dialects"),
        (lambda t: t + "\naiex.ipu.sync {column = 0 : i32}", r"c\.mlir:10: `aiex\.ipu\.sync`: .* renamed `aiex\.npu\.`"),
    ],
)  # fmt: skip
def test_forms_without_a_modern_equivalent_are_refused_with_the_line(edit, needle):
    with pytest.raises(LegacySyntaxError, match=needle):
        translate(edit(CORE), "c.mlir")


def test_todays_text_is_untouched():
    text = (DATA / "upstream" / "AIE2_single_multiple_release.mlir").read_text()
    assert translate(text, "x") == (text, [])


def test_old_syntax_upstream_design_builds_through_aiecc(tmp_path, fake_aiecc):
    """The event_trace example (old acquire form) from its folder with its scale.o: aiecc's
    input holds today's acquire and no subview; the translation is reported."""
    runs, inputs = fake_aiecc("legacy")
    folder = tmp_path / "user"
    folder.mkdir()
    (folder / "aie_trace.mlir").write_text(EVENT_TRACE.read_text().replace("NPUDEVICE", "npu1_1col"))
    (folder / "scale.o").write_bytes(b"obj")
    with pytest.warns(LegacySyntaxWarning, match=r"aie_trace\.mlir:49: translated") as rec:
        op = iron.from_mlir(folder / "aie_trace.mlir", name="event_trace")
    # each warning points at the line that called iron.from_mlir, not inside iron
    assert {w.filename for w in rec if w.category is LegacySyntaxWarning} == {__file__}
    # the three acquires, and four retired spellings (host_config, three dma_bd) the file also has
    assert sum("objectfifo.acquire" in t for t in op.translations) == 3 and len(op.translations) == 7
    iron.build(op, trace=True, target="npu1", cache_dir=tmp_path / "cache")
    sent = inputs(0)
    assert (
        len(runs()) == 2 and "objectfifosubview" not in sent
    )  # iron_reset + the design (npu1) and "subview.access" not in sent
    assert "%1 = aie.objectfifo.acquire @infactor_fwd(Consume, 1) : memref<1xi32>" in sent
