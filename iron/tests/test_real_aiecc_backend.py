"""iron's aiecc back end with the real C++ aiecc of mlir-aie a9e39fae (issue 33 item 3).

The install has ``aiecc``, ``aie-opt`` and ``aie-translate`` and no Python bindings: iron
recognises it (it imports no ``aie``) and runs the real aiecc with the argv it builds for any
user. What is not here is faked, only for those steps, and each fake fails as the missing tool
makes aiecc fail (:func:`iron.tests.fake_toolchain.installs.missing_tools`): Peano's code
generation (``opt``, ``llc``; its ``clang++`` is the preprocessing fake that compiles iron's
kernels), ``bootgen``, ``xclbinutil`` and ``aiebu-asm``. The real aiecc gets as far as the
instruction binaries: its pipeline passes the ``insts_{0}.bin`` step and then fails compiling
the cores with the fake Peano. It writes requested outputs only when the whole graph is done,
so the test reruns iron's own argv in iron's working folder without the xclbin outputs: the
instruction binary it writes equals the control code sim runs.
"""

from __future__ import annotations

import contextlib
import importlib.util
import subprocess
import sys
import types
from pathlib import Path

import pytest

import iron
from iron.builder import aiecc, toolchain
from iron.operators import ReLU
from iron.tests import real_mlir_aie
from iron.tests.fake_toolchain.installs import MISSING, build_install, missing_tools
from iron.tests.test_real_control_code import _without_own_pdi_load

OP = ReLU(256, tile_size=32)


@pytest.fixture
def real_toolchain(tmp_path, monkeypatch):
    """PATH: the real install's bin, then the failing fakes; MLIR_AIE_INSTALL_DIR: a fake
    install's kernel sources and Peano (iron compiles its kernels before aiecc runs)."""
    install = real_mlir_aie.require()
    fake = build_install(tmp_path / "install", "arch")
    missing_tools(fake / "peano" / "bin", ("opt", "llc", "clang"))
    tools = missing_tools(tmp_path / "tools", ("bootgen", "xclbinutil", "aiebu-asm"))
    monkeypatch.setenv("PATH", f"{install.root / 'bin'}:{tools}:/usr/bin:/bin")
    monkeypatch.setenv("MLIR_AIE_INSTALL_DIR", str(fake))
    monkeypatch.delenv("PEANO_INSTALL_DIR", raising=False)
    monkeypatch.delenv("IRON_REAL_MLIR_AIE", raising=False)
    # no Python bindings: a staged machine's fake `aie` package (conftest) is taken away too
    monkeypatch.setattr(sys, "path", [p for p in sys.path if not (Path(p or ".") / "aie").is_dir()])
    monkeypatch.delitem(sys.modules, "aie", raising=False)
    for cached in (aiecc.toolchain_identity, aiecc.help_text):
        cached.cache_clear()
    yield install
    for cached in (aiecc.toolchain_identity, aiecc.help_text):
        cached.cache_clear()


def test_an_install_with_the_cpp_aiecc_and_no_python_bindings_is_recognised(real_toolchain):
    assert importlib.util.find_spec("aie") is None  # no bindings: the point of the test
    assert aiecc.available()
    toolchain.require_toolchain("separate")  # raises a ToolchainError naming what is missing
    assert iron.machine(backend="aiecc", device="sim", target="npu1").backend == "aiecc"


def test_real_aiecc_writes_the_control_code_sim_runs_then_stops_at_the_fake_peano(
    real_toolchain, tmp_path, monkeypatch
):
    work = tmp_path / "aiecc-work"
    work.mkdir()
    # keep aiecc's working folder (iron removes it) to read what the real aiecc wrote
    keep = types.SimpleNamespace(TemporaryDirectory=lambda **_: contextlib.nullcontext(str(work)))
    monkeypatch.setattr(aiecc, "tempfile", keep)
    with pytest.raises(aiecc.AieccError) as err:
        # untraced whatever IRON_TRACE_SIZE says: a traced build adds the reset device, whose PDI
        # aiecc packs (bootgen) before it compiles a core, and this test stops at Peano's opt
        iron.build(OP, target="npu1", cache_dir=tmp_path / "cache", backend="aiecc", trace=False)
    message = str(err.value)
    assert "--dynamic-objFifos=false" in message and "--no-materialize" in message
    assert MISSING.format(name="opt").split(":")[0] in message  # the core compile, at Peano's opt
    assert "aie.device" in (work / "fused.mlir").read_text()

    assert "insts_{0}.bin" in message  # aiecc's progress: the instruction-binary step ran first

    # aiecc writes its outputs when the whole graph is done, so rerun iron's own argv (from the
    # message, in iron's working folder) without the xclbin outputs, whose cores need Peano
    argv = message.split("\n")[0].split(": ", 1)[1].split()
    argv = [a for a in argv if not a.startswith(("--get-xclbin", "--xclbin-", "--peano"))]
    assert argv[0] == "aiecc" and "--get-npu-insts" in argv
    subprocess.run([real_toolchain.aiecc, *argv[1:]], cwd=work, check=True, capture_output=True)
    insts = sorted((work / aiecc.device_dir(0)).glob("insts_*.bin"))
    assert [p.name for p in insts] == ["insts_op0_ReLU_sequence.bin"]
    built = iron.build(OP, target="npu1", cache_dir=tmp_path / "cache", backend="builtin", trace=False)
    kernel = next(iter(built.kernels.values()))
    assert insts[0].read_bytes() == _without_own_pdi_load(kernel.control, built.pdi_ids[kernel.device])
