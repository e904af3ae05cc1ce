"""Core bodies as IR objects (iron/mlir/body.py, declared with iron/mlir/form.py).

* each declared op reads and prints the text upstream's tools printed (the lines and their
  files: data/core_bodies/SOURCES.md);
* every core of the corpus (generated upstream designs, lit tests, the goldens) prints back
  byte for byte as read, and the generated designs' cores from the declarations alone;
* the cores of iron's operators go to text and back to the same objects;
* what the reader keeps opaque, and the printer's errors.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from iron import operators as O
from iron.errors import IronError
from iron.mlir import body, ir
from iron.mlir.printer import print_device, print_ops
from iron.mlir.reader import parse, read_region

DATA = Path(__file__).parent / "data"
_FULL_ELF = "corpus/mlir-aie__test__npu-xrt__full_elf_event_trace__aie.mlir"
_PHYSICAL = "corpus/mlir-aie__test__npu-xrt__add_one_two__aie1.mlir.prj__input_physical.mlir"

#: (file under data/, line number, the op it reads as): lines upstream's tools printed.
UPSTREAM = [
    ("upstream/core_flag_test.mlir", 60, body.For),
    ("upstream/core_flag_test.mlir", 62, body.Cast),
    ("upstream/core_flag_test.mlir", 65, body.Yield),
    ("upstream/core_flag_test.mlir", 85, body.Call),
    ("upstream/core_flag_test.mlir", 88, body.Compare),
    ("upstream/core_flag_test.mlir", 89, body.Select),
    ("upstream/core_flag_test.mlir", 94, body.Yield),
    ("upstream/dma_operand_widths.mlir", 51, body.Cast),
    ("upstream/dma_operand_widths.mlir", 52, body.Compare),
    ("upstream/dma_to_npu_bd_paths.mlir", 63, body.Cast),
    ("upstream/aie_test1.mlir", 21, body.Acquire),
    (_FULL_ELF, 60, body.Event),
    (_PHYSICAL, 60, body.Compare),
    (_PHYSICAL, 71, body.Binary),
    ("core_bodies/cascade_test.mlir", 20, body.Constant),
    ("core_bodies/cascade_test.mlir", 21, body.PutCascade),
    ("core_bodies/cascade_test.mlir", 25, body.GetCascade),
    ("mlir-air/air_to_npu_add_one.mlir", 43, body.AffineFor),
    ("mlir-air/air_to_npu_add_one.mlir", 44, body.AffineLoad),
    ("mlir-air/air_to_npu_add_one.mlir", 46, body.AffineStore),
]
#: A lowered core body's line as aie-opt printed it (data/core_bodies/SOURCES.md: index file 53055036518).
VECTOR_LOAD = "%19 = vector.load %collapse_shape[%17] : memref<4096xbf16>, vector<32xbf16>"


def depattern(line: str) -> str:
    """A (CHECK) line's op text, FileCheck's patterns replaced by names: ``%[[X:.*]]`` and
    ``%[[X]]`` -> ``%X``, each ``%{{.*}}`` -> ``%v0``, ``%v1`` ..."""
    line = line.split("CHECK:", 1)[1] if "CHECK:" in line else line
    line = re.sub(r"%\[\[(\w+)(?::[^\]]*)?\]\]", r"%\1", line.strip())
    n = itertools.count()
    return re.sub(r"%\{\{\.\*\}\}", lambda _m: f"%v{next(n)}", line)


def _upstream_line(where: str, number: int) -> list[str]:
    line = depattern((DATA / where).read_text().splitlines()[number - 1])
    return [line, "}"] if line.endswith("{") else [line]  # a region opener read with an empty region


@pytest.mark.parametrize("where,number,cls", UPSTREAM, ids=[f"{Path(w).stem}:{n}" for w, n, _ in UPSTREAM])
def test_each_declared_op_reads_and_prints_upstreams_text(where, number, cls):
    lines = _upstream_line(where, number)
    (op,) = read_region(lines)
    assert type(op) is cls
    assert print_ops([op]) == lines


def test_vector_load_reads_and_prints_upstreams_text():
    (op,) = read_region([VECTOR_LOAD])
    assert op == body.VectorLoad(("19",), "collapse_shape", ("17",), "memref<4096xbf16>", "vector<32xbf16>")
    assert print_ops([op]) == [VECTOR_LOAD]


def test_fields_of_upstreams_loop_with_iter_args():
    """core_flag_test.mlir line 60: two carried values, a result group, the types after ``->``."""
    (loop,) = read_region(_upstream_line("upstream/core_flag_test.mlir", 60))
    assert (loop.results, loop.iv, loop.lower, loop.upper, loop.step) == (("v0:2",), "v1", "C0", "C10", "C1")
    assert (loop.iter_args, loop.result_types, loop.body) == (
        (("OIDX", "I0"), ("IIDX", "I0")),
        "i32, i32",
        [],
    )
    (cmp,) = read_region(_upstream_line("upstream/core_flag_test.mlir", 88))
    assert (cmp.name, cmp.predicate, cmp.lhs, cmp.rhs, cmp.type) == ("arith.cmpi", "sge", "IN", "I2", "i32")


# --------------------------------------------------------------------------- the corpus
def _files() -> list[Path]:
    folders = ("designs", "corpus", "upstream", "foreign", "core_bodies", "mlir-aie-test1", "mlir-aie-test2")
    return [p for d in folders for p in sorted((DATA / d).glob("*.mlir")) if "aie.core(" in p.read_text()]


def _core_blocks(text: str) -> list[list[str]]:
    """Each core's lines as the file writes them, from ``aie.core(`` to the ``}`` at its
    indentation, dedented by the indentation of its first line."""
    lines, out = text.split("\n"), []
    for i, line in enumerate(lines):
        if re.match(r"\s*(%\S+\s*=\s*)?aie\.core\(", line) and line.rstrip().endswith("{"):
            lead = len(line) - len(line.lstrip())
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith(" " * lead + "}"))
            out.append([ln.rstrip()[min(lead, len(ln) - len(ln.lstrip())) :] for ln in lines[i : end + 1]])
    return out


def _cores(module: ir.Module) -> list[ir.Core]:
    return [op for dev in module.devices for op in dev.body if isinstance(op, ir.Core)]


def _printed(core: ir.Core) -> list[str]:
    lines = print_device(ir.Device("npu1_1col", None, [core])).split("\n")[1:-1]
    return [line[2:] for line in lines]


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_every_core_in_the_corpus_prints_back_as_read(path):
    text = path.read_text().replace("NPUDEVICE", "npu1_1col")  # the lit placeholder (designs.py)
    blocks = _core_blocks(text)
    cores = _cores(parse(text, path.name))
    assert blocks and len(cores) == len(blocks)  # every core is read as one (none left opaque)
    for core, block in zip(cores, blocks):
        assert _printed(core) == block


#: Generated designs of the corpus whose cores are kept verbatim, and why; every other core of
#: data/designs prints from the declarations alone (Core.text is None).
VERBATIM = {
    "mlir-aie__test__npu-xrt__cascade_flows__aie.mlir": "hand-written lit test: blank lines in its cores"
}


def test_generated_designs_print_from_the_declarations_alone():
    generic = 0
    for path in sorted((DATA / "designs").glob("*.mlir")):
        cores = _cores(parse(path.read_text().replace("NPUDEVICE", "npu1_1col"), path.name))
        assert any(c.text is not None for c in cores) == (path.name in VERBATIM), path.name
        generic += sum(c.text is None for c in cores)
    assert generic >= 20


def test_an_old_design_translated_for_aiecc_reads_with_todays_acquire():
    """legacy.translate rewrites the text before reading (item 5): the core then holds today's
    acquires, and its blank lines (one per dropped subview.access) keep it verbatim."""
    from iron.mlir import legacy

    path = DATA / "designs" / "hunhoffe__iron_ext_mlir__VSOp_Add.mlir"
    text, notes = legacy.translate(path.read_text(), path.name)
    (core,) = _cores(parse(text))
    acquires = [op for op in core.body[3].body if isinstance(op, body.Acquire)]
    # two acquires (the file's retired aie.dma_bd spellings are rewritten too: test_legacy_syntax)
    assert sum("objectfifo.acquire" in n.new for n in notes) == 2
    assert [a.type for a in acquires] == ["memref<32xi32>"] * 2
    assert not any(a.subview for a in acquires) and core.text is not None


# --------------------------------------------------------------------------- iron's operators
OPERATORS = [
    O.ElementwiseAdd(4096, tile_size=256, columns=2, cores_per_column=2),
    O.AXPY(4096, a=2.5, tile_size=512),  # an f32 and an i32 scalar operand
    O.RMSNorm(8, 64, columns=2),  # a broadcast port acquired per run
    O.Softmax(4, 32),
    O.MemCopy(size=64, dtype="i32", tile_size=32),
    O.GEMM(256, 256, 256, m=32, k=32, n=32, dtype="i16", columns=2, cores_per_column=2),
]


@pytest.mark.parametrize("op", OPERATORS, ids=lambda op: type(op).__name__)
def test_operator_cores_go_to_text_and_back_to_the_same_objects(op):
    for target in ("npu1", "npu2"):
        dev = op.design(target).device
        mine = [c for c in dev.body if isinstance(c, ir.Core)]
        back = _cores(parse(f"module {{\n{print_device(dev, 1)}\n}}\n"))
        assert mine and back == mine  # every field, the nested loops, and no verbatim text


def _every_body_op() -> list:
    """One of every declared core-body op, regions nested, optional parts both ways."""
    m16, v16 = "memref<16xi32>", "vector<16xi32>"
    sub = "!aie.objectfifosubview<memref<16xi32>>"
    step = [
        body.Acquire(("b0", "b1"), "in0", "Consume", 2, f"{m16}, {m16}"),
        body.Load(("x",), "b0", ("i",), m16),
        body.Binary("arith.addi", ("y",), "x", "one", "i32", "overflow<nsw>"),
        body.Binary("arith.mulf", ("f2",), "f", "f", "f32"),
        body.Compare("arith.cmpi", ("p",), "slt", "x", "y", "i32"),
        body.Select(("z",), "p", "x", "y", "i32"),
        body.Cast("arith.index_cast", ("n",), "i", "index", "i32"),
        body.Store("z", "b1", ("i",), m16),
        body.VectorLoad(("v",), "b0", ("c0",), m16, v16),
        body.Broadcast(("w",), "z", "i32", v16),
        body.VectorStore("w", "b1", ("c0",), m16, v16),
        body.PutCascade("v", v16),
        body.GetCascade(("g",), v16),
        body.If("p", [body.Yield(("x",), "i32")], [body.Yield(("y",), "i32")], ("r",), "i32"),
        body.If("p", [body.Event(1)]),
        body.Call("func.call", "k", ("b0", "n"), f"{m16}, i32"),
        body.Call("func.call", "nothing", (), "", "i32", ("q",)),
        body.Event(0),
        body.Copy("b0", "b1", m16, m16),
        body.Subview(("sv",), "b0", "%c0", "8", "1", m16, "memref<8xi32, strided<[1], offset: ?>>"),
        body.TransferRead(("tr",), "b0", ("c0",), "x", m16, v16, None, "{in_bounds = [true]}"),
        body.TransferRead(("tm",), "b0", ("c0",), "x", m16, v16, "mask"),
        body.TransferWrite("tr", "b1", ("c0",), v16, m16, "mask", "{in_bounds = [true]}"),
        body.TransferWrite("tr", "b1", ("c0",), v16, m16),
        body.Splat(("sp",), "x", v16),
        body.Extract(("ex",), "tr", "%i", "i32", v16),
        body.Insert(("in",), "ex", "tr", "3", "i32", v16),
        body.Fma(("fm",), "f2", "f2", "f2", "vector<16xf32>"),
        body.Reduction(("rd",), "add", "tr", v16, "i32"),
        body.Reduction(("rf",), "add", "fm", "vector<16xf32>", "f32", "f2", "fastmath<fast>"),
        body.Unary("math.exp", ("me",), "fm", "vector<16xf32>", "fastmath<fast>"),
        body.Unary("arith.negf", ("ng",), "fm", "vector<16xf32>"),
        body.While(
            "i32",
            "i32",
            [body.Condition("p", ("x",), "i32")],
            [ir.Opaque("^bb0(%wa: i32):"), body.Yield(("wa",), "i32")],
            ("wr",),
            (("wb", "x"),),
        ),
        body.While("", "()", [body.Condition("p")], []),
        body.Release("in0", "Consume", 2),
        body.Yield(("r",), "i32"),
    ]
    return [
        body.constant("c0", 0, "index"),
        body.constant("c1", 1, "index"),
        body.Constant(("one",), "1", "i32"),
        body.Constant(("f",), "2.500000e+00", "f32"),
        body.Constant(("t",), "true"),
        body.Constant(("d",), "dense<0>", v16),
        body.For("i", "c0", "c1", "c1", step, ("acc",), (("a", "one"),), "i32"),
        body.For("j", "c0", "c1", "c1", [], type="i32"),
        body.AffineFor(
            "k", "0", "%c1", [body.AffineYield(("b",), "i32")], 2, ("ab",), (("b", "one"),), "i32"
        ),
        body.AffineFor("m", "2", "16", []),
        body.AffineLoad(("al",), "buf", "%m * 2 + 1, %k floordiv 4", "memref<40x4xi32, 2>"),
        body.AffineStore("al", "buf", "%m, 0", "memref<40x4xi32, 2>"),
        body.AffineApply(("ap",), "affine_map<(d0)[s0] -> (d0 + s0)>", ("m",), "[%k]"),
        body.AffineApply(("aq",), "#map", ("m", "k")),
        body.Acquire(("s",), "in0", "Consume", 1, sub),
        body.SubviewAccess(("e",), "s", 0, sub, m16),
        ir.Opaque("aie.use_lock(%l, Acquire, 1)"),
        body.Branch("^bb1(%c0 : index)"),
        ir.Opaque("^bb1(%k: index):"),
        body.CondBranch("t", "^bb1(%c1 : index)", "^bb2"),
        ir.Opaque("^bb2:"),
        body.End(),
    ]


def test_every_body_op_goes_to_text_and_back():
    ops = _every_body_op()

    def kinds(ops):
        regions = [r for op in ops for r in vars(op).values() if isinstance(r, list)]
        return {type(op) for op in ops}.union(*map(kinds, regions))

    assert kinds(ops) >= {cls for cls in vars(body).values() if hasattr(cls, "FORM")}
    lines = print_ops(ops)
    assert read_region(lines) == ops
    assert "  } else {" in lines and "  scf.if %p {" in lines  # an empty else region is not printed


# --------------------------------------------------------------------------- opaque and errors
def test_an_op_no_form_reads_stays_one_verbatim_opaque_op_with_its_region():
    lines = [
        "scf.parallel (%i) = (%c0) to (%c4) step (%c1) {",
        "  %a = arith.addi %i, %i : index",
        "  scf.reduce",
        "  %b = arith.addi %a, %a : index",
        "  scf.reduce",
        "}",
        "aie.objectfifo.release @of (Consume, 1)",
        "aie.use_lock(%l, Acquire, 1)",
    ]
    ops = read_region(lines)
    assert [type(op) for op in ops] == [ir.Opaque, body.Release, ir.Opaque]
    assert ops[0].text == "\n".join(lines[:6])
    assert ops[1] == body.Release("of", "Consume", 1)  # read despite the space; printed without it
    assert print_ops(ops) == lines[:6] + ["aie.objectfifo.release @of(Consume, 1)", lines[7]]


def test_text_a_form_does_not_cover_stays_opaque():
    for line in (
        "%0 = arith.addi %a, %b {some_attr} : i32",  # an attribute dictionary
        "%0 = aie.objectfifo.acquire @of(Consume) : memref<16xi32>",  # no count
        "%0, %1 = arith.addi %a, %b : i32",  # two results of a one-result op
        "aie.end %x",
        "aie.objectfifo.release @of(Consume, 01)",  # read as 1, it would print other text
    ):
        assert read_region([line]) == [ir.Opaque(line)], line


def test_regions_nested_past_the_limit_stay_text_and_print_back():
    """A hostile file's 3000 nested loops: read as objects down to MAX_REGION_DEPTH, the rest
    one opaque op (no RecursionError in the reader, printer or comparison)."""
    from iron.limits import MAX_REGION_DEPTH
    from iron.mlir.printer import print_module

    n = 3000
    lines = ["scf.for %i = %a to %b step %c {"] * n + ["aie.end"] + ["}"] * n
    text = "module {\n  aie.device(npu1_1col) {\n    %t = aie.tile(0, 2)\n    %c = aie.core(%t) {\n"
    text += "".join(f"      {line}\n" for line in lines) + "      aie.end\n    }\n  }\n}\n"
    (core,) = _cores(parse(text))
    ops, depth = core.body, 0
    while isinstance(ops[0], body.For):
        ops, depth = ops[0].body, depth + 1
    assert depth == MAX_REGION_DEPTH and isinstance(ops[0], ir.Opaque)
    assert print_module(parse(text)) == text


def test_the_printer_names_the_op_and_field_it_cannot_print():
    with pytest.raises(IronError, match=r"aie\.objectfifo\.acquire: field 'size' \(int\) cannot be '1'"):
        print_ops([body.Acquire(("b",), "of", "Consume", "1", "memref<4xi32>")])
    with pytest.raises(IronError, match=r"arith\.constant: 2 results; the op has 1 result"):
        print_ops([body.Constant(("a", "b"), "0", "index")])
    with pytest.raises(IronError, match="cannot print str in a core body"):
        print_ops(["aie.end"])
