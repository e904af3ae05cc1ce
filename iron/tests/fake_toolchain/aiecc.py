"""A fake aiecc for iron's kernel tests: the recording fake of ``test_artifact.py``
(``FAKE_AIECC``: argv log, full ELF / xclbin outputs, core ELFs) that first links like
aiecc's core link: :func:`link.check_links` on its input in its working directory."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
LINK = (
    f"sys.path.insert(0, {str(HERE)!r})\n"
    "from link import check_links, LinkError\n"
    "try:\n"
    "    check_links(open(args[-1]).read(), os.getcwd())\n"
    "except LinkError as e:\n"
    "    print(e, file=sys.stderr); sys.exit(1)\n"
)


def script(base: str) -> str:
    """``base`` (FAKE_AIECC's formatted text) with the link check before it records the run."""
    marker = "n = sum(1 for _ in open("
    head, tail = base.split(marker, 1)
    return head + LINK + marker + tail
