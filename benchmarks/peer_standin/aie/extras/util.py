def find_ops(op, pred):
    """The ops of a stand-in module (``aie.ir``) that ``pred`` accepts."""
    return [o for o in op.ops if pred(o)]
