#!/usr/bin/env python3
"""Differential test against the reference implementation (`make test-tirx`).

    python3 tools/tirx_diff.py [--build build] SCRIPT.py ...

For every script, builds its kernels with apache-tvm-tirx (through
tools/tirx_oracle.py, a black box: the CUDA source it emits) and with
ptxtile (PTX), and compares the tile instructions: every spelling passed
to T.cuda.tile.apply (`T.ptx["..."]`) must appear in both, with the
same number of instructions per kernel.  TIRx emits one inline-asm helper
per spelling and calls it where the instruction is issued; ptxtile emits
one PTX instruction per issue, so the counts are the helper's call sites
and the PTX lines with that opcode.  A TIRx call site inside a loop of
the CUDA source counts once; such a kernel is compared on spellings only
(reported).  ptxtile's PTX also holds its own register copies, so a mov
spelling needs at least TIRx's count.  A script without tile calls (but with
T.ptx or T.cuda calls) must build in both, with every literal raw spelling in
both outputs.  One PASS/FAIL/SKIP line per script; every line SKIP when
the tvm_tirx package is absent.  A script whose header has a line
"# TIRx refuses: TEXT" is one apache-tvm-tirx 0.1.0a4 does not build for
a reason docs/language.md gives ("Where TIRx and the reference
differ"): XFAIL when TIRx's error holds TEXT, FAIL when TIRx builds it
(the line is stale) or fails otherwise.  Target: sm_100a when the script's header
says so (`# Target: sm_100a`), else sm_90a.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def tile_spellings(text):
    out = set()
    for call in re.finditer(r"tile\.apply\(\s*T\.ptx\[\"([^\"]+)\"\]", text):
        out.add(call.group(1))
    return out


def raw_spellings(text):
    """Literal raw PTX spellings: T.ptx["..."] and T.ptx.a.b_.c__d(."""
    out = set(re.findall(r"T\.ptx\[\"([^\"]+)\"\]", text))
    for chain in re.findall(r"T\.ptx\.([A-Za-z0-9_.]+)\(", text):
        parts = [p[:-1] if len(p) > 1 and p.endswith("_") else p
                 for p in chain.split(".")]
        sp = ".".join(parts).replace("__", "::")
        # TIRx's chain name of st.bulk (ptxtile reads it the same way)
        out.add("st.bulk" + sp[7:] if sp.startswith("st_bulk") else sp)
    return out


def asm_opcodes(template):
    """The opcodes of one inline-asm template: its statements, split at
    ';' and braces, without declarations (.reg ...).  A helper may wrap
    its instruction in a scope that first sets a predicate ("{ .reg
    .pred p; setp.ne.b32 p, %8, 0; tcgen05.mma... }"), so every
    statement counts, not only the first."""
    out = []
    for stmt in re.split(r"[;{}]", template):
        words = stmt.split()
        if words and not words[0].startswith(".") and words[0] not in out:
            out.append(words[0])
    return out


def tirx_counts(src):
    """{spelling: call sites} in the kernel definition of one TIRx CUDA
    source, and whether a call site may sit in a loop."""
    helpers = {}
    for m in re.finditer(r"void\s+(\w+)\s*\([^)]*\)\s*\{\s*asm(?:\s+volatile)?\s*\(\"([^\"]*)\"",
                         src):
        helpers[m.group(1)] = asm_opcodes(m.group(2))
    # the definition: the last __global__ (the first is a declaration)
    body = src[src.rfind("__global__"):]
    body = body[body.find("{"):]
    counts = {}
    for name, spellings in helpers.items():
        n = len(re.findall(r"\b%s\(" % re.escape(name), body))
        for sp in spellings:
            counts[sp] = counts.get(sp, 0) + n
    for m in re.finditer(r"asm(?:\s+volatile)?\s*\(\"([^\"]*)\"", body):
        for sp in asm_opcodes(m.group(1)):
            counts[sp] = counts.get(sp, 0) + 1
    looped = re.search(r"\bfor\s*\(|\bwhile\s*\(", body) is not None
    return counts, looped


def split_by(text, header):
    """{name: the lines after a line matching header (name = group 1)
    up to the next such line}."""
    parts, name = {}, None
    for line in text.splitlines(keepends=True):
        m = re.match(header, line)
        if m:
            name = m.group(1)
            parts[name] = ""
        elif name:
            parts[name] += line
    return parts


def split_tirx(out):
    """{kernel: CUDA source} from tirx_oracle.py's output."""
    return split_by(out, r"// ---- (\w+)\s*$")


def split_ptx(ptx):
    """{kernel: PTX text of its entry}."""
    return split_by(ptx, r"\.visible \.entry (\w+)\(")


def ptx_counts(ptx):
    counts = {}
    for line in ptx.splitlines():
        t = line.strip()
        if not t or t.startswith(("//", ".", "$", "{", "}", ")")):
            continue
        if t.startswith("@"):
            t = t.split(None, 1)[1] if " " in t else ""
        op = t.split()[0].rstrip(";") if t else ""
        counts[op] = counts.get(op, 0) + 1
    return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.environ.get("BUILD", "build"))
    ap.add_argument("scripts", nargs="+")
    args = ap.parse_args()
    try:
        import tvm_tirx  # noqa: F401
    except Exception as e:
        for s in args.scripts:
            print(f"SKIP tirx/{os.path.basename(s)}: apache-tvm-tirx is not "
                  f"installed ({type(e).__name__})")
        return 0
    failed = 0
    for script in args.scripts:
        name = os.path.basename(script)
        text = open(script).read()
        if "# Pending:" in text:
            print(f"SKIP tirx/{name}: pending in ptxtile")
            continue
        want = tile_spellings(text)
        raw = raw_spellings(text) if not want else set()
        if not want and "T.ptx" not in text and "T.cuda." not in text:
            print(f"SKIP tirx/{name}: no tile calls")
            continue
        arch = ("sm_100a" if re.search(r"^# Target: sm_100a", text, re.M)
                else "sm_90a")
        o = subprocess.run([sys.executable, os.path.join(HERE, "tirx_oracle.py"),
                            script, "--arch", arch],
                           capture_output=True, text=True)
        refused = re.findall(r"^# TIRx refuses: (.+?)\s*$", text, re.M)
        if o.returncode != 0 or ": error:" in o.stderr:
            err = (o.stderr.strip().splitlines() or ["?"])[-1][:200]
            known = [r for r in refused if r in o.stderr]
            if known:
                print(f"XFAIL tirx/{name}: TIRx refuses it, as its header "
                      f"says ({known[0]}; docs/language.md)")
            else:
                print(f"FAIL tirx/{name}: TIRx does not build it: {err}")
                failed += 1
            continue
        if refused:
            print(f"FAIL tirx/{name}: TIRx builds it now: drop its "
                  f"'# TIRx refuses' line and compare")
            failed += 1
            continue
        p = subprocess.run([os.path.join(args.build, "ptxtile"), "compile",
                            script, "--target", arch, "-o", "/dev/stdout"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(f"FAIL tirx/{name}: ptxtile does not build it: "
                  f"{p.stderr.strip().splitlines()[0][:200]}")
            failed += 1
            continue
        if not want:
            # no tile calls: both build it, and every literal raw
            # spelling is in both (TIRx's asm text, ptxtile's PTX)
            miss = [sp for sp in sorted(raw)
                    if sp not in o.stdout or sp not in p.stdout]
            if miss:
                print(f"FAIL tirx/{name}: raw spellings missing: {miss}")
                failed += 1
            else:
                print(f"PASS tirx/{name}: both build it, "
                      f"{len(raw)} raw spellings in both")
            continue
        tk, pk = split_tirx(o.stdout), split_ptx(p.stdout)
        bad, looped_any = [], False
        if set(tk) != set(pk):
            bad.append(f"kernels: TIRx {sorted(tk)}, ptxtile {sorted(pk)}")
        for k in sorted(set(tk) & set(pk)):
            tc, looped = tirx_counts(tk[k])
            pc = ptx_counts(pk[k])
            looped_any |= looped
            for sp in sorted(want):
                a, b = tc.get(sp, 0), pc.get(sp, 0)
                # ptxtile's own register copies are mov too
                own = sp.startswith("mov.") and b >= a
                if (a == 0) != (b == 0) or (a != b and not looped and not own):
                    bad.append(f"{k}: {sp}: TIRx {a}, ptxtile {b}")
        if bad:
            print(f"FAIL tirx/{name}: " + "; ".join(bad))
            failed += 1
        else:
            note = " (counts unchecked where TIRx kept a loop)" if looped_any else ""
            print(f"PASS tirx/{name}: {len(want)} spellings, "
                  f"{len(tk)} kernels{note}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
