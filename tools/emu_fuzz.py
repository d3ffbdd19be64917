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
        if ".L2::cache_hint" in q or ".local" in row["ops"] or \
           ".local" in q:
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


GENERATORS = dict({f: gen_registers for f in REG_FAMS},
                  ld=gen_ldst, st=gen_ldst, ldmatrix=gen_matrix,
                  stmatrix=gen_matrix, mma_sync=gen_mma, shfl=gen_shfl)
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


def run(cmd, log):
    with open(log, "w") as f:
        r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT,
                           timeout=300)
    with open(log) as f:
        text = f.read()
    return r.returncode, text


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
    if not opt.self_check and not opt.against:
        probe = generate("mov", 1, forms)
        st, det = check_kernel(probe, opt, work)
        if st not in ("pass", "fail") or (st == "fail" and "ref run" in det):
            print("emu_fuzz: skipped - no usable GPU (%s)" % det)
            return 77
    failed = 0
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
