from aie.ir import Op


class _Kind(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Op) and obj.kind == cls.kind


class NpuWrite32Op(metaclass=_Kind):
    kind = "write32"
