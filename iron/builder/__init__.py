"""Build artifacts: ``iron.build`` (build), the cache and its key (cache), the sections both back
ends write (sections), the real toolchain (toolchain, peano, aiecc) and ``iron inspect`` /
``iron cache`` (cli)."""
