# a loop over a constant sequence is its body repeated per element;
# break and continue have no loop to leave there
from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((32,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    x = A[0]
    for s in (1, 2):
        if x > 0.0:
            break
        x = x + 1.0
    for s in (1, 2):
        for j in range(2):
            if x > 1.0:
                break
        continue
