"""pytest wiring for iron's tests: the ``check_operator`` fixture and the machine the suite runs on.

With ``IRON_TRACE_SIZE`` set (e.g. ``IRON_TRACE_SIZE=65536 IRON_TRACE_NTILES=4
pytest iron/tests``) operator checks also run traced and write Perfetto JSON
and a summary per test under ``IRON_TRACE_DIR`` (see :mod:`iron.testing`).

Where the operator checks run is :func:`iron.machine`'s choice (``IRON_BACKEND``,
``IRON_DEVICE``; on an NPU with mlir-aie: aiecc builds on the NPU). Every other test
builds with iron's lowering and runs on sim whatever the machine, so its expectations
hold everywhere: the session moves the two variables aside for the checks only.
Tests that run an operator check carry the ``operator_check`` marker
(``pytest -m operator_check iron/tests`` runs just them).

``IRON_TEST_MACHINE`` stages the machines CI cannot have (``.ci/run`` runs each):
``none`` (default: what is installed), ``toolchain`` (a fake mlir-aie install on PATH:
iron/tests/test_artifact.py ``install_fake_mlir_aie``), ``npu`` (that, plus a fake NPU
behind ``pyxrt``: iron/tests/fake_pyxrt.py, iron's sim executing what XRT is handed).
"""

from __future__ import annotations

import functools
import os
import sys

import pytest

from iron import testing
from iron.options import TRACE_OPTIONS

MACHINES = ("none", "toolchain", "npu")
#: Trace variables set aside for the operator checks (see _session_dirs).
CHECK_ONLY_TRACE_ENV = tuple(
    o.env for o in TRACE_OPTIONS.values() if o.env not in ("IRON_TRACE_SIZE", "IRON_TRACE_DIR")
)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "operator_check: runs iron.testing.check_operator (on the NPU when the machine has one)"
    )


def pytest_collection_modifyitems(items):
    for item in items:
        if "check_operator" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.operator_check)


def pytest_report_header(config):
    return f"iron machine: {os.environ.get('IRON_TEST_MACHINE', 'none')}"


@pytest.fixture
def real_mlir_aie():
    """The real mlir-aie install (iron/tests/real_mlir_aie.py); skips the test with the
    reason where there is none."""
    from iron.tests import real_mlir_aie

    return real_mlir_aie.require()


@pytest.fixture
def check_operator(request):
    """:func:`iron.testing.check_operator` bound to this test (names its trace directory)."""
    return functools.partial(testing.check_operator, request=request)


def stage_machine(kind: str, root) -> list:
    """Put the fakes of machine ``kind`` in effect; returns undo callables."""
    if kind not in MACHINES:
        raise pytest.UsageError(f"IRON_TEST_MACHINE={kind!r}; accepted: {', '.join(MACHINES)}")
    undo = []
    if kind == "none":
        return undo
    from iron.builder import aiecc, sections
    from iron.tests.fake_toolchain import aiebu
    from iron.tests.test_artifact import install_fake_mlir_aie

    staged = install_fake_mlir_aie(root)
    old_path = os.environ["PATH"]
    os.environ["PATH"] = f"{staged['path']}{os.pathsep}{old_path}"
    os.environ[aiebu.PDI_DIR_ENV] = staged["pdis"]
    sys.path.insert(0, staged["sys_path"])
    original = sections.pdi_sections
    sections.pdi_sections = aiebu.recording_pdi_sections(original, staged["pdis"])
    for cached in (aiecc.toolchain_identity, aiecc.help_text):
        cached.cache_clear()

    def restore():
        os.environ["PATH"] = old_path
        os.environ.pop(aiebu.PDI_DIR_ENV, None)
        sys.path.remove(staged["sys_path"])
        sections.pdi_sections = original

    undo.append(restore)
    if kind == "npu":
        from iron.tests import fake_pyxrt

        sys.modules["pyxrt"] = fake_pyxrt.make(npu=True, device_name="NPU Strix")
        undo.append(lambda: sys.modules.pop("pyxrt", None))
    return undo


@pytest.fixture(autouse=True, scope="session")
def _session_dirs(tmp_path_factory):
    """Builds go to a per-session cache (not ./build) unless IRON_CACHE_DIR is set;
    traces written by tests that force tracing go to a temporary directory unless
    the user asked for traces (IRON_TRACE_SIZE or IRON_TRACE_DIR set); the trace
    options but the size, IRON_BACKEND and IRON_DEVICE apply to the operator checks only (see below); the
    machine of IRON_TEST_MACHINE is staged."""
    undo = stage_machine(os.environ.get("IRON_TEST_MACHINE", "none"), tmp_path_factory.mktemp("machine"))
    added = []
    if "IRON_CACHE_DIR" not in os.environ:
        os.environ["IRON_CACHE_DIR"] = str(tmp_path_factory.mktemp("iron-cache"))
        added.append("IRON_CACHE_DIR")
    if "IRON_TRACE_DIR" not in os.environ and "IRON_TRACE_SIZE" not in os.environ:
        os.environ["IRON_TRACE_DIR"] = str(tmp_path_factory.mktemp("iron-traces"))
        added.append("IRON_TRACE_DIR")
    # The trace options that shape a traced run (IRON_TRACE_OP, _NTILES, _MODE, _SIZES,
    # _EVENTS, ...; every trace option but IRON_TRACE_SIZE, which turns the traced suite on,
    # and IRON_TRACE_DIR) apply to the traced suite's operator checks
    # (iron.testing.check_operator) only: a test that builds with its own options (its own
    # trace size, events, mode) checks what those options give, so it must not inherit
    # four traced tiles in its 4096 bytes, an event-pc mode or a selection naming none of
    # its call sites. The same for the machine's choice: other tests build with iron's
    # lowering (so auto loads run on sim).
    moved = {}
    for name, pinned in [(n, None) for n in CHECK_ONLY_TRACE_ENV] + [
        ("IRON_BACKEND", "builtin"),
        ("IRON_DEVICE", None),
    ]:
        moved[name] = os.environ.pop(name, None)
        if moved[name] is not None:
            testing.SUITE_ENV[name] = moved[name]
        if pinned is not None:
            os.environ[name] = pinned
    testing.SUITE_ENV.setdefault("IRON_BACKEND", "auto")
    testing.SUITE_ENV.setdefault("IRON_DEVICE", "auto")
    yield
    for name in added:
        del os.environ[name]
    for name, value in moved.items():
        testing.SUITE_ENV.pop(name, None)
        os.environ.pop(name, None)
        if value is not None:
            os.environ[name] = value
    for fn in reversed(undo):
        fn()
