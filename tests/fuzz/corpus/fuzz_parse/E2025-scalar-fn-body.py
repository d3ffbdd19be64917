from tvm_tirx.script import tirx as T


@T.function
def f(x: T.float32) -> T.float32:
    for i in range(2):
        pass
    return x
