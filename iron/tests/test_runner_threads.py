"""One loaded runner shared by threads: each call gets exact outputs."""

from __future__ import annotations

import threading

import numpy as np

from iron import build
from iron.operators import ReLU


def test_runner_shared_by_two_threads_gives_exact_outputs(tmp_path):
    op = ReLU(4096, "bf16")
    run = build(op, trace=False, cache_dir=tmp_path).load("sim")
    inputs = [op.example_inputs(seed) for seed in range(8)]
    alone = [run(*x) for x in inputs]  # single-threaded reference
    got: dict[tuple[int, int], np.ndarray] = {}
    errors = []
    barrier = threading.Barrier(2)

    def worker(t):
        try:
            barrier.wait()
            for rep in range(5):
                for i, x in enumerate(inputs):
                    got[t, rep * len(inputs) + i] = run(*x)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    wrong = [k for k, v in got.items() if not np.array_equal(v, alone[k[1] % len(inputs)])]
    assert len(got) == 80 and wrong == []
