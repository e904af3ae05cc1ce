"""Rewrite docs/reference.md's options table from the one declaration, ``iron.options.OPTIONS``.

    python docs/options_table.py          # rewrites docs/reference.md in place
    python docs/options_table.py --check  # exit 1 when docs/reference.md differs (what the test checks)

The table is the first Markdown table after the "## Options" heading.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parent / "reference.md"
#: The "## Options" heading, the prose before the table, and the table (lines starting with "|").
TABLE = re.compile(r"(## Options\n(?:(?!\|).*\n)*?)((?:\|.*\n)+)")


def rewritten(text: str) -> str:
    """``text`` (docs/reference.md) with its options table replaced by the table ``OPTIONS`` renders."""
    from iron.options import markdown_table

    match = TABLE.search(text)
    if match is None:
        raise SystemExit(f"{PAGE}: no table after a '## Options' heading")
    return text[: match.start(2)] + markdown_table() + text[match.end(2) :]


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(PAGE.parents[1]))
    text = PAGE.read_text(encoding="utf-8")
    new = rewritten(text)
    if "--check" in argv:
        if new != text:
            print(f"{PAGE}: options table differs from iron.options.OPTIONS; run {__file__}")
        return int(new != text)
    if new != text:
        PAGE.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
