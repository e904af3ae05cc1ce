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
