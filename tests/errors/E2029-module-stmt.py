from tvm_tirx.script import tirx as T


for i in range(3):
    pass
