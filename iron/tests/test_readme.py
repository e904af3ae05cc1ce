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
    """docs/reference.md's "Options" table is what ``iron.options.OPTIONS`` renders (``python
    docs/options_table.py`` rewrites it): a change to either side alone fails here."""
    from iron.options import markdown_table

    script = runpy.run_path(str(README.parent / "docs" / "options_table.py"))
    text = (README.parent / "docs" / "reference.md").read_text(encoding="utf-8")
    assert markdown_table() in text.split("## Options", 1)[1].split("\n## ", 1)[0]
    assert (
        script["rewritten"](text) == text
    ), "docs/reference.md's options table is stale: run python docs/options_table.py"


CI_RUN = README.parent / ".ci" / "run"
#: How .ci/run marks a line as a command of a documentation file (see its header).
_FROM = re.compile(r"^\s*(.*?) # from (\S+)$")


def _shell_lines(path: Path) -> set[str]:
    blocks = re.findall(r"```sh\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
    return {line.rstrip() for block in blocks for line in block.splitlines() if line.strip()}


def _ci_documented_commands() -> list[tuple[str, str]]:
    """``(command, file)`` of every .ci/run line marked ``# from FILE``."""
    found = (_FROM.match(line.rstrip()) for line in CI_RUN.read_text(encoding="utf-8").splitlines())
    return [(m.group(1), m.group(2)) for m in found if m]


def test_ci_runs_the_documented_commands_verbatim():
    """Every command .ci/run says is a documentation file's is a line of one of that file's
    shell blocks, byte for byte, and README's quick start and traced suite (its commands
    in the "Quick start" section) are among them: CI cannot drift from what users type."""
    ci = _ci_documented_commands()
    assert ci, f"{CI_RUN} marks no line with '# from FILE'"
    assert [(c, f) for c, f in ci if c not in _shell_lines(README.parent / f)] == []
    quick = re.search(r"## Quick start\n(.*?)\n## ", README.read_text(encoding="utf-8"), re.S).group(1)
    promised = [
        ln for b in re.findall(r"```sh\n(.*?)```", quick, re.S) for ln in b.splitlines() if ln.strip()
    ]
    assert "IRON_TRACE_SIZE=65536 IRON_TRACE_NTILES=4 python -m pytest iron/tests" in promised
    from_readme = [c for c, f in ci if f == "README.md"]
    assert [p for p in promised if p not in from_readme] == []
