# GPU test: control flow and scalar arithmetic on every dtype family.
# Launch: grid=1, block=64.  Out: int32[64, 8], F: float32[64, 4].
# For thread t (0..63), with s = t - 32 (signed, -32..31):
#   Out[t, 0] = s // 5            (Python floor division)
#   Out[t, 1] = s % 5             (Python floor modulo, 0..4)
#   Out[t, 2] = int(uint32(t) * 2654435761 >> 16)   (u32 wraparound;
#               reinterpret of the uint32 result as int32)
#   Out[t, 3] = int8(s * 9)       (wraps to -128..127, sign-extended)
#   Out[t, 4] = number of i in range(t) with i % 3 == 0, counted with a
#               while loop that breaks at 40 and skips (continue) odd i
#               i.e. count of even i < min(t, 40) with i % 3 == 0
#   Out[t, 5] = int(float16(s) * float16(0.5))  (truncation toward 0)
#   Out[t, 6] = 1 if (s < 0 and t % 2 == 0) else 0
#   Out[t, 7] = max(min(s, 10), -10) + abs(s) // 8  (int64 arithmetic)
#   F[t, 0] = float32(bfloat16(t) * bfloat16(3))     (exact: small ints)
#   F[t, 1] = float32(float64(s) / 4.0)
#   F[t, 2] = T.if_then_else(s >= 0, T.sqrt(float32(t)), -1.0)
#   F[t, 3] = float32(t) // 3.0 (floor)
from tvm_tirx.script import tirx as T


@T.function
def scalar_flow(Out: T.Tensor((64, 8), "int32"), F: T.Tensor((64, 4), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    t = T.cuda.thread_idx("x")
    s: T.int32 = t - 32
    Out[t, 0] = s // 5
    Out[t, 1] = s % 5
    h: T.uint32 = T.cast(t, "uint32") * T.uint32(2654435761)
    Out[t, 2] = T.reinterpret("int32", h >> T.uint32(16))
    b: T.int8 = T.cast(s, "int8") * T.int8(9)
    Out[t, 3] = T.cast(b, "int32")
    cnt: T.int32 = 0
    i: T.int32 = -1
    while True:
        i = i + 1
        if i >= t or i >= 40:
            break
        if i % 2 == 1:
            continue
        if i % 3 == 0:
            cnt = cnt + 1
    Out[t, 4] = cnt
    hf: T.float16 = T.cast(s, "float16") * T.float16(0.5)
    Out[t, 5] = T.cast(hf, "int32")
    if s < 0 and t % 2 == 0:
        Out[t, 6] = 1
    else:
        Out[t, 6] = 0
    w: T.int64 = T.cast(s, "int64")
    Out[t, 7] = T.cast(T.max(T.min(w, T.int64(10)), T.int64(-10)) + T.abs(w) // T.int64(8), "int32")
    bf: T.bfloat16 = T.cast(t, "bfloat16") * T.bfloat16(3.0)
    F[t, 0] = T.cast(bf, "float32")
    F[t, 1] = T.cast(T.cast(s, "float64") / T.float64(4.0), "float32")
    F[t, 2] = T.if_then_else(s >= 0, T.sqrt(T.cast(t, "float32")), T.float32(-1.0))
    F[t, 3] = T.cast(t, "float32") // T.float32(3.0)
