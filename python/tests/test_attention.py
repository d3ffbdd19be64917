"""examples/attention_fwd.py (ptxtile.kernels.attention's script) in the
PTX emulator on numpy arrays, against softmax(scale Q K^T [+ causal]) V
and its log-sum-exp computed here in float64 from the same bf16/fp16
inputs (never from the emulator or the lowering)."""
import importlib

import pytest

import ptxtile
from conftest import example

np = pytest.importorskip("numpy")
# the module (ptxtile.kernels.attention, the attribute, is the function)
attn = importlib.import_module("ptxtile.kernels.attention")


def to_bf16(x):
    """float32 -> bf16 bits, round to nearest even."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16(u):
    return (u.astype(np.uint32) << 16).view(np.float32)


def reference(q, k, v, causal, scale):
    """float64 attention of (batch, seq, heads, dim) arrays; kv head
    h // (heads / kv_heads); causal is top-left (key j <= query i)."""
    sq, h = q.shape[1], q.shape[2]
    sk, hk = k.shape[1], k.shape[2]
    kk = np.repeat(k.astype(np.float64), h // hk, axis=2)
    vv = np.repeat(v.astype(np.float64), h // hk, axis=2)
    s = np.einsum("bqhd,bkhd->bhqk", q.astype(np.float64), kk) * scale
    if causal:
        s = np.where(np.arange(sk)[None, :] > np.arange(sq)[:, None],
                     -np.inf, s)
    mx = s.max(-1, keepdims=True)
    p = np.exp(s - mx)
    l = p.sum(-1, keepdims=True)
    o = np.einsum("bhqk,bkhd->bqhd", p / l, vv)
    return o, (np.log(l) + mx)[..., 0]


def run(b, h, hk, sq, sk, causal, d=128, dtype="bfloat16", pingpong=False,
        block_n=None, kern=None, **kw):
    rng = np.random.default_rng(sq * 7 + sk + d + causal)
    shape_q, shape_k = (b, sq, h, d), (b, sk, hk, d)
    if dtype == "bfloat16":
        q, k, v = (to_bf16(rng.standard_normal(s)) for s in
                   (shape_q, shape_k, shape_k))
        qf, kf, vf = from_bf16(q), from_bf16(k), from_bf16(v)
        o = np.zeros(shape_q, np.uint16)
    else:
        q, k, v = (rng.standard_normal(s).astype(np.float16) for s in
                   (shape_q, shape_k, shape_k))
        qf, kf, vf = q.astype(np.float32), k.astype(np.float32), \
            v.astype(np.float32)
        o = np.zeros(shape_q, np.float16)
    lse = np.full((b, h, sq), -1.0, np.float32)
    if kern is None:
        src = attn.attention_source(d, dtype, causal, block_n, pingpong)
        kern = ptxtile.compile(src, target="sm_90a", cache=False)
    kern.emulate(q, k, v, o, lse, np.float32(attn.scale_log2(d)), **kw)
    of = from_bf16(o) if dtype == "bfloat16" else o.astype(np.float32)
    want_o, want_lse = reference(qf, kf, vf, causal, d ** -0.5)
    # bf16 P and O roundings: a few units of 2^-8 at |o| <= ~3
    err = np.abs(of - want_o).max()
    assert err < 0.02, "max |O - reference| = %g" % err
    lerr = np.abs(lse - want_lse).max()
    assert lerr < 1e-4, "max |LSE - reference| = %g" % lerr


def test_noncausal_two_key_blocks_ragged():
    # 192 queries (the second CTA's rows 64.. past seq_q), 192 keys (the
    # second block masked past seq_k), late TMA/wgmma completion and the
    # shared-memory race check
    run(1, 1, 1, 192, 192, False, late=True, check_races=True)


def test_causal_diagonal_blocks():
    run(1, 1, 1, 192, 192, True)


def test_gqa_seq_q_ne_seq_k():
    # 4 query heads over 2 kv heads, 2 batches, 130 queries x 300 keys
    # (three key blocks: the ring's stages wrap)
    run(2, 4, 2, 130, 300, False)


def test_mqa_causal_more_queries_than_keys():
    run(1, 2, 1, 300, 130, True)


def test_head_dim_64_and_256():
    run(1, 1, 1, 192, 300, False, d=64)
    run(1, 1, 1, 130, 200, True, d=256)


def test_larger_key_blocks():
    # the tuner's other block sizes: 176 keys at d128 (m64n176), 192 at
    # d64, 80 at d256 (P V with 5 k16 slices)
    run(1, 1, 1, 200, 400, True, block_n=176, pingpong=True)
    run(1, 1, 1, 200, 400, False, d=64, block_n=192)
    run(1, 1, 1, 200, 400, True, d=256, block_n=80)


def test_tuner_variants_through_constants():
    # the autotuner's configs are compile(constants=) of the script (key
    # block, its wgmma spelling, ping-pong): each one, as the tuner
    # compiles it, against the reference
    for cfg in attn._configs(128):
        k = attn._kernel(128, "bfloat16", True, False, cfg)
        assert "m64n%dk16" % cfg["block_n"] in k.ptx
        assert ("bar.arrive" in k.ptx) == cfg["pingpong"]
        # the ring's barriers: full and empty, K and V, one per stage
        stages = cfg.get("stages", 2)
        assert k.ptx.count("mbarrier.init.shared.b64") == 1 + 4 * stages
        run(1, 2, 1, 200, 300, True, kern=k)


def test_tuner_key_takes_the_launch_arguments():
    # ptxtile.autotune calls a callable key with the launch arguments
    # spread out (key(*args)); the shape class is the bit lengths of
    # seq_q, seq_k and batch x heads (varlen: max_seq_q, the packed keys)
    z = np.zeros
    q, k = z((2, 1000, 4, 1), np.uint8), z((2, 3000, 2, 1), np.uint8)
    dense = (q, k, k, q, None, 0.1)
    t = attn._tuner(128, "bfloat16", False, False)
    assert t._key_values(dense) == (10, 12, 4)
    q1, k1 = z((1, 5000, 8, 1), np.uint8), z((1, 7000, 8, 1), np.uint8)
    packed = (q1, k1, k1, q1, None, 0.1, None, None, 300)
    tv = attn._tuner(128, "bfloat16", True, True)
    assert tv._key_values(packed) == (9, 13, 4)


def test_float16():
    run(1, 2, 1, 192, 300, True, dtype="float16")


def test_pingpong_consumers():
    run(1, 2, 1, 260, 300, True, pingpong=True, late=True)


def test_ring_wraps_three_times():
    # six key blocks through the 2-stage ring: every stage's full/empty
    # parity flips three times; late completion and the race check
    run(1, 1, 1, 130, 700, False, late=True, check_races=True)


def test_three_stage_ring_wraps():
    # the 3-stage ring (the tuner's deeper variant): eight key blocks
    # wrap it twice and more, late completion and the race check; a
    # ragged last block and the causal diagonal
    cfg = {"block_n": 128, "pingpong": True, "stages": 3}
    k = attn._kernel(128, "bfloat16", False, False, cfg)
    run(1, 1, 1, 130, 1000, False, kern=k, late=True, check_races=True)
    kc = attn._kernel(128, "bfloat16", True, False, cfg)
    run(1, 2, 1, 300, 300, True, kern=kc)


def test_single_row_and_key():
    run(1, 1, 1, 1, 1, False)


def test_example_is_the_package_script():
    with open(example("attention_fwd.py")) as f:
        ex = f.read()
    with open(attn._SCRIPT) as f:
        assert f.read() == ex


def test_unsupported_configurations_are_named():
    with pytest.raises(ValueError, match="head_dim 96"):
        attn.attention_source(96)
    with pytest.raises(ValueError, match="float32"):
        attn.attention_source(128, "float32")
    with pytest.raises(ValueError, match="block_n"):
        attn.attention_source(256, block_n=128)


def run_varlen(lens_q, lens_k, h, hk, causal, d=128):
    """Sequences packed along the seq axis, offsets cu_q / cu_k: each
    sequence is checked against its own attention."""
    rng = np.random.default_rng(sum(lens_q) + 3 * sum(lens_k))
    cq = np.concatenate([[0], np.cumsum(lens_q)]).astype(np.int32)
    ck = np.concatenate([[0], np.cumsum(lens_k)]).astype(np.int32)
    q = to_bf16(rng.standard_normal((1, cq[-1], h, d)))
    k = to_bf16(rng.standard_normal((1, ck[-1], hk, d)))
    v = to_bf16(rng.standard_normal((1, ck[-1], hk, d)))
    # a canary past every sequence's rows: nothing is written there
    o = np.full((1, cq[-1] + 8, h, d), 0x7FC1, np.uint16)
    lse = np.full((1, h, cq[-1] + 8), -7.0, np.float32)
    src = attn.attention_source(d, "bfloat16", causal, varlen=True)
    kern = ptxtile.compile(src, target="sm_90a", cache=False)
    o_in = o[:, :cq[-1]]
    lse_in = np.ascontiguousarray(lse[:, :, :cq[-1]])
    kern.emulate(q, k, v, o_in, lse_in, np.float32(attn.scale_log2(d)), cq,
                 ck, max(lens_q))
    assert np.all(o[:, cq[-1]:] == 0x7FC1)
    of = from_bf16(o)
    for i in range(len(lens_q)):
        want_o, want_lse = reference(
            from_bf16(q[:, cq[i]:cq[i + 1]]), from_bf16(k[:, ck[i]:ck[i + 1]]),
            from_bf16(v[:, ck[i]:ck[i + 1]]), causal, d ** -0.5)
        err = np.abs(of[:, cq[i]:cq[i + 1]] - want_o).max()
        assert err < 0.02, "sequence %d: max |O - reference| = %g" % (i, err)
        lerr = np.abs(lse_in[:, :, cq[i]:cq[i + 1]] - want_lse).max()
        assert lerr < 1e-4, "sequence %d: max |LSE - ref| = %g" % (i, lerr)


def test_varlen_causal():
    # three sequences: one shorter than a block, one of two blocks with a
    # ragged end, one of exactly one block; the grid is sized by the
    # longest, so the shorter ones' extra CTAs store nothing
    run_varlen([37, 200, 128], [37, 200, 128], 2, 1, True)


def test_varlen_noncausal_ragged_keys():
    run_varlen([70, 150], [300, 20], 1, 1, False)


class _Dev(object):
    """A CUDA array by __cuda_array_interface__ (nothing is read: the
    launch planner only checks it)."""

    def __init__(self, shape, typestr, strides=None, ptr=1 << 20):
        self.__cuda_array_interface__ = {
            "shape": shape, "typestr": typestr, "strides": strides,
            "data": (ptr, False), "version": 3}


def test_sdpa_strides_pass_the_launch_checks():
    # (batch, heads, seq, dim) fp16 storage viewed as (batch, seq, heads,
    # dim): the kernel reads Q, K, V only through tensor maps encoded from
    # these strides, so the metadata marks them "contiguous": false and
    # the launch planner takes them; O is written with dense indexing and
    # must stay dense
    b, h, s, d = 2, 4, 96, 128
    st = (h * s * d * 2, d * 2, s * d * 2, 2)  # bytes, transposed
    qkv = [_Dev((b, s, h, d), "<f2", st, (1 << 20) * (i + 1))
           for i in range(3)]
    o = _Dev((b, s, h, d), "<f2", None, 1 << 24)
    lse = _Dev((b, h, s), "<f4", None, 1 << 25)
    k = attn._kernel(128, "float16", False, False, attn._configs(128)[0])
    k.check(*qkv, o, lse, 0.5)
    with pytest.raises(ptxtile.LaunchError) as e:
        k.check(*qkv, _Dev((b, s, h, d), "<f2", st, 1 << 24), lse, 0.5)
    assert "dense" in str(e.value)
    # a row stride TMA cannot encode (not a multiple of 16 bytes)
    odd = (h * s * d * 2, d * 2 + 2, s * d * 2, 2)
    with pytest.raises(ptxtile.LaunchError, match="multiple of 16"):
        k.check(_Dev((b, s, h, d), "<f2", odd), *qkv[1:], o, lse, 0.5)


def test_metadata_marks_tensor_map_only_parameters():
    # codegen (src/codegen/meta.c): a tensor with no element access or
    # address in the kernel, only tensor maps, takes any strides
    def dense(name):
        k = ptxtile.compile(example(name), target="sm_90a", cache=False)
        return {p["name"]: p.get("contiguous", True)
                for p in k.meta["kernels"][0]["params"]
                if p["kind"] == "tensor"}
    assert dense("attention_fwd.py") == {"Q": False, "K": False,
                                         "V": False, "O": True, "LSE": True}
    # TMA loads of A and B, direct stores of C
    assert dense("gemm_wgmma_direct.py") == {"A": False, "B": False,
                                             "C": True}
    assert dense("saxpy_relu.py") == {"X": True, "Y": True}


def _torch():
    try:
        import torch
    except ImportError:
        pytest.skip("torch is not installed")
    return torch


def test_fake_implementation_on_meta_tensors():
    torch = _torch()
    bf = torch.bfloat16
    q = torch.empty(2, 300, 8, 128, dtype=bf, device="meta")
    k = torch.empty(2, 500, 2, 128, dtype=bf, device="meta")
    o, lse = attn._op()(q, k, k, None, None, True, -1.0, -1, "bshd")
    assert o.shape == q.shape and o.dtype == bf and lse.shape == (2, 8, 300)
    assert lse.dtype == torch.float32
    # SDPA's layout: out comes back (batch, heads, seq, dim), a view of
    # a dense (batch, seq, heads, dim) tensor
    qh = torch.empty(2, 8, 300, 128, dtype=bf, device="meta")
    kh = torch.empty(2, 2, 500, 128, dtype=bf, device="meta")
    o, lse = attn._op()(qh, kh, kh, None, None, False, 0.1, -1, "bhsd")
    assert o.shape == qh.shape and o.transpose(1, 2).is_contiguous()
    cu = torch.empty(4, dtype=torch.int32, device="meta")
    qv = torch.empty(900, 8, 64, dtype=bf, device="meta")
    kv = torch.empty(700, 8, 64, dtype=bf, device="meta")
    o, lse = attn._op()(qv, kv, kv, cu, cu, True, -1.0, 400, "bshd")
    assert o.shape == qv.shape and lse.shape == (8, 900)


def test_argument_rules():
    torch = _torch()
    bf = torch.bfloat16
    q = torch.zeros(1, 64, 4, 128, dtype=bf)
    k = torch.zeros(1, 64, 2, 128, dtype=bf)
    K = importlib.import_module("ptxtile.kernels")
    with pytest.raises(ValueError, match="head dim 96"):
        K.attention(q[..., :96].contiguous(), k[..., :96].contiguous(),
                    k[..., :96].contiguous())
    with pytest.raises(TypeError, match="this kernel takes bfloat16"):
        K.attention(q.float(), k.float(), k.float())
    with pytest.raises(TypeError, match="q must be a torch.Tensor"):
        K.attention([1], k, k)
    with pytest.raises(ValueError, match="must divide"):
        K.attention(q, torch.zeros(1, 64, 3, 128, dtype=bf),
                    torch.zeros(1, 64, 3, 128, dtype=bf))
    with pytest.raises(ValueError, match="rank 4"):
        K.attention(q[0], k[0], k[0])
    with pytest.raises(ValueError, match="16-byte multiples"):
        # rows of 130 elements: 260 bytes, not a TMA stride
        K.attention(torch.empty_strided((1, 64, 4, 128), (64 * 4 * 130,
                                                          4 * 130, 130, 1),
                                        dtype=bf), k, k)
    with pytest.raises(ValueError, match="layout"):
        K.attention(q, k, k, layout="sbhd")
    with pytest.raises(ValueError, match="go together"):
        K.attention(q[0], k[0], k[0],
                    cu_seqlens_q=torch.zeros(2, dtype=torch.int32))
    with pytest.raises(ValueError, match="q is on cpu; it takes CUDA"):
        K.attention(q, k, k)


def test_torch_compile_fullgraph_traces_it_on_meta_tensors():
    torch = _torch()
    import torch._dynamo
    K = importlib.import_module("ptxtile.kernels")
    attn._op()

    def f(q, k, v):
        return K.attention(q, k, v, causal=True) * 2

    bf = torch.bfloat16
    q = torch.empty(1, 256, 4, 128, dtype=bf, device="meta")
    k = torch.empty(1, 256, 2, 128, dtype=bf, device="meta")
    torch._dynamo.reset()
    o = torch.compile(f, fullgraph=True, backend="aot_eager")(q, k, k)
    assert o.shape == q.shape and o.dtype == bf


def test_bench_scripts_shadow_no_standard_module():
    # bench/attention/run.py's folder is first on sys.path when it runs:
    # a file there named like a standard module (profile.py did) replaces
    # it for torch (cProfile imports profile) and broke the autotuned rows
    import os
    import sys
    folder = os.path.join(os.path.dirname(attn._SCRIPT), "..", "..", "..",
                          "..", "bench", "attention")
    names = {f[:-3] for f in os.listdir(folder) if f.endswith(".py")}
    assert "run" in names
    assert not names & set(sys.stdlib_module_names), names
