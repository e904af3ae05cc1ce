"""The README's Python example runs as written (so the docs cannot drift from the API)."""

import re
import runpy
from pathlib import Path

import numpy as np
import pytest

from iron.bf16 import to_bf16

README = Path(__file__).resolve().parents[2] / "README.md"


def test_python_example_runs(tmp_path, monkeypatch, capsys):
    code = re.search(r"## Python\n\n```python\n(.*?)```", README.read_text(), re.S).group(1)
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    a = to_bf16(rng.uniform(-1, 1, (64, 64)).astype(np.float32))
    scope = {
        "a": a,
        "b": a.T.copy(),
        "x": a,
        "w1": a.T.copy(),
        "g": to_bf16(rng.uniform(-1, 1, 4096).astype(np.float32)),
    }
    with pytest.warns(UserWarning, match="ntiles=4"):
        exec(compile(code, str(README), "exec"), scope)
    out = capsys.readouterr().out
    assert "1:SiLU#0 ok ['core(0,2)']" in out
    assert (tmp_path / "gemm.json").exists() and (tmp_path / "gemm.capture.npz").exists()
    assert scope["y"].shape == (4096,) and scope["c"].shape == (64, 64)


def test_options_table_is_the_option_declarations():
    """README's "Options" table is what ``iron.options.OPTIONS`` renders (``python
    docs/options_table.py`` rewrites it): a change to either side alone fails here."""
    from iron.options import markdown_table

    script = runpy.run_path(str(README.parent / "docs" / "options_table.py"))
    text = README.read_text(encoding="utf-8")
    assert markdown_table() in text.split("## Options", 1)[1].split("\n## ", 1)[0]
    assert (
        script["rewritten"](text) == text
    ), "README's options table is stale: run python docs/options_table.py"


CI_RUN = README.parent / ".ci" / "run"
#: How .ci/run marks a line as one of README's commands (see its header).
README_MARK = " # README"
#: The prefix that stages a machine (iron/tests/conftest.py) before a README command.
_MACHINE = re.compile(r"^IRON_TEST_MACHINE=\S+ ")


def _readme_shell_lines() -> set[str]:
    blocks = re.findall(r"```sh\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    return {line.rstrip() for block in blocks for line in block.splitlines() if line.strip()}


def _ci_readme_commands() -> list[str]:
    out = []
    for line in CI_RUN.read_text(encoding="utf-8").splitlines():
        if line.rstrip().endswith(README_MARK):
            out.append(_MACHINE.sub("", line.strip()[: -len(README_MARK)].rstrip()))
    return out


def test_ci_runs_readmes_commands_verbatim():
    """Every command .ci/run says is README's is a line of a README shell block, byte for
    byte (an IRON_TEST_MACHINE=... prefix aside), and README's quick start and its traced
    suite command are among them: CI cannot drift from what README tells users to type."""
    readme, ci = _readme_shell_lines(), _ci_readme_commands()
    assert ci, f"{CI_RUN} marks no line with {README_MARK!r}"
    assert [c for c in ci if c not in readme] == []
    quick = re.search(r"## Quick start\n(.*?)\n## ", README.read_text(encoding="utf-8"), re.S).group(1)
    promised = [
        ln for b in re.findall(r"```sh\n(.*?)```", quick, re.S) for ln in b.splitlines() if ln.strip()
    ]
    assert "IRON_TRACE_SIZE=65536 IRON_TRACE_NTILES=4 python -m pytest iron/tests" in promised
    assert [p for p in promised if p not in ci] == []
