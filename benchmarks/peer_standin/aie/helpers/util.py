def fold_constant_operand(value):
    """The stand-in module holds constant operands folded already."""
    return value.value
