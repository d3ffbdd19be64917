from tvm_tirx.script import tirx as T


f = lambda x: x
