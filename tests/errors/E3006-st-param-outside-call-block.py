from tvm_tirx.script import tirx as T

# st.param and call are printf's call sequence (src/ptx/forms_call.def):
# their operands name a call block's .params, which no script value is,
# so a raw call never emits one (ptxas 13.0 segfaults on st.param
# outside a call block).
@T.function
def k(F: T.Tensor((4,), "uint64")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    v: T.uint64 = T.uint64(1)
    T.ptx["st.param.b64"](F.ptr_to([0]), v)
