"""Mutated foreign designs, fused modules, meta sections and core ELFs (hypothesis, a small
sample; ``iron/tests/fuzz.py``) raise nothing but iron's own errors.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from iron.tests import fuzz

FEW = settings(max_examples=10, deadline=None, database=None, suppress_health_check=list(HealthCheck))


@FEW
@given(fuzz.mutated_mlir(fuzz.FOREIGN))
def test_mutated_foreign_designs(data):
    fuzz.check_from_mlir(data)


@FEW
@given(fuzz.mutated_mlir(fuzz.FUSED))
def test_mutated_fused_modules_through_wire(data):
    fuzz.check_wire(data)


@FEW
@given(fuzz.mutated_meta())
def test_mutated_meta(meta):
    fuzz.check_meta(meta)


@FEW
@given(fuzz.mutated_bytes(fuzz.reference_core_elf()))
def test_mutated_core_elfs(data):
    fuzz.check_core_elf(data)
