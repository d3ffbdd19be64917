from tvm_tirx.script import tirx as T


A0 = (1, 2, 3, 4, 5, 6, 7, 8)
A1 = (*A0, *A0, *A0, *A0, *A0, *A0, *A0, *A0)
A2 = (*A1, *A1, *A1, *A1, *A1, *A1, *A1, *A1)
A3 = (*A2, *A2, *A2, *A2, *A2, *A2, *A2, *A2, *A2)
