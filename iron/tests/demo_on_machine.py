"""``iron demo`` on a staged machine (``IRON_TEST_MACHINE``, as the suite's conftest stages it):
``python -m iron.tests.demo_on_machine [demo arguments]``; what ``.ci/run`` runs per machine."""

from __future__ import annotations

import os
import sys
import tempfile


def main(argv=None) -> int:
    from iron.cli import main as iron_main
    from iron.tests.conftest import stage_machine

    with tempfile.TemporaryDirectory(prefix="iron-machine-") as root:
        undo = stage_machine(os.environ.get("IRON_TEST_MACHINE", "none"), root)
        try:
            return iron_main(["demo", *(sys.argv[1:] if argv is None else argv)])
        finally:
            for fn in reversed(undo):
                fn()


if __name__ == "__main__":
    sys.exit(main())
