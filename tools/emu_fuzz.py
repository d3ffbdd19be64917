#!/usr/bin/env python3
"""emu_fuzz.py - the randomised differential test of the PTX emulator
(issue 15, "How it is validated"): from a seed, writes a ptxtile script per
instruction family with a form, types, rounding, vector width, space and
register/shared layout drawn from the PTX form table (src/ptx/forms_*.def),
random inputs for it, and runs it twice - `ptxtile run --gpu` and
`ptxtile run --emulate` (plus `--emulate --late` for asynchronous
families) - comparing every tensor afterwards.

  tools/emu_fuzz.py [--build DIR] [--seeds N] [--first S]
                    [--family F[,F...]] [--self] [--ptxas PATH]
                    [--replay FAMILY:SEED] [--keep DIR] [--jobs N]

Prints one line per family:
  PASS emu_fuzz/FAMILY: K kernels (seeds A..B), R rejected, U not modelled
  FAIL emu_fuzz/FAMILY seed=S (FORM): what differed  [replay: --replay F:S]
--ref-only runs only the reference (GPU) side, for --against later;
--against DIR compares with the reference outputs of an earlier run kept
with --keep DIR (a GPU run replayed on a CPU).  --mutate flips a bit of the emulator's first output of every kernel (a
check that the comparison reports it).
A generated script that ptxtile rejects is skipped and counted (the draw
is from the form table, which is wider than some tile contracts); a kernel
the emulator reports as not modelled (E9502) is counted, not compared.
--self runs the emulator in place of the GPU (a CPU check that the
generator works and its kernels compile; with --ptxas every generated
kernel's PTX must also pass ptxas -arch=sm_90a).  Exit: 0 all passed,
1 a failure, 77 no usable GPU (without --self).

Comparisons: bit for bit, except the .approx forms (and div.full), whose
float results must agree within the ISA's stated bound (relative 2^-20
for f32, 2 ulp for f16/bf16; |a - b| <= tol * max(1, |a|, |b|)).
"""
import argparse
import concurrent.futures
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ---- the form table ----

FORM_RE = re.compile(r'^FORM\((\w+), "([^"]*)", "([^"]*)", "([^"]*)", (\d+), (\w+)\)')
SM90_GATES = ("ANY", "SM90", "SM90A")


def read_forms():
    """Every FORM row of src/ptx/forms_*.def usable on sm_90a."""
    rows = []
    d = os.path.join(ROOT, "src", "ptx")
    for name in sorted(os.listdir(d)):
        if not (name.startswith("forms") and name.endswith(".def")):
            continue
        with open(os.path.join(d, name)) as f:
            for line in f:
                m = FORM_RE.match(line.strip())
                if m and m.group(6) in SM90_GATES:
                    rows.append(dict(fam=m.group(1), mn=m.group(2),
                                     tmpl=m.group(3), ops=m.group(4)))
    return rows


def expand(rng, tmpl, exclude=(), require=()):
    """One random spelling of a qualifier template: returns (suffix, vars)
    where vars maps t/u/s/v to the chosen qualifier (without the dot, ''
    when an optional variable group was left out)."""
    out, var = [], {}
    for tok in tmpl.split():
        m = re.match(r'^([a-z])?\{([^}]*)\}(\?)?$', tok)
        if not m:
            out.append(tok)
            continue
        name, alts, opt = m.group(1), m.group(2).split(","), m.group(3)
        alts = [a for a in alts if a not in exclude]
        if not alts:
            if not opt:
                return None
            pick = ""
        elif opt and name not in require and rng.random() < 0.4:
            pick = ""
        else:
            pick = rng.choice(alts)
        if name:
            var[name] = pick[1:] if pick else ""
        out.append(pick)
    return "".join(out), var


def operands(spec, var):
    """The operand list of a form: (out, kind, type, count) per operand,
    $t/$u/$s resolved; count is the register group size."""
    res = []
    if not spec:
        return res
    out_first = spec.startswith(">")
    for i, o in enumerate(spec.lstrip(">").split(",")):
        o = o.split("@")[0].split("{")[0]
        kind, _, ty = o.partition(":")
        n = 1
        if "*" in ty:
            ty, _, ns = ty.partition("*")
            n = 1
            for part in ns.split("*"):
                n *= int(var.get(part[1:], "1").lstrip("vx") or 1) \
                    if part.startswith("$") else int(part)
        if ty.startswith("$"):
            ty = var.get(ty[1:], "")
        res.append((out_first and i == 0, kind.rstrip("?"), ty, n))
    return res


# ---- types and values ----

BITS = {"b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16,
        "f16": 16, "bf16": 16, "e4m3x2": 16, "e5m2x2": 16, "b32": 32,
        "u32": 32, "s32": 32, "f32": 32, "f16x2": 32, "bf16x2": 32,
        "b64": 64, "u64": 64, "s64": 64, "f64": 64, "f32x2": 64}
CONTAINER = {8: "uint8", 16: "uint16", 32: "uint32", 64: "uint64"}


def float_parts(ty):
    """(element bits, exponent bits, count) of a float type, or None."""
    return {"f16": (16, 5, 1), "bf16": (16, 8, 1), "f32": (32, 8, 1),
            "f64": (64, 11, 1), "f16x2": (16, 5, 2), "bf16x2": (16, 8, 2),
            "f32x2": (32, 8, 2), "e4m3x2": (8, 4, 2),
            "e5m2x2": (8, 5, 2)}.get(ty)


def rand_float(rng, bits, ebits):
    """A float's bits: special values, small exact values, values near
    the rounding boundaries of narrower types, and random bits."""
    mbits = bits - 1 - ebits
    bias = (1 << (ebits - 1)) - 1
    sign = rng.getrandbits(1) << (bits - 1)
    r = rng.random()
    if r < 0.15:
        e = rng.choice([0, 0, (1 << ebits) - 1, 1, (1 << ebits) - 2])
        m = rng.choice([0, 1, rng.getrandbits(mbits), (1 << mbits) - 1])
    elif r < 0.45:
        # exponent near 1.0: ordinary magnitudes
        e = bias + rng.randint(-12, 12)
        m = rng.getrandbits(mbits)
    elif r < 0.65:
        # few mantissa bits: exact in narrower types, ties when rounded
        e = bias + rng.randint(-6, 10)
        keep = rng.randint(0, min(mbits, 12))
        m = rng.getrandbits(keep) << (mbits - keep) if keep else 0
        if rng.random() < 0.5 and mbits > 13:
            # a tie or near-tie for a 10- or 7-bit mantissa
            cut = rng.choice([10, 7]) if mbits > 10 else 3
            m = (m & ~((1 << (mbits - cut)) - 1)) | \
                (1 << (mbits - cut - 1)) | rng.choice([0, 0, 1])
    else:
        return rng.getrandbits(bits)
    e = max(0, min(e, (1 << ebits) - 1))
    return sign | (e << mbits) | m


def rand_value(rng, ty, bits):
    fp = float_parts(ty)
    if not fp:
        r = rng.random()
        if r < 0.2:
            v = rng.choice([0, 1, (1 << bits) - 1, 1 << (bits - 1),
                            (1 << (bits - 1)) - 1, 2, (1 << bits) - 2])
        elif r < 0.5:
            v = rng.randint(-100, 100) & ((1 << bits) - 1)
        else:
            v = rng.getrandbits(bits)
        return v
    ebits_total, ebits, cnt = fp
    v = 0
    for i in range(cnt):
        v |= rand_float(rng, ebits_total, ebits) << (i * ebits_total)
    return v


def pack(values, bits):
    fmt = {8: "B", 16: "H", 32: "I", 64: "Q"}[bits]
    return struct.pack("<%d%s" % (len(values), fmt), *values)


# ---- kernels ----

HEADER = ("from tvm_tirx.script import tirx as T\n"
          "from tvm_tirx.backend.cuda.axis import laneid, warpid\n\n")


class Kernel:
    """A generated case: script text, input files, comparison per output."""

    def __init__(self, fam, seed):
        self.fam, self.seed = fam, seed
        self.script = ""
        self.inputs = {}    # name -> bytes
        self.outputs = {}   # name -> (container bits, compare mode)
        self.form = ""
        self.late = False
        self.args = []


REG_FAMS = {"mov": "MOV", "add_sub_mul": "ARITH", "div_rcp_sqrt": "DIV",
            "min_max": "MINMAX", "fma": "FMA", "cvt": "CVT",
            "ex2_lg2": "EX2LG2", "abs_neg": "ABSNEG"}


def approx_mode(spelling, ty):
    if not re.search(r"\.(approx|full)\b", spelling) and \
       not spelling.startswith(("ex2", "lg2")):
        return "exact"
    return {"f32": "f32:9.5e-7", "f16": "f16:2", "bf16": "bf16:2",
            "f16x2": "f16:2", "bf16x2": "bf16:2",
            "f64": "f64:2e-6"}.get(ty, "exact")


def local_layout(rng, v, n):
    """A thread's register tensor (v, n): default slots or a permutation."""
    if v > 1 and n > 1 and rng.random() < 0.5:
        return "T.TileLayout(T.S[(%d, %d):(1, %d)])" % (v, n, v)
    return '"default"'


def gen_registers(k, rng, forms):
    rows = [f for f in forms if f["fam"] == REG_FAMS[k.fam]
            and "p" not in [o.split(":")[0].lstrip(">")
                            for o in f["ops"].split(",")]]
    row = rng.choice(rows)
    q, var = expand(rng, row["tmpl"])
    spelling = row["mn"] + q
    ops = operands(row["ops"], var)
    if any(o[2] not in BITS for o in ops):
        return None
    k.form = spelling
    v = rng.choice([1, 2, 4])
    nthr, block = 128, 32
    n = nthr * v
    params, body, stores = [], [], []
    names = []
    for i, (out, kind, ty, cnt) in enumerate(ops):
        bits = BITS[ty]
        cont = CONTAINER[bits]
        nm = ("O%d" if out else "I%d") % i
        loc = nm.lower()
        names.append(loc)
        params.append('%s: T.Tensor((%d, %d), "%s")' % (nm, n, cnt, cont))
        body.append('    %s = T.alloc_local((V, %d), "%s", layout=%s)\n'
                    % (loc, cnt, cont, local_layout(rng, v, cnt)))
        if out:
            k.outputs[nm] = (bits, approx_mode(spelling, ty))
            k.inputs[nm] = pack([rng.getrandbits(bits)
                                 for _ in range(n * cnt)], bits)
            stores.append("            %s[t * V + i, j] = %s[i, j]\n"
                          % (nm, loc) if cnt > 1 else
                          "        %s[t * V + i, 0] = %s[i, 0]\n" % (nm, loc))
        else:
            k.inputs[nm] = pack([rand_value(rng, ty, bits)
                                 for _ in range(n * cnt)], bits)
            body.append("    for i in T.unroll(V):\n"
                        "        for j in T.unroll(%d):\n"
                        "            %s[i, j] = %s[t * V + i, j]\n"
                        % (cnt, loc, nm))
    s = HEADER + "V = %d\nBLOCK = %d\n\n@T.function\ndef fz(%s):\n" % (
        v, block, ", ".join(params))
    s += ("    T.device_entry(launch=T.cuda.LaunchConfig(grid=%d, "
          "block=BLOCK))\n" % (nthr // block))
    s += '    t = T.cuda.block_idx("x") * BLOCK + T.cuda.thread_idx("x")\n'
    s += "".join(body)
    s += '    T.cuda.tile.apply(T.ptx["%s"], %s)\n' % (spelling,
                                                   ", ".join(names))
    s += "    for i in T.unroll(V):\n"
    for i, (out, kind, ty, cnt) in enumerate(ops):
        if out:
            s += ("        for j in T.unroll(%d):\n"
                  "            O%d[t * V + i, j] = %s[i, j]\n"
                  % (cnt, i, names[i]))
    k.script = s
    return k


def ldst_row(rng, forms, fam):
    rows = [f for f in forms if f["fam"] == fam]
    for _ in range(50):
        row = rng.choice(rows)
        # tile ld/st needs a state space (no generic addressing)
        got = expand(rng, row["tmpl"], exclude=(".L2::cache_hint",
                                                ".local", ".v8"),
                     require=("s",))
        if not got:
            continue
        q, var = got
        # tile ld/st takes global, shared and shared::cta (not
        # shared::cluster; local needs a local-memory tensor)
        if ".L2::cache_hint" in q or ".local" in row["ops"] or \
           ".local" in q or "shared::cluster" in q:
            continue
        return row, q, var
    return None


def gen_ldst(k, rng, forms):
    fam = "LD" if k.fam == "ld" else "ST"
    got = ldst_row(rng, forms, fam)
    if not got:
        return None
    row, q, var = got
    spelling = row["mn"] + q
    k.form = spelling
    ty = var["t"]
    vec = int(var.get("v", "") .lstrip("v") or 1)
    bits = BITS[ty]
    cont = CONTAINER[bits]
    shared = ".shared" in q
    reps = rng.choice([1, 2, 3])
    pad = rng.choice([0, vec])
    nthr = 64
    w = vec + pad
    n = nthr * reps * w
    k.inputs["A"] = pack([rand_value(rng, ty, bits) for _ in range(n)], bits)
    k.inputs["B"] = pack([rng.getrandbits(bits) for _ in range(n)], bits)
    k.outputs["B"] = (bits, "exact")
    shift = rng.randint(0, nthr - 1)
    s = HEADER + "@T.function\n"
    s += ('def fz(A: T.Tensor((%d, %d, %d), "%s", align=16), '
          'B: T.Tensor((%d, %d, %d), "%s", align=16)):\n'
          % (nthr, reps, w, cont, nthr, reps, w, cont))
    s += "    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=%d))\n" % nthr
    s += '    tid = T.cuda.thread_idx("x")\n'
    s += "    src = (tid + %d) %% %d\n" % (shift, nthr)
    s += ('    r = T.alloc_local((%d, %d), "%s", layout=%s)\n'
          % (reps, vec, cont, local_layout(rng, reps, vec)))
    s += ('    S = T.alloc_shared((%d, %d, %d), "%s", align=16)\n'
          % (nthr, reps, w, cont))
    view = "[:, :, 0:%d]" % vec
    if fam == "LD":
        if shared:
            s += ("    for i in T.unroll(%d):\n        for j in T.unroll(%d):\n"
                  "            S[tid, i, j] = A[tid, i, j]\n"
                  "    T.cuda.cta_sync()\n" % (reps, w))
            srcv = "S.sub[src, :, 0:%d]" % vec
        else:
            srcv = "A.sub[src, :, 0:%d]" % vec
        s += '    T.cuda.tile.apply(T.ptx["%s"], r, %s)\n' % (spelling, srcv)
        s += ("    for i in T.unroll(%d):\n        for j in T.unroll(%d):\n"
              "            B[tid, i, j] = r[i, j]\n" % (reps, vec))
    else:
        s += ("    for i in T.unroll(%d):\n        for j in T.unroll(%d):\n"
              "            r[i, j] = A[tid, i, j]\n" % (reps, vec))
        if shared:
            s += ("    for i in T.unroll(%d):\n        for j in T.unroll(%d):\n"
                  "            S[tid, i, j] = B[tid, i, j]\n"
                  "    T.cuda.cta_sync()\n" % (reps, w))
            s += ('    T.cuda.tile.apply(T.ptx["%s"], S.sub[src, :, 0:%d], r)\n'
                  % (spelling, vec))
            s += ("    T.cuda.cta_sync()\n"
                  "    for i in T.unroll(%d):\n        for j in T.unroll(%d):\n"
                  "            B[tid, i, j] = S[tid, i, j]\n" % (reps, w))
        else:
            s += ('    T.cuda.tile.apply(T.ptx["%s"], B.sub[src, :, 0:%d], r)\n'
                  % (spelling, vec))
    del view
    k.script = s
    return k


# ldmatrix / stmatrix: shared row views and register slot orders
SLOT_ORDERS = {1: ["T.S[(1, 8, 4):(1, 4@laneid, 1@laneid)]"],
               2: ["T.S[(2, 8, 4):(1, 4@laneid, 1@laneid)]",
                   "T.S[(2, 8, 4):(-1, 4@laneid, 1@laneid)] + 1"],
               4: ["T.S[(4, 8, 4):(1, 4@laneid, 1@laneid)]",
                   "T.S[(2, 2, 8, 4):(1, 2, 4@laneid, 1@laneid)]",
                   "T.S[(4, 8, 4):(-1, 4@laneid, 1@laneid)] + 3"]}


def gen_matrix(k, rng, forms):
    fam = "LDMATRIX" if k.fam == "ldmatrix" else "STMATRIX"
    rows = [f for f in forms if f["fam"] == fam and ".m8n8" in f["tmpl"]]
    row = rng.choice(rows)
    q, var = expand(rng, row["tmpl"], require=("s",))
    spelling = row["mn"] + q
    k.form = spelling
    nm = int(var["v"].lstrip("x"))
    # row j of matrix i at word ms*i + r1*(j // 4) + r2*(j % 4)
    r2 = 4 * rng.randint(1, 3)
    r1 = 4 * r2 + 4 * rng.randint(0, 2)
    ms = 2 * r1 + 4 * rng.randint(0, 3)
    words = 1024
    base = 4 * rng.randint(0, (words - nm * ms) // 4 - 1)
    lay = "T.S[(%d, 2, 4, 4):(%d, %d, %d, 1)] + %d" % (nm, ms, r1, r2, base)
    reg = rng.choice(SLOT_ORDERS[nm])
    s = HEADER + "@T.function\n"
    s += ('def fz(G: T.Tensor((%d,), "uint32", align=16), '
          'R: T.Tensor((32, %d), "uint32", align=16), '
          'O: T.Tensor((%d,), "uint32", align=16), '
          'Q: T.Tensor((32, %d), "uint32", align=16)):\n'
          % (words, nm, words, nm))
    s += "    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))\n"
    s += "    lane = T.cuda.lane_id()\n"
    s += '    S = T.alloc_shared((%d,), "uint32", align=16)\n' % words
    s += ("    for i in T.unroll(%d):\n        S[i * 32 + lane] = G[i * 32 + lane]\n"
          "    T.cuda.cta_sync()\n" % (words // 32))
    s += ("    V = S.view(%d, 8, 4, layout=T.TileLayout(%s))\n" % (nm, lay))
    s += ('    F = T.alloc_local((%d, 8, 4), "uint32", layout=T.TileLayout(%s))\n'
          % (nm, reg))
    s += "    P = F.view(%d)\n" % nm
    if fam == "LDMATRIX":
        s += ('    T.cuda.tile.apply(T.ptx["%s"], F, V, scope="warp")\n'
              % spelling)
    else:
        s += ("    for j in T.unroll(%d):\n        P[j] = R[lane, j]\n" % nm)
        s += ('    T.cuda.tile.apply(T.ptx["%s"], V, F, scope="warp")\n'
              % spelling)
    s += "    for j in T.unroll(%d):\n        Q[lane, j] = P[j]\n" % nm
    s += ("    T.cuda.cta_sync()\n"
          "    for i in T.unroll(%d):\n        O[i * 32 + lane] = S[i * 32 + lane]\n"
          % (words // 32))
    k.script = s
    k.inputs["G"] = pack([rng.getrandbits(32) for _ in range(words)], 32)
    k.inputs["R"] = pack([rng.getrandbits(32) for _ in range(32 * nm)], 32)
    k.outputs["O"] = (32, "exact")
    k.outputs["Q"] = (32, "exact")
    return k


def gen_mma(k, rng, forms):
    """Raw mma.sync of any form on per-lane random registers: the
    fragments' meaning does not matter to a differential."""
    rows = [f for f in forms if f["fam"] == "MMA_SYNC"]
    row = rng.choice(rows)
    q, var = expand(rng, row["tmpl"])
    spelling = row["mn"] + q
    k.form = spelling
    ops = [o.lstrip(">") for o in row["ops"].split(",")]
    groups = []
    for o in ops:
        ty, _, n = o[2:].partition("*")
        groups.append((ty, int(n)))
    # input element types for values: A/B types from the spelling
    parts = spelling.split(".")
    tys = [p for p in parts if p in ("f16", "bf16", "tf32", "e4m3", "e5m2",
                                     "s8", "u8", "f64", "f32", "s32")]
    dty, aty, bty = tys[0], tys[1], tys[2]
    s = HEADER + "@T.function\n"
    params = []
    for i, (ty, n) in enumerate(groups):
        bits = 64 if ty == "f64" else 32
        params.append('I%d: T.Tensor((32, %d), "%s")' % (i, n, CONTAINER[bits]))
    params.append('D: T.Tensor((32, %d), "%s")'
                  % (groups[0][1], CONTAINER[64 if groups[0][0] == "f64" else 32]))
    s += "def fz(%s):\n" % ", ".join(params)
    s += "    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))\n"
    s += "    lane = T.cuda.lane_id()\n"
    names = []
    for i, (ty, n) in enumerate(groups):
        bits = 64 if ty == "f64" else 32
        regs = []
        for j in range(n):
            r = "r%d_%d" % (i, j)
            regs.append(r)
            s += "    %s = T.%s(0)\n" % (r, CONTAINER[bits])
            if i:
                s += "    %s = I%d[lane, %d]\n" % (r, i, j)
        names.append("(%s)" % ", ".join(regs) if n > 1 else regs[0])
        vals = []
        for j in range(32 * n):
            if i == 0:
                vals.append(0)
            elif i == 3:
                vals.append(mma_value(rng, dty, bits))
            else:
                vals.append(mma_value(rng, aty if i == 1 else bty, bits))
        k.inputs["I%d" % i] = pack(vals, bits)
    s += '    T.ptx["%s"](%s)\n' % (spelling, ", ".join(names))
    for j in range(groups[0][1]):
        s += "    D[lane, %d] = r0_%d\n" % (j, j)
    k.script = s
    k.outputs["D"] = (64 if dty == "f64" else 32,
                      "exact" if dty in ("s32", "f16") else
                      "f%s:1e-6" % ("64" if dty == "f64" else "32"))
    return k


def mma_value(rng, ty, bits):
    """Registers of small exact values (multiples of 1/8 in [-4, 4) or
    random integer bytes): every sum is exact, so only order-free
    rounding could differ."""
    if ty in ("s8", "u8", "s32"):
        return rng.getrandbits(bits) if ty != "s32" else \
            rng.randint(-1000, 1000) & 0xffffffff
    vals = []
    per = {"f16": 2, "bf16": 2, "tf32": 1, "f32": 1, "f64": 1,
           "e4m3": 4, "e5m2": 4}[ty]
    w = bits // per
    for _ in range(per):
        x = rng.randint(-32, 31) / 8.0
        vals.append(encode_float(x, ty))
    v = 0
    for i, e in enumerate(vals):
        v |= e << (i * w)
    return v


def encode_float(x, ty):
    if ty in ("f32", "tf32"):
        return struct.unpack("<I", struct.pack("<f", x))[0]
    if ty == "f64":
        return struct.unpack("<Q", struct.pack("<d", x))[0]
    if ty == "f16":
        return struct.unpack("<H", struct.pack("<e", x))[0]
    if ty == "bf16":
        return struct.unpack("<I", struct.pack("<f", x))[0] >> 16
    # fp8: e4m3 (bias 7, 3 mantissa bits) / e5m2 (bias 15, 2 bits); the
    # values are multiples of 1/8 below 4 in magnitude: exact in both
    eb, mb = (4, 3) if ty == "e4m3" else (5, 2)
    bias = (1 << (eb - 1)) - 1
    sign = 0x80 if x < 0 else 0
    a = abs(x)
    if a == 0:
        return sign
    e = 0
    while a >= 2.0:
        a /= 2.0
        e += 1
    while a < 1.0:
        a *= 2.0
        e -= 1
    if e + bias <= 0:
        # subnormal: a * 2^e = m * 2^(1 - bias - mb)
        m = int(round(abs(x) / 2.0 ** (1 - bias - mb)))
        return sign | m
    m = int(round((a - 1.0) * (1 << mb)))
    return sign | ((e + bias) << mb) | m


def gen_shfl(k, rng, forms):
    mode = rng.choice(["up", "down", "bfly", "idx"])
    spelling = "shfl.sync.%s.b32" % mode
    k.form = spelling
    nthr = 32 * rng.choice([1, 2])
    s = HEADER + "@T.function\n"
    s += ('def fz(X: T.Tensor((%d,), "uint32"), L: T.Tensor((%d,), "uint32"), '
          'C: T.Tensor((%d,), "uint32"), D: T.Tensor((%d,), "uint32")):\n'
          % (nthr, nthr, nthr, nthr))
    s += "    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=%d))\n" % nthr
    s += '    tid = T.cuda.thread_idx("x")\n'
    s += "    d = T.uint32(0)\n"
    # b and c must be warp-uniform?  No: per-lane values are allowed; a
    # uniform clamp keeps the segment rule simple for the reader
    uniform = rng.random() < 0.5
    s += "    x = X[tid]\n    b = L[tid]\n    c = C[%s]\n" % (
        "0" if uniform else "tid")
    s += '    T.ptx["%s"](d, x, b, c, T.uint32(0xffffffff))\n' % spelling
    s += "    D[tid] = d\n"
    k.script = s
    k.inputs["X"] = pack([rng.getrandbits(32) for _ in range(nthr)], 32)
    k.inputs["L"] = pack([rng.randint(0, 40) for _ in range(nthr)], 32)
    seg = rng.choice([0x1f, 0x00, 0x1c1f, 0x181f, 0x1f00 | rng.randint(0, 31),
                      0x101f])
    k.inputs["C"] = pack([seg if uniform else rng.getrandbits(13) & 0x1f1f
                          for _ in range(nthr)], 32)
    k.outputs["D"] = (32, "exact")
    return k


def gen_atom(k, rng, forms):
    """Raw atom/red of a random form: atom on each thread's own word (the
    old value it returns is then order-free), red on words shared by
    several threads with order-free operands (inc/dec with one bound for
    all, float adds of small exact values)."""
    rows = [f for f in forms if f["fam"] == "ATOM"]
    row = rng.choice(rows)
    q, var = expand(rng, row["tmpl"], require=("s",))
    spelling = row["mn"] + q
    k.form = spelling
    ty = var["t"]
    bits = BITS[ty]
    cont = CONTAINER[bits]
    red = row["mn"] == "red"
    nthr = rng.choice([32, 64, 128])
    words = nthr if not red else rng.choice([1, 3, 32])
    shared = ".shared" in q
    cas = ".cas" in q
    op = [p for p in q.split(".") if p in ("and", "or", "xor", "exch", "cas",
                                           "add", "inc", "dec", "min",
                                           "max")][0]
    fl = ty in ("f32", "f64")
    s = HEADER + "@T.function\n"
    s += ('def fz(W: T.Tensor((%d,), "%s"), B: T.Tensor((%d,), "%s"), '
          'C: T.Tensor((%d,), "%s"), D: T.Tensor((%d,), "%s")):\n'
          % (words, cont, nthr, cont, nthr, cont, nthr, cont))
    s += "    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=%d))\n" % nthr
    s += '    tid = T.cuda.thread_idx("x")\n'
    s += "    d = T.%s(0)\n" % cont
    s += "    b = B[tid]\n    c = C[tid]\n"
    idx = "tid" if not red else "tid %% %d" % words
    if shared:
        s += '    S = T.alloc_shared((%d,), "%s", align=8)\n' % (words, cont)
        s += "    if tid < %d:\n        S[tid] = W[tid]\n" % words
        s += "    T.cuda.cta_sync()\n"
        ptr = "S.ptr_to([%s])" % idx
    else:
        ptr = "W.ptr_to([%s])" % idx
    args = ([] if red else ["d"]) + [ptr, "b"] + (["c"] if cas else [])
    s += '    T.ptx["%s"](%s)\n' % (spelling, ", ".join(args))
    if shared:
        s += "    T.cuda.cta_sync()\n"
        s += "    if tid < %d:\n        W[tid] = S[tid]\n" % words
    s += "    D[tid] = d\n"
    k.script = s

    def operand():
        if fl:
            return encode_float(rng.randint(-32, 31) / 8.0, ty)
        return rand_value(rng, ty, bits)
    bound = rng.choice([0, 1, 5, 40, rng.getrandbits(bits)])
    bvals = []
    for i in range(nthr):
        if op in ("inc", "dec"):
            bvals.append(bound)
        elif cas and rng.random() < 0.5:
            bvals.append(None)  # filled with the word's value below
        else:
            bvals.append(operand())
    wvals = [operand() if fl else rand_value(rng, ty, bits)
             for _ in range(words)]
    bvals = [wvals[i % words] if v is None else v
             for i, v in enumerate(bvals)]
    k.inputs["W"] = pack(wvals, bits)
    k.inputs["B"] = pack(bvals, bits)
    k.inputs["C"] = pack([operand() for _ in range(nthr)], bits)
    k.inputs["D"] = pack([0] * nthr, bits)
    k.outputs["W"] = (bits, "exact")
    k.outputs["D"] = (bits, "exact")
    return k


# ---- asynchronous families ----

DTYPES = {  # script dtype -> (bytes, value type for the inputs)
    "float16": (2, "f16"), "bfloat16": (2, "bf16"), "float32": (4, "f32"),
    "uint8": (1, "u8"), "uint16": (2, "u16"), "int32": (4, "s32"),
    "uint32": (4, "u32"), "uint64": (8, "u64")}
LOG2_PER16 = {1: 4, 2: 3, 4: 2, 8: 1}


def mbar_prologue(nbytes, indent="        "):
    return (indent + "T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))\n"
            + indent + "T.ptx.fence.mbarrier_init.release.cluster()\n"
            + indent + "T.ptx.fence.proxy.async_.shared__cta()\n"
            + indent + "st: T.uint64 = T.uint64(0)\n"
            + indent + "T.ptx.mbarrier.arrive.expect_tx.shared.b64(st, "
            "mbar.ptr_to([0]), T.uint32(%d))\n" % nbytes)


def tensor_values(rng, n, ty, bits, exact=False):
    if exact and ty in ("f16", "bf16", "f32"):
        return [encode_float(rng.randint(-32, 31) / 8.0, ty) for _ in range(n)]
    return [rand_value(rng, ty, bits) for _ in range(n)]


def gen_tma(k, rng, forms):
    """A 1d-3d TMA load, store or reduce of a random box of a random
    tensor: swizzle (inner box = the swizzle span), element strides,
    coordinates partly outside (zero or NaN fill), the shared image
    written out in storage order."""
    reduce_ = k.fam == "tma_reduce"
    store = reduce_ or rng.random() < 0.35
    dt = rng.choice(list(DTYPES))
    e, vty = DTYPES[dt]
    bits = 8 * e
    rank = rng.choice([1, 2, 2, 3])
    # swizzled images: 2d boxes (the shared layout is a 2d ComposeLayout)
    sw = rng.choice([0, 0, 1, 2, 3]) if rank == 2 and not store else 0
    if sw and store:
        sw = 0
    inner = (16 << sw) // e if sw else 16 * rng.randint(1, 4) // e
    box = [rng.choice([1, 2, 4, 8, 16]) for _ in range(rank - 1)] + [inner]
    shape = [b + rng.randint(0, 12) for b in box]
    shape[-1] = max(shape[-1], inner)
    # the global row pitch must be a multiple of 16 bytes
    shape[-1] += (-shape[-1] * e) % 16 // e
    estr = [1] * rank
    if not store and rank > 1 and rng.random() < 0.3:
        estr[0] = rng.choice([2, 3])
    # outer coordinates may leave the tensor (loads fill); the innermost
    # is a multiple of 16 bytes: the H200 trapped (illegal instruction)
    # on 18 of 19 kernels with other inner coordinates, which the
    # emulator does not model (docs/emulator.md); stores stay inside
    coords = [rng.randint(-3, s - b + 3) for s, b in zip(shape, box)]
    step = 16 // e if e < 16 else 1
    coords[-1] = step * rng.randint(-1, (shape[-1] - box[-1]) // step + 1)
    if store:
        coords = [rng.randint(0, s - b) for s, b in zip(shape, box)]
        coords[-1] = step * rng.randint(0, (shape[-1] - box[-1]) // step)
    oob = 1 if (dt.startswith("float") and not store and rng.random() < 0.3) else 0
    img = [(b + st - 1) // st for b, st in zip(box, estr)]
    n = 1
    for x in img:
        n *= x
    nbytes = n * e
    if nbytes % 16 or n % 32 and n > 32 or nbytes > 48 * 1024:
        return None
    red_op = ""
    if reduce_:
        # float32/float64 min/max is no reduction of the ISA (E3909;
        # the H200 trapped on one)
        ops = ["add"] if dt in ("float32", "float64") else ["add", "min", "max"]
        if dt in ("uint32", "int32", "uint64"):
            ops += ["and", "or", "xor"]
        if dt == "uint32":
            ops += ["inc", "dec"]
        if dt == "uint8" or dt == "uint16":
            return None
        red_op = rng.choice(ops)
    nd = "%dd" % rank
    if store:
        spelling = ("cp.reduce.async.bulk.tensor.%s.global.shared::cta.%s.tile"
                    ".bulk_group" % (nd, red_op) if reduce_ else
                    "cp.async.bulk.tensor.%s.global.shared::cta.tile.bulk_group" % nd)
    else:
        spelling = ("cp.async.bulk.tensor.%s.shared::cta.global.tile"
                    ".mbarrier::complete_tx::bytes" % nd)
    k.form = spelling + (" swizzle=%d" % sw if sw else "")
    k.late = True
    shp = ", ".join(str(x) for x in shape)
    ish = ", ".join(str(x) for x in img)
    if sw:
        rows = n // img[-1]
        lay = ("T.ComposeLayout(%d, %d, 3, T.TileLayout(T.S[(%d, %d):(%d, 1)]))"
               % (LOG2_PER16[e], sw, rows, img[-1], img[-1]))
        smem = 'T.alloc_shared((%d, %d), "%s", layout=%s, align=1024)' % (
            rows, img[-1], dt, lay)
        tview = "t.view(%s)" % ish if rank != 2 else "t"
    else:
        smem = 'T.alloc_shared((%s,), "%s", align=128)' % (ish, dt)
        tview = "t"
    nthr = 32
    s = HEADER + "@T.function\n"
    s += ('def fz(A: T.Tensor((%s,), "%s", align=16), '
          'O: T.Tensor((%d,), "%s", align=16)):\n' % (shp, dt, n, dt))
    s += "    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=%d))\n" % nthr
    s += "    lane = T.cuda.lane_id()\n"
    s += "    t = %s\n" % smem
    s += '    mbar = T.alloc_shared((1,), "uint64", align=8)\n'
    s += "    flat = t.view(%d)\n" % n
    params = "box=(%s,), coords=(%s,)" % (
        ", ".join(str(b) for b in box), ", ".join(str(c) for c in coords))
    if sw:
        params += ", swizzle=%d" % sw
    if any(x != 1 for x in estr):
        params += ", element_strides=(%s,)" % ", ".join(str(x) for x in estr)
    if oob:
        params += ", oob_fill=1"
    per = max(1, n // nthr)
    if store:
        s += ("    for i in range(%d):\n        if i * 32 + lane < %d:\n"
              "            flat[i * 32 + lane] = O[i * 32 + lane]\n" % (per, n))
        s += "    T.ptx.fence.proxy.async_.shared__cta()\n    T.cuda.cta_sync()\n"
        s += "    if lane == 0:\n"
        s += ('        T.cuda.tile.apply(T.ptx["%s"], A, %s, %s)\n'
              % (spelling, tview, params))
        s += "        T.ptx.cp.async_.bulk.commit_group()\n"
        s += "        T.ptx.cp.async_.bulk.wait_group(0)\n"
    else:
        s += "    if lane == 0:\n" + mbar_prologue(nbytes)
        s += ('        T.cuda.tile.apply(T.ptx["%s"], %s, A, %s, '
              'mbar=mbar.ptr_to([0]))\n' % (spelling, tview, params))
        s += "    T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)\n"
        s += ("    for i in range(%d):\n        if i * 32 + lane < %d:\n"
              "            O[i * 32 + lane] = flat[i * 32 + lane]\n" % (per, n))
    k.script = s
    total = 1
    for x in shape:
        total *= x
    exact = reduce_ and red_op == "add"
    k.inputs["A"] = pack(tensor_values(rng, total, vty, bits, exact), bits)
    k.inputs["O"] = pack(tensor_values(rng, n, vty, bits, exact), bits)
    k.outputs["A" if store else "O"] = (bits, "exact")
    return k


def gen_cp_async(k, rng, forms):
    """cp.async tile calls of a random chunk, source size, ignore-src and
    predicate per thread, into rows with gaps, waited with wait_group or
    wait_all."""
    chunk = rng.choice([4, 8, 16])
    cop = "cg" if chunk == 16 and rng.random() < 0.5 else "ca"
    space = rng.choice(["shared", "shared::cta"])
    spelling = "cp.async.%s.%s.global" % (cop, space)
    k.form = spelling + " chunk=%d" % chunk
    k.late = True
    nthr = rng.choice([32, 64])
    per = rng.choice([1, 2, 3])
    w = chunk * rng.choice([1, 2])
    shape = "(%d, %d, %d)" % (nthr, per, w)
    mode = rng.choice(["src_size", "ignore", "pred", "plain"])
    s = HEADER + "@T.function\n"
    s += ('def fz(A: T.Tensor(%s, "uint8", align=16), '
          'O: T.Tensor(%s, "uint8", align=16), V: T.Tensor((%d,), "uint32")):\n'
          % (shape, shape, nthr))
    s += "    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=%d))\n" % nthr
    s += '    tid = T.cuda.thread_idx("x")\n'
    s += '    S = T.alloc_shared(%s, "uint8", align=16)\n' % shape
    s += ("    for i in range(%d):\n        for j in range(%d):\n"
          "            S[tid, i, j] = O[tid, i, j]\n"
          "    T.cuda.cta_sync()\n" % (per, w))
    src = "(tid + %d) %% %d" % (rng.randint(0, nthr - 1), nthr)
    extra = ""
    if mode == "src_size":
        extra = ", src_size=V[tid] %% %d" % (chunk + 1)
    elif mode == "ignore":
        extra = ", ignore_src=V[tid] % 3 == 0"
    elif mode == "pred":
        extra = ", pred=V[tid] % 4 != 1"
    s += ('    T.cuda.tile.apply(T.ptx["%s"], S.sub[tid, :, 0:%d], '
          'A.sub[%s, :, 0:%d], chunk_bytes=%d%s)\n'
          % (spelling, chunk, src, chunk, chunk, extra))
    if rng.random() < 0.5:
        s += "    T.ptx.cp.async_.commit_group()\n    T.ptx.cp.async_.wait_group(0)\n"
    else:
        s += "    T.ptx.cp.async_.wait_all()\n"
    s += "    T.cuda.cta_sync()\n"
    s += ("    for i in range(%d):\n        for j in range(%d):\n"
          "            O[tid, i, j] = S[tid, i, j]\n" % (per, w))
    k.script = s
    n = nthr * per * w
    k.inputs["A"] = bytes(rng.getrandbits(8) for _ in range(n))
    k.inputs["O"] = bytes(rng.getrandbits(8) for _ in range(n))
    k.inputs["V"] = pack([rng.getrandbits(32) for _ in range(nthr)], 32)
    k.outputs["O"] = (8, "exact")
    return k


def gen_bulk(k, rng, forms):
    """A cluster of two CTAs: CTA 0 loads A with raw cp.async.bulk
    global -> shared (mbarrier), sends chunks of random size, offset and
    pitch to CTA 1 with the bulk_copy tile call (cluster shared copies),
    CTA 1 writes its whole buffer out with raw cp.async.bulk shared ->
    global (bulk_group)."""
    chunk = 16 * rng.randint(1, 12)
    nch = rng.randint(1, 6)
    so, do = 16 * rng.randint(0, 3), 16 * rng.randint(0, 3)
    sp = so + chunk + 16 * rng.randint(0, 3)
    dp = do + chunk + 16 * rng.randint(0, 3)
    total_s, total_d = nch * sp, nch * dp
    tile = "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"
    g2s = "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
    s2g = "cp.async.bulk.global.shared::cta.bulk_group"
    k.form = "%s chunk=%d x%d (+ raw %s, %s)" % (tile, chunk, nch, g2s, s2g)
    k.late = True
    s = HEADER + "@T.function\n"
    s += ('def fz(A: T.Tensor((%d,), "uint8", align=16), '
          'O: T.Tensor((%d,), "uint8", align=16)):\n' % (total_s, total_d))
    s += "    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=32, cluster=2))\n"
    s += "    lane = T.cuda.lane_id()\n"
    s += '    rank = T.cuda.cluster_cta_id("x")\n'
    s += '    S = T.alloc_shared((%d, %d), "uint8", align=128)\n' % (nch, sp)
    s += '    D = T.alloc_shared((%d, %d), "uint8", align=128)\n' % (nch, dp)
    s += '    mbar = T.alloc_shared((2,), "uint64", align=8)\n'
    s += '    st = T.alloc_local((1,), "uint64", layout="default")\n'
    s += "    FD = D.view(%d)\n" % total_d
    s += ("    for i in range(%d):\n        if i * 32 + lane < %d:\n"
          "            FD[i * 32 + lane] = T.uint8(0x5A)\n" % ((total_d + 31) // 32, total_d))
    s += "    T.ptx.fence.proxy.async_.shared__cta()\n"
    s += "    if lane == 0:\n"
    s += "        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))\n"
    s += "        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([1]), T.uint32(1))\n"
    s += "        T.ptx.fence.mbarrier_init.release.cluster()\n"
    s += "    T.cuda.cluster_sync()\n"
    s += "    if rank == 0:\n        if lane == 0:\n"
    s += ("            T.ptx.mbarrier.arrive.expect_tx.shared.b64(st[0], "
          "mbar.ptr_to([0]), T.uint32(%d))\n" % total_s)
    s += ('            T.ptx["%s"](S.ptr_to([0, 0]), A.ptr_to([0]), T.uint32(%d), '
          "mbar.ptr_to([0]))\n" % (g2s, total_s))
    s += "        T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)\n"
    s += "        if lane == 0:\n"
    s += ('            T.cuda.tile.apply(T.ptx["%s"], D[:, %d:%d], S[:, %d:%d], '
          "chunk_bytes=%d, mbar=mbar.ptr_to([1]), remote_cta_id=T.uint32(1))\n"
          % (tile, do, do + chunk, so, so + chunk, chunk))
    s += "    else:\n        if lane == 0:\n"
    s += ("            T.ptx.mbarrier.arrive.expect_tx.shared.b64(st[0], "
          "mbar.ptr_to([1]), T.uint32(%d))\n" % (chunk * nch))
    s += "        T.cuda.mbarrier_wait(mbar.ptr_to([1]), 0)\n"
    s += "        if lane == 0:\n"
    s += ('            T.ptx["%s"](O.ptr_to([0]), D.ptr_to([0, 0]), T.uint32(%d))\n'
          % (s2g, total_d))
    s += "            T.ptx.cp.async_.bulk.commit_group()\n"
    s += "            T.ptx.cp.async_.bulk.wait_group(0)\n"
    s += "    T.cuda.cluster_sync()\n"
    k.script = s
    k.inputs["A"] = bytes(rng.getrandbits(8) for _ in range(total_s))
    k.inputs["O"] = bytes(rng.getrandbits(8) for _ in range(total_d))
    k.outputs["O"] = (8, "exact")
    return k


_WGMMA = None


def wgmma_kernel_writer():
    """tools/gen_wgmma_gpu_kernels.py's kernel(): the GPU test's wgmma
    kernels (shared images in the ISA's canonical layouts, D stored by the
    ISA's fragment formula), here with random cases."""
    global _WGMMA
    if _WGMMA is None:
        import contextlib
        import io
        import runpy
        with contextlib.redirect_stdout(io.StringIO()):
            _WGMMA = runpy.run_path(os.path.join(
                ROOT, "tools", "gen_wgmma_gpu_kernels.py"))
    return _WGMMA


def gen_wgmma(k, rng, forms):
    w = wgmma_kernel_writer()
    ty = rng.choice(["bf16", "f16", "tf32", "e4m3"])
    dt, e, ki, ins = w["TYPES"][ty]
    n = rng.choice([8, 16, 32, 64, 128, 256])
    ktot = ki * rng.choice([1, 2, 4])

    def operand(rows, reg_ok):
        kinds = ["k"] + (["mn"] if e == 2 else []) + (["reg"] if reg_ok else [])
        kind = rng.choice(kinds)
        sw = rng.randint(0, 3) if kind != "reg" else 0
        if kind == "mn" and sw and rows % ((16 << sw) // 2):
            sw = 0
        if kind == "k" and sw:
            # a swizzled K-major image holds whole swizzle rows
            per_row = (16 << sw) // e // ki
            if per_row < 1 or (ktot // ki) % per_row:
                sw = 0
        return kind, sw
    a = operand(64, True)
    b = operand(n, False)
    try:
        body = w["kernel"]("fz", ty, n, ktot, a, b)
    except (ZeroDivisionError, KeyError, ValueError):
        return None
    k.form = ("wgmma.mma_async.sync.aligned.m64n%dk%d.f32.%s A=%s B=%s"
              % (n, ki, ins, a, b))
    k.late = True
    k.script = ("from tvm_tirx.script import tirx as T\n"
                "from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg\n\n"
                + body + "\n")
    per = 4 // e

    def words(cnt):
        out = []
        for _ in range(cnt):
            v = 0
            for i in range(per):
                x = encode_float(rng.randint(-32, 31) / 8.0,
                                 "f32" if ty == "tf32" else ty)
                v |= x << (8 * e * i)
            out.append(v)
        return out
    k.inputs["SB"] = pack(words(n * ktot * e // 4), 32)
    if a[0] == "reg":
        k.inputs["RA"] = pack(words(64 * ktot * e // 4), 32)
    else:
        k.inputs["SA"] = pack(words(64 * ktot * e // 4), 32)
    k.inputs["D"] = pack([0] * (64 * n), 32)
    k.outputs["D"] = (32, "f32:1e-6")
    return k


def fence_line(rng, forms, indent):
    """A raw fence of a random form (the emulator orders everything
    already; the GPU must accept it and the results must agree)."""
    rows = [f for f in forms if f["fam"] == "FENCE"]
    row = rng.choice(rows)
    q, _ = expand(rng, row["tmpl"])
    return '%sT.ptx["fence%s"]()\n' % (indent, q)


def gen_sync(k, rng, forms):
    """Synchronisation families on random thread subsets:
      mbarrier  n random threads write their word and arrive (count n,
                or one arrive.expect_tx-less arrive per writer, random
                count per arrive), everyone waits on the phase's parity,
                then reads all words; two phases
      barrier   named barriers: the first w warps exchange words through
                bar.sync id, 32w; the rest bar.arrive on another id for
                a consumer warp
      cluster   2..4 CTAs exchange words through barrier.cluster and
                mapa + ld.shared::cluster
      fence     the cluster kernel with a random fence of the table
                between the writes and the barrier"""
    fam = k.fam
    k.late = True
    fence = fam == "fence"
    if fam in ("cluster", "fence"):
        nc = rng.choice([2, 3, 4])
        nthr = rng.choice([32, 64])
        shift = rng.randint(1, nc - 1)
        arr = rng.choice(["", ".release", ".relaxed"])
        wt = rng.choice(["", ".acquire"])
        al = rng.choice(["", ".aligned"])
        k.form = "barrier.cluster.arrive%s%s / wait%s%s, mapa, ld.shared::cluster, %d CTAs" % (
            arr, al, wt, al, nc)
        s = HEADER + "@T.function\n"
        s += ('def fz(A: T.Tensor((%d, %d), "uint32"), O: T.Tensor((%d, %d), "uint32")):\n'
              % (nc, nthr, nc, nthr))
        s += ("    T.device_entry(launch=T.cuda.LaunchConfig(grid=%d, block=%d, cluster=%d))\n"
              % (nc, nthr, nc))
        s += '    tid = T.cuda.thread_idx("x")\n'
        s += '    rank = T.cuda.cluster_cta_id("x")\n'
        s += '    S = T.alloc_shared((%d,), "uint32", align=16)\n' % nthr
        s += "    ra = T.uint32(0)\n    v = T.uint32(0)\n"
        s += "    S[tid] = A[rank, tid]\n"
        if fence:
            s += fence_line(rng, forms, "    ")
            k.form = "fence (random form) + " + k.form
        s += '    T.ptx["barrier.cluster.arrive%s%s"]()\n' % (arr, al)
        s += '    T.ptx["barrier.cluster.wait%s%s"]()\n' % (wt, al)
        s += ('    T.ptx["mapa.shared::cluster.u32"](ra, T.cast(S.ptr_to([(tid + %d) %% %d]), "uint32"), '
              "(rank + %d) %% %d)\n" % (rng.randint(0, nthr - 1), nthr, shift, nc))
        s += '    T.ptx["ld.shared::cluster.u32"](v, ra)\n'
        s += "    O[rank, tid] = v\n"
        s += "    T.cuda.cluster_sync()\n"
        k.script = s
        k.inputs["A"] = pack([rng.getrandbits(32) for _ in range(nc * nthr)], 32)
        k.inputs["O"] = pack([0] * (nc * nthr), 32)
        k.outputs["O"] = (32, "exact")
        return k
    nw = rng.choice([2, 3, 4])
    nthr = 32 * nw
    s = HEADER + "@T.function\n"
    s += ('def fz(A: T.Tensor((%d,), "uint32"), O: T.Tensor((2, %d), "uint32")):\n'
          % (nthr, nthr))
    s += "    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=%d))\n" % nthr
    s += '    tid = T.cuda.thread_idx("x")\n'
    s += '    S = T.alloc_shared((2, %d), "uint32", align=16)\n' % nthr
    if fam == "mbarrier":
        s += '    mbar = T.alloc_shared((1,), "uint64", align=8)\n'
        s += '    st = T.alloc_local((1,), "uint64", layout="default")\n'
        s += "    S[0, tid] = T.uint32(0)\n    S[1, tid] = T.uint32(0)\n"
        n1 = rng.randint(1, nthr)
        n2 = rng.randint(1, nthr)
        k.form = "mbarrier.init/arrive/try_wait.parity, %d then %d arrivals" % (n1, n2)
        s += "    if tid == 0:\n"
        s += "        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(%d))\n" % n1
        s += "    T.cuda.cta_sync()\n"
        for ph, n in ((0, n1), (1, n2)):
            off = rng.randint(0, nthr - 1)
            s += "    if (tid + %d) %% %d < %d:\n" % (off, nthr, n)
            s += "        S[%d, tid] = A[tid] + T.uint32(%d)\n" % (ph, ph)
            if ph == 0:
                s += "        T.ptx.mbarrier.arrive.shared.b64(st[0], mbar.ptr_to([0]))\n"
            else:
                s += '        T.ptx["mbarrier.arrive.release.cta.shared::cta.b64"](st[0], mbar.ptr_to([0]), T.uint32(1))\n'
            s += "    T.cuda.mbarrier_wait(mbar.ptr_to([0]), %d)\n" % ph
            s += "    O[%d, tid] = S[%d, (tid + %d) %% %d]\n" % (
                ph, ph, rng.randint(0, nthr - 1), nthr)
            if ph == 0:
                # the second phase expects n2 arrivals: n1 - n2 extra
                # arrivals by thread 0 make up the difference
                s += "    T.cuda.cta_sync()\n"
                if n2 < n1:
                    s += "    if tid == 0:\n"
                    s += ('        T.ptx["mbarrier.arrive.release.cta.shared::cta.b64"](st[0], '
                          "mbar.ptr_to([0]), T.uint32(%d))\n" % (n1 - n2))
                elif n2 > n1:
                    return None
    else:
        w = rng.randint(1, nw)
        bid = rng.randint(1, 15)
        k.form = "bar.sync %d, %d (warps < %d) + bar.arrive / bar.sync" % (bid, 32 * w, w)
        s += "    S[0, tid] = A[tid]\n"
        s += "    O[0, tid] = T.uint32(0)\n    O[1, tid] = T.uint32(0)\n"
        s += "    if tid < %d:\n" % (32 * w)
        s += '        T.ptx["bar.sync"](T.uint32(%d), T.uint32(%d))\n' % (bid, 32 * w)
        s += "        O[0, tid] = S[0, (tid + %d) %% %d]\n" % (rng.randint(0, 32 * w - 1), 32 * w)
        s += "    T.cuda.cta_sync()\n"
        if nw > 1:
            # warp 0 consumes what warps 1.. produce through bar.arrive
            bid2 = (bid % 15) + 1
            s += "    if tid >= 32:\n"
            s += "        S[1, tid] = A[tid] ^ T.uint32(0x5a5a5a5a)\n"
            s += ('        T.ptx["%s"](T.uint32(%d), T.uint32(%d))\n'
                  % (rng.choice(["bar.arrive", "barrier.arrive"]), bid2, nthr))
            s += "    else:\n"
            s += ('        T.ptx["%s"](T.uint32(%d), T.uint32(%d))\n'
                  % (rng.choice(["bar.sync", "barrier.sync"]), bid2, nthr))
            s += "        for j in range(%d):\n" % (nw - 1)
            s += "            O[1, 32 * (j + 1) + tid] = S[1, 32 * (j + 1) + tid]\n"
    k.script = s
    k.inputs["A"] = pack([rng.getrandbits(32) for _ in range(nthr)], 32)
    k.inputs["O"] = pack([0] * (2 * nthr), 32)
    k.outputs["O"] = (32, "exact")
    return k


GENERATORS = dict({f: gen_registers for f in REG_FAMS},
                  ld=gen_ldst, st=gen_ldst, ldmatrix=gen_matrix,
                  stmatrix=gen_matrix, mma_sync=gen_mma, shfl=gen_shfl,
                  atom_red=gen_atom, cp_async=gen_cp_async,
                  bulk_copy=gen_bulk, tma=gen_tma, tma_reduce=gen_tma,
                  wgmma=gen_wgmma, mbarrier=gen_sync, barrier=gen_sync,
                  cluster=gen_sync, fence=gen_sync)
FAMILIES = list(GENERATORS)


def generate(fam, seed, forms):
    rng = random.Random("%s:%d" % (fam, seed))
    for attempt in range(20):
        k = Kernel(fam, seed)
        if GENERATORS[fam](k, rng, forms):
            return k
    return None


# ---- running and comparing ----

def decode(data, mode, bits):
    """Values for a tolerance comparison: floats (NaN as None)."""
    kind, _, tol = mode.partition(":")
    if kind == "f32":
        vals = struct.unpack("<%df" % (len(data) // 4), data)
    elif kind == "f64":
        vals = struct.unpack("<%dd" % (len(data) // 8), data)
    elif kind == "f16":
        vals = struct.unpack("<%de" % (len(data) // 2), data)
    elif kind == "bf16":
        hs = struct.unpack("<%dH" % (len(data) // 2), data)
        vals = [struct.unpack("<f", struct.pack("<I", h << 16))[0]
                for h in hs]
    return vals


def within(a, b, mode):
    kind, _, tol = mode.partition(":")
    if kind in ("f16", "bf16"):
        ulps = float(tol)
        tol = ulps * (2.0 ** -10 if kind == "f16" else 2.0 ** -7)
    else:
        tol = float(tol)
    va, vb = decode(a, mode, 0), decode(b, mode, 0)
    bad = 0
    first = None
    for i, (x, y) in enumerate(zip(va, vb)):
        if x == y or (x != x and y != y):
            continue
        if x != x or y != y:
            bad += 1
        else:
            m = max(1.0, abs(x), abs(y))
            if abs(x) == float("inf") or abs(y) == float("inf") or \
               abs(x - y) > tol * m:
                bad += 1
            else:
                continue
        if first is None:
            first = "element %d: %r vs %r" % (i, x, y)
    return bad, first


def compare(k, da, db):
    errs = []
    for name, (bits, mode) in k.outputs.items():
        try:
            with open(os.path.join(da, name + ".bin"), "rb") as f:
                a = f.read()
            with open(os.path.join(db, name + ".bin"), "rb") as f:
                b = f.read()
        except OSError as e:
            errs.append("%s: %s" % (name, e))
            continue
        if a == b:
            continue
        if mode == "exact":
            w = bits // 8
            n = sum(1 for i in range(0, len(a), w) if a[i:i + w] != b[i:i + w])
            i = next(i for i in range(0, len(a), w) if a[i:i + w] != b[i:i + w])
            errs.append("%s: %d of %d elements differ, first #%d: %s vs %s"
                        % (name, n, len(a) // w, i // w,
                           a[i:i + w][::-1].hex(), b[i:i + w][::-1].hex()))
        else:
            bad, first = within(a, b, mode)
            if bad:
                errs.append("%s: %d values outside %s, first %s"
                            % (name, bad, mode, first))
    return errs


def run(cmd, log, limit=120):
    """Exit status and output of cmd; a run past `limit` seconds (a
    kernel that never completes) is killed and reported as failed."""
    with open(log, "w") as f:
        try:
            rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT,
                                timeout=limit).returncode
        except subprocess.TimeoutExpired:
            rc = None
    with open(log) as f:
        text = f.read()
    if rc is None:
        return 124, text + "\ntimed out after %d s" % limit
    return rc, text


def last_line(text):
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else ""


def check_kernel(k, opt, work):
    """Returns ('pass'|'rejected'|'unmodelled'|'fail', detail)."""
    P = os.path.join(opt.build, "ptxtile")
    d = os.path.join(work, "%s.%d" % (k.fam, k.seed))
    os.makedirs(d, exist_ok=True)
    script = os.path.join(d, "fz.py")
    with open(script, "w") as f:
        f.write(k.script)
    args = []
    for name, data in k.inputs.items():
        p = os.path.join(d, name + ".in")
        with open(p, "wb") as f:
            f.write(data)
        args += ["--arg", "%s=file:%s" % (name, p)]
    ptx = os.path.join(d, "fz.ptx")
    rc, text = run([P, "compile", script, "--target", "sm_90a", "-o", ptx],
                   os.path.join(d, "compile.log"))
    if rc:
        return "rejected", last_line(text)
    if opt.ptxas:
        rc, text = run([opt.ptxas, "-arch=sm_90a", ptx, "-o",
                        os.path.join(d, "fz.cubin")],
                       os.path.join(d, "ptxas.log"))
        if rc:
            return "fail", "ptxas rejects the PTX: " + last_line(text)
    hows = [("ref", ["--emulate"] if opt.self_check else ["--gpu"]),
            ("emu", ["--emulate"])]
    if opt.ref_only:
        hows = hows[:1]
    if k.late:
        hows.append(("late", ["--emulate", "--late", "--check-races"]))
    dirs = {}
    if opt.against:
        # the reference outputs of an earlier (GPU) run kept with --keep
        ref = os.path.join(opt.against, "%s.%d" % (k.fam, k.seed), "ref")
        if not os.path.isdir(ref):
            return "rejected", "no reference run in " + opt.against
        dirs["ref"] = ref
        hows = hows[1:]
    for how, flags in hows:
        dd = os.path.join(d, how)
        os.makedirs(dd, exist_ok=True)
        rc, text = run([P, "run"] + flags + [script, "--target", "sm_90a",
                                             "--dump-all", dd] + args + k.args,
                       dd + ".log")
        if rc:
            if (how != "ref" or opt.self_check) and "E9502" in text:
                return "unmodelled", last_line(text)
            return "fail", "%s run failed: %s" % (how, last_line(text))
        dirs[how] = dd
    if opt.ref_only:
        return "pass", ""
    if opt.mutate:
        # a check of the comparison itself: one bit of the emulator's
        # first output flipped must be reported
        p = os.path.join(dirs["emu"], next(iter(k.outputs)) + ".bin")
        with open(p, "r+b") as f:
            b = f.read(1)
            f.seek(0)
            f.write(bytes([b[0] ^ 0x40]))
    errs = []
    for how in dirs:
        if how != "ref":
            errs += ["%s %s" % (how, e) for e in
                     compare(k, dirs["ref"], dirs[how])]
    if errs:
        return "fail", "; ".join(errs)
    return "pass", ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.environ.get("BUILD", "build"))
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--family", default="")
    ap.add_argument("--self", dest="self_check", action="store_true")
    ap.add_argument("--ptxas", default="")
    ap.add_argument("--replay", default="")
    ap.add_argument("--keep", default="")
    ap.add_argument("--mutate", action="store_true")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--against", default="")
    ap.add_argument("--ref-only", action="store_true")
    opt = ap.parse_args()
    os.chdir(ROOT)
    forms = read_forms()
    fams = FAMILIES
    seeds = range(opt.first, opt.first + opt.seeds)
    if opt.replay:
        fam, _, sd = opt.replay.partition(":")
        fams, seeds = [fam], [int(sd)]
    elif opt.family:
        fams = opt.family.split(",")
    for f in fams:
        if f not in GENERATORS:
            print("emu_fuzz: unknown family %s (families: %s)"
                  % (f, " ".join(FAMILIES)), file=sys.stderr)
            return 2
    work = opt.keep or tempfile.mkdtemp(prefix="emu_fuzz.")
    os.makedirs(work, exist_ok=True)
    if not opt.self_check and not opt.against and not opt.ref_only:
        probe = generate("mov", 1, forms)
        st, det = check_kernel(probe, opt, work)
        if st not in ("pass", "fail") or (st == "fail" and "ref run" in det):
            print("emu_fuzz: skipped - no usable GPU (%s)" % det)
            return 77
    failed = 0
    if "wgmma" in fams:
        wgmma_kernel_writer()  # loaded once, before the worker threads
    pool = concurrent.futures.ThreadPoolExecutor(max(1, opt.jobs))

    def one(fam, sd):
        k = generate(fam, sd, forms)
        if k is None:
            return None, "rejected", "no form drawn"
        st, det = check_kernel(k, opt, work)
        return k, st, det

    for fam in fams:
        counts = {"pass": 0, "rejected": 0, "unmodelled": 0, "fail": 0}
        fails = []
        results = pool.map(lambda sd: (sd, one(fam, sd)), seeds)
        for sd, (k, st, det) in results:
            counts[st] += 1
            if st == "fail":
                fails.append("FAIL emu_fuzz/%s seed=%d (%s): %s  "
                             "[replay: tools/emu_fuzz.py --replay %s:%d]"
                             % (fam, sd, k.form, det, fam, sd))
            if opt.replay:
                print("%s %s: %s %s" % (fam, sd, k.form if k else "-", st),
                      det)
        for l in fails:
            print(l)
        failed += len(fails)
        if not fails:
            print("PASS emu_fuzz/%s: %d kernels (seeds %d..%d), %d rejected, "
                  "%d not modelled" % (fam, counts["pass"], seeds[0],
                                       seeds[-1], counts["rejected"],
                                       counts["unmodelled"]))
        sys.stdout.flush()
    if not opt.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
