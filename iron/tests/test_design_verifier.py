"""Designs mlir-aie's verifiers refuse are refused before building, with the verifier's reason;
values outside what the hardware holds are refused naming the op and the value (issue 36, "silent
wrong results" and "misleading messages"). The real compiler (a9e39fae, fixture ``real_mlir_aie``)
is the reference: where it reads the case, the test asserts that it refuses it too, or that it
verifies the design (the value is then caught by iron's own check, naming what is accepted).

Each case failed on the code before: a BD reading an i32 buffer as i16 gave wrong outputs, lock
id 64 on a memtile was a raw IndexError, ``init = 1000`` blamed a BD's release, a negative
address was "has no address", ``len = 0`` blamed ``dma_memcpy_nd``.
"""

from __future__ import annotations

import numpy as np
import pytest

import iron
from iron.mlir.check import DesignCheckError
from iron.tests.real_mlir_aie import verify
from iron.tests.small_designs import ADD_ONE, CORE, FIFOS, MEMTILE_THROUGH

FILL_BD = "aie.dma_bd(%buf : memref<1024xi32> offset = 0 len = 1024) {bd_id = 0"
#: name -> (edit of MEMTILE_THROUGH, iron's message, the real aie-opt's first error line or "" (verifies))
CASES = {
    "bd-type": (
        (FILL_BD, FILL_BD.replace("xi32>", "xi16>")),
        r"use of value '%buf' expects different type than prior uses: 'memref<1024xi16>' vs 'memref<1024xi32>'",
        "use of value '%buf' expects different type than prior uses: 'memref<1024xi16>' vs 'memref<1024xi32>'",
    ),
    "lock-id": (
        ("%cons = aie.lock(%m, 1)", "%cons = aie.lock(%m, 64)"),
        r"aie.lock %cons on aie.tile\(0, 1\): 'aie.lock' op lock assigned invalid id \(maximum is 63\)",
        "'aie.lock' op lock assigned invalid id (maximum is 63)",
    ),
    "lock-init": (
        ("%prod = aie.lock(%m, 0) {init = 1 : i32}", "%prod = aie.lock(%m, 0) {init = 1000 : i32}"),
        r"aie.lock %prod init = 1000; accepted: 0 to 63",
        "",
    ),
    "address": (
        ("address = 4096", "address = -4096"),
        r"aie.buffer %buf address = -4096 \(4096 bytes\) on aie.tile\(0, 1\); accepted: an address from 0",
        "",
    ),
    "address-past-memory": (
        ("address = 4096", "address = 524288"),
        r"aie.buffer %buf address = 524288 .* inside the memtile's 524288 bytes",
        "",
    ),
    "len-0": (
        (FILL_BD, FILL_BD.replace("len = 1024", "len = 0")),
        r"`aie.dma_bd\(%buf : memref<1024xi32> ...\)` len = 0; accepted: a BD moves at least one element",
        "",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_refused_before_building_naming_the_op_and_value(tmp_path, case):
    (old, new), message, _real = CASES[case]
    assert old in MEMTILE_THROUGH
    op = iron.from_mlir(MEMTILE_THROUGH.replace(old, new), name="through")
    with pytest.raises(DesignCheckError, match=message):
        iron.build(op, target="npu1", cache_dir=tmp_path)
    assert [p.name for p in tmp_path.iterdir() if p.name != ".locks"] == []  # nothing cached


@pytest.mark.parametrize("case", list(CASES))
def test_the_real_compiler_agrees(real_mlir_aie, case):
    (old, new), _message, real = CASES[case]
    got = verify(MEMTILE_THROUGH.replace(old, new))
    assert (real in got and got) if real else got == ""


def test_the_unedited_design_runs_and_the_real_compiler_verifies_it(tmp_path, real_mlir_aie):
    assert verify(MEMTILE_THROUGH) == ""
    art = iron.build(iron.from_mlir(MEMTILE_THROUGH, name="through"), target="npu1", cache_dir=tmp_path)
    a = np.arange(2048, dtype=np.int32) - 5
    with art.load("sim") as run:
        np.testing.assert_array_equal(run(a), a)


# --------------------------------------------------------------------------- object FIFOs, cores, cascades
from iron.errors import IronError  # noqa: E402

IN_FIFO = "@in(%s, {%m}, 2 : i32)"


def _refused(tmp_path, text: str, message: str) -> None:
    op = iron.from_mlir(text, name="d")
    with pytest.raises(DesignCheckError, match=message):
        iron.build(op, target="npu1", cache_dir=tmp_path)
    assert [p.name for p in tmp_path.iterdir() if p.name != ".locks"] == []


def test_the_fifo_design_runs_and_verifies(tmp_path, real_mlir_aie):
    assert verify(FIFOS) == ""
    art = iron.build(iron.from_mlir(FIFOS, name="d"), target="npu1", cache_dir=tmp_path)
    a = np.arange(32, dtype=np.int32) * 9
    with art.load("sim") as run:
        np.testing.assert_array_equal(run(a), a)


@pytest.mark.parametrize(
    "depth, message",
    [
        (-2, r"@in: depth -2; 'aie.objectfifo' op attribute 'elemNumber' failed to satisfy constraint"),
        (0, r"@in: depth 0; .* accepted: 1 to"),
        (10**8, r"@in: depth 100000000 x 64 bytes on aie.tile\(0, 1\) exceeds its 524288 bytes"),
    ],
)
def test_a_fifo_depth_no_tile_holds_is_refused(tmp_path, depth, message):
    """Before: -2 blamed the runtime sequence ("no object FIFO with a shim end"), 10**8 ran out of memory."""
    _refused(tmp_path, FIFOS.replace(IN_FIFO, f"@in(%s, {{%m}}, {depth} : i32)"), message)


@pytest.mark.parametrize("depth", [-2, 10000])
def test_the_real_compiler_refuses_those_depths_too(real_mlir_aie, depth):
    """-2: the verifier; 10000 (640000 bytes on the memtile): its object-FIFO lowering (verify
    passes; the memtile DMA runs out of BDs first)."""
    from iron.tests.real_mlir_aie import aie_opt

    text = FIFOS.replace(IN_FIFO, f"@in(%s, {{%m}}, {depth} : i32)")
    out = aie_opt(
        text, "--aie-objectFifo-stateful-transform=dynamic-objFifos=false", "--aie-assign-buffer-addresses"
    )
    assert out.returncode != 0 and "error" in out.stderr


@pytest.mark.parametrize(
    "old, new, message",
    [
        (
            "aie.objectfifo.release @in(Consume, 1)",
            "aie.objectfifo.release @in(Consume, 1000000000000000000000000000000)",
            r"release @in\(Consume, 10+\): 'aie.objectfifo.release' op attribute 'size' failed to satisfy",
        ),
        (
            "aie.objectfifo.acquire @in(Consume, 1)",
            "aie.objectfifo.acquire @in(Consume, 2147483648)",
            r"acquire @in\(Consume, 2147483648\): 'aie.objectfifo.acquire' op attribute 'size' failed",
        ),
        (
            "aie.objectfifo.acquire @in(Consume, 1)",
            "aie.objectfifo.acquire @in(Consume, 3)",
            r"acquire @in\(Consume, 3\): more objects than the FIFO's depth 2: the acquire never completes",
        ),
        (
            "%c16 step %c1",
            "%c16 step %cm1",
            r"scf.for %k has the constant step -1; 'scf.for' op constant step operand",
        ),
        ("%c16 step %c1", "%c16 step %c0", r"scf.for %k has the constant step 0"),
    ],
    ids=["release-1e30", "acquire-2e31", "acquire-past-depth", "step-minus-1", "step-0"],
)
def test_core_ops_mlir_aie_refuses_are_refused_before_building(tmp_path, old, new, message):
    """Before: a release of 10**30 objects and a FIFO of 10**8 ran out of memory in sim, an acquire
    of 2**31 waited forever, step -1 gave all-zero outputs, step 0 was a raw ValueError."""
    text = CORE.replace("BODY", ADD_ONE).replace(
        "%one = arith.constant 1 : i32",
        "%one = arith.constant 1 : i32\n      %cm1 = arith.constant -1 : index",
    )
    assert old in text
    _refused(tmp_path, text.replace(old, new), message)


def test_a_legacy_acquire_of_two_billion_objects_is_refused_before_translating(tmp_path):
    """Before: the translation to today's acquire named every object, 2**31 of them."""
    legacy = CORE.replace("BODY", ADD_ONE).replace(
        "%x = aie.objectfifo.acquire @in(Consume, 1) : memref<16xi32>",
        "%sv = aie.objectfifo.acquire @in(Consume, 2147483648) : !aie.objectfifosubview<memref<16xi32>>\n"
        "        %x = aie.objectfifo.subview.access %sv[0] : !aie.objectfifosubview<memref<16xi32>> -> memref<16xi32>",
    )
    with pytest.raises(IronError, match=r"acquire @in\(Consume, 2147483648\)`: more than 524288 objects"):
        iron.build(iron.from_mlir(legacy, name="d"), target="npu1", cache_dir=tmp_path)


def test_the_real_compiler_refuses_the_legacy_acquire_too(real_mlir_aie):
    legacy = FIFOS  # no core: a9e39fae reads the legacy acquire; the size constraint is the verifier's
    core = """    %c = aie.tile(0, 2)
    aie.objectfifo @x(%m, {%c}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
    aie.core(%c) {
      %sv = aie.objectfifo.acquire @x(Consume, 2147483648) : !aie.objectfifosubview<memref<16xi32>>
      aie.end
    }
"""
    got = verify(legacy.replace("    aie.runtime_sequence", core + "    aie.runtime_sequence"))
    assert "'aie.objectfifo.acquire' op attribute 'size' failed to satisfy constraint" in got


@pytest.mark.parametrize("dest", ["%m", "%s"])
def test_a_cascade_flow_into_a_memtile_or_shim_is_refused(tmp_path, real_mlir_aie, dest):
    """Before: accepted (mlir-aie: "memTile row has no cascade stream interface")."""
    kind = "memTile" if dest == "%m" else "shimTile"
    text = MEMTILE_THROUGH.replace(
        "    aie.flow(%s, DMA : 0, %m, DMA : 0)",
        f"    %c = aie.tile(0, 2)\n    aie.cascade_flow(%c, {dest})\n    aie.flow(%s, DMA : 0, %m, DMA : 0)",
    )
    want = f"'aie.cascade_flow' op {kind} row has no cascade stream interface"
    assert want in verify(text)
    _refused(tmp_path, text, want)


# --------------------------------------------------------------------------- patterns, link offsets, ranks
LINK = "aie.objectfifo.link [@in] -> [@out]([] [])"


@pytest.mark.parametrize(
    "old, new, message",
    [
        (
            "aie.objectfifo @out(%m, {%s}, 2 : i32)",
            "aie.objectfifo @out(%m dimensionsToStream [<size = 4, stride = 8>, <size = 4, stride = 1>], {%s}, 2 : i32)",
            r"@out: dimensionsToStream \[\(4, 8\), \(4, 1\)\] reaches element 27 of the 16 elements it reads",
        ),
        (
            LINK,
            "aie.objectfifo.link [@in] -> [@out]([] [40])",
            r"link offset 40 of @out \(16 elements\) does not fit",
        ),
        (LINK, "aie.objectfifo.link [@in] -> [@out]([] [99999999999999999999])", r"link offset 9+ of @out"),
    ],
    ids=["dims-past-object", "link-offset", "link-offset-i64"],
)
def test_patterns_and_offsets_outside_the_object_are_refused(tmp_path, old, new, message):
    """Before: a raw IndexError (the pattern) and ValueError (the offsets) in sim."""
    assert old in FIFOS
    _refused(tmp_path, FIFOS.replace(old, new), message)


def test_the_real_compiler_refuses_an_offset_past_i64(real_mlir_aie):
    assert "integer constant out of range for attribute" in verify(
        FIFOS.replace(LINK, "aie.objectfifo.link [@in] -> [@out]([] [99999999999999999999])")
    )


def test_a_rank_5_host_buffer_moved_by_a_dma_task_runs(tmp_path, real_mlir_aie):
    """A BD with offset and len on a 5-D memref moves its elements in order (the real aie-opt
    verifies it). Before: IndexError in the offset computation (4 offsets, 5 dimensions)."""
    text = MEMTILE_THROUGH.replace("%a: memref<2048xi32>", "%a: memref<2x2x2x2x128xi32>").replace(
        "aie.dma_bd(%a : memref<2048xi32>", "aie.dma_bd(%a : memref<2x2x2x2x128xi32>"
    )
    assert verify(text) == ""
    art = iron.build(iron.from_mlir(text, name="r5"), target="npu1", cache_dir=tmp_path)
    a = (np.arange(2048, dtype=np.int32) * 3).reshape(2, 2, 2, 2, 128)
    with art.load("sim") as run:
        np.testing.assert_array_equal(run(a), a.reshape(-1))


# --------------------------------------------------------------------------- property
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
import re  # noqa: E402

_NUMBER = re.compile(r"(?<![%\w])\d+(?![\w])")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    design=st.sampled_from(["through", "fifos"]),
    edits=st.lists(
        st.tuples(
            st.integers(0, 10**6),
            st.sampled_from([-1, 0, 1, 2, 3, 15, 16, 63, 64, 1000, 4096, 1 << 31, 10**20]),
        ),
        min_size=1,
        max_size=3,
    ),
)
def test_foreign_designs_with_any_numbers_build_and_run_or_raise_iron_error(tmp_path_factory, design, edits):
    """Any integer of the designs (tile coordinates, depths, ids, addresses, lengths, offsets)
    replaced by an edge value: from_mlir, build and a sim run end with outputs or IronError,
    never a raw exception, a hang, or a file outside the cache folder."""
    text = MEMTILE_THROUGH if design == "through" else FIFOS
    spots = list(_NUMBER.finditer(text))
    for pick, value in edits:
        m = spots[pick % len(spots)]
        text = text[: m.start()] + str(value) + text[m.end() :]
        spots = list(_NUMBER.finditer(text))
    folder = tmp_path_factory.mktemp("f")
    n = 2048 if design == "through" else 32
    try:
        art = iron.build(iron.from_mlir(text, name="f"), target="npu1", cache_dir=folder / "c")
        with art.load("sim") as run:
            run(np.arange(n, dtype=np.int32))
    except IronError:
        pass
    assert [p.name for p in folder.iterdir()] in ([], ["c"])


def test_a_lock_value_that_is_no_integer_constant_is_refused(tmp_path):
    """Found by the property test below (two edits made `arith.constant --1`): before, a raw
    KeyError from the memtile task's lock fields. The real parser refuses the text too."""
    text = MEMTILE_THROUGH.replace("%c1 = arith.constant 1 : i32", "%c1 = arith.constant --1 : i32", 1)
    assert "--1" in text
    assert verify(text) != ""
    with pytest.raises(IronError, match=r"%c1 is no integer `arith.constant` of its block"):
        iron.build(iron.from_mlir(text, name="f"), target="npu1", cache_dir=tmp_path)


def test_a_traced_design_with_a_tile_far_outside_its_device_is_refused_before_instrumenting(tmp_path):
    """Found by the property test above under the mission's traced command: ``aie.tile(0,
    2147483648)`` reached the trace route bound, which counted 2**31 rows (an OOM kill) before
    the design check ran. Now refused as untraced builds refuse it; the real parser refuses the
    row too. Run in a child under a 3 GiB address-space limit so a regression fails, not kills."""
    import subprocess
    import sys
    import textwrap

    old = "%m = aie.tile(0, 1)"
    assert old in FIFOS
    text = FIFOS.replace(old, "%m = aie.tile(0, 2147483648)")
    assert "row" in verify(text)
    code = textwrap.dedent("""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        import iron
        from iron.mlir.check import DesignCheckError
        try:
            iron.build(iron.from_mlir(sys.stdin.read(), name="f"), target="npu1", trace=True,
                       trace_size=65536, ntiles=4, cache_dir=sys.argv[1])
        except DesignCheckError as exc:
            print(exc)
        """)
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "c")], input=text, capture_output=True, text=True
    )
    assert out.stdout.strip() == (
        "f: aie.device(npu1_1col) @op0_f: %m = aie.tile(0, 2147483648) is outside the device: "
        "columns 0 to 0, rows 0 to 5"
    ), out.stderr[-2000:]
