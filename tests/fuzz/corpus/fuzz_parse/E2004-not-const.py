from tvm_tirx.script import tirx as T


n = T.dynamic("n")
M = n * 2
