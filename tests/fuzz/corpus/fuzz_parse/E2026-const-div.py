from tvm_tirx.script import tirx as T


N = 4 // 0
