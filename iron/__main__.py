"""``python -m iron`` is the ``iron`` command."""

import sys

from iron.cli import main

sys.exit(main())
