"""A fake ``llvm-objcopy``: ``--redefine-sym=old=new`` on a fake object of clang.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    renames = dict(a.split("=", 1)[1].split("=", 1) for a in argv if a.startswith("--redefine-sym="))
    [path] = [a for a in argv if not a.startswith("-")]
    obj = json.loads(Path(path).read_text())
    obj["functions"] = {renames.get(k, k): v for k, v in obj["functions"].items()}
    Path(path).write_text(json.dumps(obj, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
