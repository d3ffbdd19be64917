from tvm_tirx.script import tirx as T


@T.inline
def k(x: T.int32) -> T.int32:
    return x
