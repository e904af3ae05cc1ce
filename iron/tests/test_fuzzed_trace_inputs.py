"""Property tests (issue 14): mutated manifests, capture files, text and binary traces
and artifacts through the CLI entry points and the public API raise nothing but
iron's own errors. A small set here (a few seconds); thousands of examples in
``benchmarks/bench_robustness.py``. Strategies and entry points: ``iron/tests/fuzz.py``."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from iron.tests import fuzz

QUICK = settings(max_examples=25, deadline=None, database=None, suppress_health_check=list(HealthCheck))


@QUICK
@given(fuzz.mutated_manifest())
def test_mutated_manifests(data):
    fuzz.check_manifest(data)


@QUICK
@given(fuzz.mutated_bytes(fuzz.reference()["capture"]))
def test_mutated_capture_files(data):
    fuzz.check_capture(data)


@QUICK
@given(fuzz.mutated_bytes(fuzz.reference()["text"]))
def test_mutated_text_traces(data):
    fuzz.check_text(data)


@QUICK
@given(fuzz.mutated_words())
def test_mutated_binary_traces_never_raise(words):
    fuzz.check_words(words)


@QUICK
@given(fuzz.mutated_bytes(fuzz.reference()["artifact"]))
def test_mutated_artifacts(data):
    fuzz.check_artifact(data)
