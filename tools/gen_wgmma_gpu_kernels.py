"""tools/gen_wgmma_gpu_kernels.py - writes tests/gpu/kernels/tile_wgmma.py,
the kernels of tests/gpu/gpu_wgmma.c (one warpgroup each).

Every case fills shared memory with a raw word image the host built from
the PTX ISA's canonical layouts (K-major / MN-major, none/32B/64B/128B
swizzle), states that same layout on the view it passes to wgmma, and
stores D by the ISA's D fragment formula.  The C test's case table
(gpu_wgmma.c) must list the same cases in the same order.
Run: python3 tools/gen_wgmma_gpu_kernels.py > tests/gpu/kernels/tile_wgmma.py
"""

# name, type, N, Ktot, A (kind, swizzle), B (kind, swizzle)
# kind: "k" K-major, "mn" MN-major, "reg" registers; swizzle 0..3
CASES = [
    ("wg_bf16_n64_k128", "bf16", 64, 64, ("k", 3), ("k", 3)),
    ("wg_bf16_n256_mn128", "bf16", 256, 32, ("k", 2), ("mn", 3)),
    ("wg_f16_n8_rega", "f16", 8, 32, ("reg", 0), ("k", 0)),
    ("wg_f16_n64_mn", "f16", 64, 16, ("mn", 1), ("mn", 0)),
    ("wg_tf32_n64", "tf32", 64, 32, ("k", 3), ("k", 1)),
    ("wg_tf32_n8_rega", "tf32", 8, 16, ("reg", 0), ("k", 2)),
    ("wg_e4m3_n64", "e4m3", 64, 64, ("k", 2), ("k", 0)),
    ("wg_e4m3_n256_rega", "e4m3", 256, 128, ("reg", 0), ("k", 3)),
    ("wg_bf16_n8_k32", "bf16", 8, 32, ("k", 1), ("k", 1)),
]

TYPES = {  # script dtype, bytes, K per instruction, PTX input suffix
    "bf16": ("bfloat16", 2, 16, "bf16.bf16"),
    "f16": ("float16", 2, 16, "f16.f16"),
    "tf32": ("tf32", 4, 8, "tf32.tf32"),
    "e4m3": ("float8_e4m3fn", 1, 32, "e4m3.e4m3"),
}
LOG2 = {1: 4, 2: 3, 4: 2}  # ComposeLayout M: log2(elements per 16 bytes)


def view_layout(kind, sw, R, ktot, e, ki):
    """Shard spec of the (1, KR, R, KI) view over the flat element image."""
    kr = ktot // ki
    T = 16 // e
    if kind == "k" and sw:
        kwe = (16 << sw) // e
        per_row = kwe // ki
        if kr <= per_row:
            s = "T.S[(1, %d, %d, %d):(0, %d, %d, 1)]" % (kr, R, ki, ki, kwe)
        else:
            s = "T.S[(1, %d, %d, %d, %d):(0, %d, %d, %d, 1)]" % (
                kr // per_row, per_row, R, ki, R * kwe, ki, kwe)
    elif kind == "k":
        s = "T.S[(1, %d, %d, 8, 2, %d):(0, %d, %d, %d, %d, 1)]" % (
            kr, R // 8, T, 16 * T, 8 * ktot, T, 8 * T)
    elif sw:
        we = (16 << sw) // 2
        s = "T.S[(1, %d, %d, %d, 2, 8):(0, %d, %d, 1, %d, %d)]" % (
            kr, R // we, we, 16 * R, 8 * we, 8 * R, we)
    else:
        s = "T.S[(1, %d, %d, 8, 2, 8):(0, %d, 64, 1, %d, 8)]" % (
            kr, R // 8, 16 * R, 8 * R)
    lay = "T.TileLayout(%s)" % s
    if sw:
        lay = "T.ComposeLayout(%d, %d, 3, %s)" % (LOG2[e], sw, lay)
    return lay, kr


def kernel(name, ty, N, ktot, a, b):
    dt, e, ki, ins = TYPES[ty]
    kr = ktot // ki
    spell = "wgmma.mma_async.sync.aligned.m64n%dk%d.f32.%s" % (N, ki, ins)
    out = []
    args = ["D: T.Tensor((64, %d), \"float32\")" % N,
            "SB: T.Tensor((%d,), \"uint32\")" % (N * ktot * e // 4)]
    if a[0] == "reg":
        args.append("RA: T.Tensor((64, %d), \"uint32\")" % (ktot * e // 4))
    else:
        args.append("SA: T.Tensor((%d,), \"uint32\")" % (64 * ktot * e // 4))
    out.append("@T.function")
    out.append("def %s(%s):" % (name, ", ".join(args)))
    out.append("    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))")
    out.append("    tid = T.cuda.thread_idx(\"x\")")
    out.append("    lane = T.cuda.lane_id()")
    out.append("    w = T.cuda.warp_id()")
    out.append("    g = lane // 4")
    out.append("    t = lane % 4")
    bl, _ = view_layout(b[0], b[1], N, ktot, e, ki)
    out.append("    B = T.alloc_shared((%d,), \"%s\", align=1024)" % (N * ktot, dt))
    out.append("    BW = B.view(\"uint32\")")
    out.append("    for i in range(%d):" % (N * ktot * e // 4 // 128))
    out.append("        BW[i * 128 + tid] = SB[i * 128 + tid]")
    if a[0] == "reg":
        out.append("    FA = T.alloc_local((4, 1, %d, 16, 8), \"uint32\", layout=T.TileLayout(T.S[(4, 1, %d, 2, 8, 2, 4):(1@wid_in_wg, %d, 4, 1, 4@laneid, 2, 1@laneid)]))" % (kr, kr, 4 * kr))
        out.append("    PA = FA.view(%d)" % (4 * kr))
        out.append("    for k in T.unroll(%d):" % kr)
        out.append("        for r in T.unroll(4):")
        out.append("            PA[k * 4 + r] = RA[16 * w + g + 8 * (r % 2), 8 * k + t + 4 * (r // 2)]")
        aop = "FA"
    else:
        al, _ = view_layout(a[0], a[1], 64, ktot, e, ki)
        out.append("    A = T.alloc_shared((%d,), \"%s\", align=1024)" % (64 * ktot, dt))
        out.append("    AW = A.view(\"uint32\")")
        out.append("    for i in range(%d):" % (64 * ktot * e // 4 // 128))
        out.append("        AW[i * 128 + tid] = SA[i * 128 + tid]")
        aop = "A.view(1, %d, 64, %d, layout=%s)" % (kr, ki, al)
    out.append("    T.ptx.fence.proxy.async_.shared__cta()")
    out.append("    T.cuda.cta_sync()")
    out.append("    FD = T.alloc_local((4, 1, 1, 16, %d), \"float32\", layout=T.TileLayout(T.S[(4, 1, 1, 2, 8, %d, 4, 2):(1@wid_in_wg, %d, %d, 2, 4@laneid, 4, 1@laneid, 1)]))" % (N, N // 8, N // 2, N // 2))
    out.append("    T.ptx[\"wgmma.fence.sync.aligned\"]()")
    out.append("    T.cuda.tile.apply(T.ptx[\"%s\"], FD, %s, B.view(1, %d, %d, %d, layout=%s), scope=\"warpgroup\")" % (spell, aop, kr, N, ki, bl))
    out.append("    T.ptx[\"wgmma.commit_group.sync.aligned\"]()")
    out.append("    T.ptx[\"wgmma.wait_group.sync.aligned\"](0)")
    out.append("    PD = FD.view(%d)" % (N // 2))
    out.append("    for r in T.unroll(%d):" % (N // 2))
    out.append("        D[16 * w + g + 8 * ((r // 2) % 2), 8 * (r // 4) + 2 * t + r % 2] = PD[r]")
    return "\n".join(out)


print("# tile_wgmma.py - generated by tools/gen_wgmma_gpu_kernels.py (the case")
print("# list and layouts are documented there); kernels of tests/gpu/gpu_wgmma.c.")
print("from tvm_tirx.script import tirx as T")
print("from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg")
for c in CASES:
    print("\n")
    print(kernel(*c))
