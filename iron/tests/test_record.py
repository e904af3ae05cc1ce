"""iron.record.Record: the plain records of the decode path (manifest, target tables) behave
as the dataclasses they replaced (issue 37: importing ``dataclasses`` cost every small decode
~9 ms). The reference is a real dataclass of the same fields, declared here."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from iron.artifact.manifest import Manifest, Slice, TraceUnit
from iron.record import Default, FrozenRecordError, Record
from iron.target.geometry import TARGETS


class Plain(Record):
    a: int
    b: str = "x"
    c: list = Default(list)


@dataclasses.dataclass
class Twin:
    a: int
    b: str = "x"
    c: list = dataclasses.field(default_factory=list)


class Frozen(Record, frozen=True):
    a: int
    b: tuple = ()


@dataclasses.dataclass(frozen=True)
class FrozenTwin:
    a: int
    b: tuple = ()


def test_construction_repr_and_equality_are_a_dataclass_s():
    for args, kwargs in [((1,), {}), ((1, "y"), {}), ((), {"a": 2, "c": [3]}), ((4,), {"b": "z"})]:
        p, t = Plain(*args, **kwargs), Twin(*args, **kwargs)
        assert repr(p) == repr(t).replace("Twin(", "Plain(")
        assert (p.a, p.b, p.c) == (t.a, t.b, t.c)
        assert p == Plain(*args, **kwargs) and p != Plain(99) and p != t
    assert Plain(1).c is not Plain(1).c  # a new default per record
    assert Plain._fields == tuple(f.name for f in dataclasses.fields(Twin))
    with pytest.raises(TypeError, match="missing required argument: 'a'"):
        Plain(b="y")
    with pytest.raises(TypeError, match="unexpected keyword argument 'd'"):
        Plain(1, d=2)
    with pytest.raises(TypeError, match="multiple values for argument 'a'"):
        Plain(1, a=2)
    with pytest.raises(TypeError, match="takes 3 positional arguments but 4"):
        Plain(1, "b", [], 4)
    with pytest.raises(TypeError):
        hash(Plain(1))  # mutable: unhashable, as a dataclass with eq


def test_replace_is_dataclasses_replace():
    p, t = Plain(1, "y", [2]), Twin(1, "y", [2])
    q, u = p.replace(b="z"), dataclasses.replace(t, b="z")
    assert (q.a, q.b, q.c) == (u.a, u.b, u.c) and q.c is p.c  # fields are not copied
    assert p.b == "y"  # the original kept
    with pytest.raises(TypeError):
        p.replace(d=1)


def test_a_frozen_record_is_immutable_and_hashed_by_value():
    f, t = Frozen(1, (2,)), FrozenTwin(1, (2,))
    assert hash(f) == hash(Frozen(1, (2,))) == hash(t) and f == Frozen(1, (2,))
    assert len({f, Frozen(1, (2,)), Frozen(2)}) == 2
    for action in (lambda: setattr(f, "a", 2), lambda: delattr(f, "a"), lambda: setattr(f, "new", 1)):
        with pytest.raises(FrozenRecordError):
            action()
        with pytest.raises(AttributeError):  # what dataclasses' FrozenInstanceError is too
            action()
    assert f.replace(a=5) == Frozen(5, (2,)) and f.a == 1


def test_records_copy_and_pickle():
    npu1 = TARGETS["npu1"]
    for obj in (npu1, Plain(1, "y", [2]), Frozen(3)):
        for twin in (copy.copy(obj), copy.deepcopy(obj), pickle.loads(pickle.dumps(obj))):
            assert twin == obj and type(twin) is type(obj)
    assert hash(pickle.loads(pickle.dumps(npu1))) == hash(npu1)


def _manifest() -> Manifest:
    unit = TraceUnit(0, 2, "core", 0, 1, ["NONE"] * 8, [0] * 8, 1, 2, ports=[[0, "DMA", 0, "S2MM"]])
    sl = Slice(0, "GEMM", 0, "main", "seq", 0, 64, units=[unit], kernel="main:seq")
    return Manifest("npu1", 1, 1, 1000.0, "main:seq", 1, 64, slices=[sl], sources={"a": "b"})


def test_a_manifest_to_dict_is_a_deep_copy_that_reads_back_equal():
    m = _manifest()
    d = m.to_dict()
    assert d["slices"][0]["units"][0]["ports"] == [[0, "DMA", 0, "S2MM"]]
    assert set(d) == set(Manifest._fields) and d["schema"] == 1 and d["sources"] == {"a": "b"}
    assert Manifest.from_json(m.to_json()) == m == Manifest.from_dict(d)
    d["slices"][0]["units"][0]["ports"][0][0] = 7  # the manifest's own lists are not shared
    d["sources"]["a"] = "c"
    assert m.slices[0].units[0].ports == [[0, "DMA", 0, "S2MM"]] and m.sources == {"a": "b"}
    a, b = Manifest("npu1", 1, 1, 1000.0, "", -1, 0), Manifest("npu1", 1, 1, 1000.0, "", -1, 0)
    assert a.slices == [] and a.slices is not b.slices and a.sources is not b.sources
