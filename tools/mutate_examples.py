#!/usr/bin/env python3
"""Property harness: "accepted => ptxas accepts" over mutated examples.

Each mutant is one example script (examples/*.py) with one to three small
random edits: an integer literal replaced (0, 1, -1, doubled, halved, a
power of two up to 2**40), a dtype name swapped, a comparison or arithmetic
operator swapped, a line dropped or repeated.  Every mutant is compiled with
`ptxtile compile` for the example's target; a mutant that compiles must be
accepted by ptxas for that target, and no mutant may end on a signal.

A mutant that breaks the property is written to --corpus (default
tests/property/corpus) as NAME.py with a first line "# target: sm_XX"; the
suite tests/suites/property.sh replays that corpus in `make test`.

  tools/mutate_examples.py [-n 5000] [--seed 1] [--ptxtile build/ptxtile]
                           [--ptxas PATH] [--corpus DIR]

Prints one summary line: mutants, compiled, ptxas-accepted, the rate, and
the counts of each failure kind.  Exit 1 when any mutant broke the property.
"""
import argparse
import glob
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

DTYPES = ["float32", "float16", "bfloat16", "int32", "uint32", "int64",
          "uint64", "int8", "uint8", "float64", "tf32", "float8_e4m3fn"]
OPS = [("<", "<="), ("<=", "<"), (">", ">="), ("==", "!="), ("+", "-"),
       ("-", "+"), ("*", "//"), ("//", "%")]


def target_of(text):
    m = re.search(r"^# Target: (sm_[0-9a-z]+)", text, re.M)
    return m.group(1) if m else "sm_90a"


def mutate_int(rng, line):
    nums = list(re.finditer(r"(?<![\w.])\d+(?![\w.])", line))
    if not nums:
        return None
    m = rng.choice(nums)
    v = int(m.group(0))
    choices = [0, 1, -1, v * 2, v // 2, v + 1, v - 1, 2 ** rng.randint(2, 40)]
    return line[:m.start()] + str(rng.choice(choices)) + line[m.end():]


def mutate_dtype(rng, line):
    hits = [d for d in DTYPES if '"%s"' % d in line]
    if not hits:
        return None
    return line.replace('"%s"' % rng.choice(hits), '"%s"' % rng.choice(DTYPES), 1)


def mutate_op(rng, line):
    body = line.split("#")[0]
    hits = [(a, b) for a, b in OPS if " %s " % a in body]
    if not hits:
        return None
    a, b = rng.choice(hits)
    return line.replace(" %s " % a, " %s " % b, 1)


def mutate(rng, text):
    lines = text.split("\n")
    body = [i for i, l in enumerate(lines)
            if l.strip() and not l.lstrip().startswith("#")]
    for _ in range(rng.randint(1, 3)):
        for _attempt in range(20):
            i = rng.choice(body)
            kind = rng.random()
            if kind < 0.55:
                new = mutate_int(rng, lines[i])
            elif kind < 0.75:
                new = mutate_dtype(rng, lines[i])
            elif kind < 0.9:
                new = mutate_op(rng, lines[i])
            elif kind < 0.95 and lines[i].startswith("    ") and \
                    not lines[i].rstrip().endswith(":"):
                lines[i] = ""
                break
            else:
                new = None
                if lines[i].startswith("    ") and not lines[i].rstrip().endswith(":"):
                    lines.insert(i, lines[i])
                    break
            if new is not None and new != lines[i]:
                lines[i] = new
                break
    return "\n".join(lines)


def run(cmd, timeout=60):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
        return p.returncode, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "timeout", ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ptxtile", default="build/ptxtile")
    ap.add_argument("--ptxas", default=shutil.which("ptxas") or
                    "/usr/local/cuda/bin/ptxas")
    ap.add_argument("--corpus", default="tests/property/corpus")
    ap.add_argument("--examples", default="examples/*.py")
    args = ap.parse_args()
    if not os.access(args.ptxas, os.X_OK):
        print("mutate_examples: SKIPPED, ptxas not found (--ptxas)")
        return 0
    rng = random.Random(args.seed)
    sources = [(p, open(p).read()) for p in sorted(glob.glob(args.examples))]
    tmp = tempfile.mkdtemp()
    stats = {"mutants": 0, "compiled": 0, "ptxas_ok": 0, "rejected": 0,
             "ptxas_rejects": 0, "signal": 0, "timeout": 0, "env": 0}
    try:
        for n in range(args.n):
            path, text = rng.choice(sources)
            target = target_of(text)
            src = mutate(rng, text)
            f = os.path.join(tmp, "m.py")
            out = os.path.join(tmp, "m.ptx")
            with open(f, "w") as fh:
                fh.write(src)
            if os.path.exists(out):
                os.remove(out)
            stats["mutants"] += 1
            rc, err = run([args.ptxtile, "compile", "--target", target, f,
                           "-o", out])
            bad = None
            if rc == "timeout":
                bad = "timeout"
            elif rc < 0 or rc >= 128:
                bad = "signal"
            elif rc == 1:
                stats["rejected"] += 1
            elif rc == 2:
                bad = "env"
            else:
                stats["compiled"] += 1
                prc, perr = run([args.ptxas, "-arch=" + target, out, "-o",
                                 os.path.join(tmp, "m.cubin")])
                if prc == 0:
                    stats["ptxas_ok"] += 1
                else:
                    bad = "ptxas_rejects"
                    err = perr
            if bad:
                stats[bad] += 1
                os.makedirs(args.corpus, exist_ok=True)
                h = hashlib.sha1(src.encode()).hexdigest()[:12]
                name = os.path.join(args.corpus, "%s-%s.py" % (bad, h))
                with open(name, "w") as fh:
                    fh.write("# target: %s\n%s" % (target, src))
                print("%s: %s (%s) %s" % (bad, name, os.path.basename(path),
                                          err.strip().split("\n")[0][:200]),
                      file=sys.stderr)
    finally:
        shutil.rmtree(tmp)
    c = stats["compiled"]
    rate = 100.0 * stats["ptxas_ok"] / c if c else 100.0
    print("mutants %d, compiled %d, ptxas accepted %d (%.2f%%), rejected "
          "with diagnostics %d; ptxas rejects %d, signals %d, timeouts %d, "
          "exit 2 %d" % (stats["mutants"], c, stats["ptxas_ok"], rate,
                         stats["rejected"], stats["ptxas_rejects"],
                         stats["signal"], stats["timeout"], stats["env"]))
    return 1 if (stats["ptxas_rejects"] or stats["signal"] or
                 stats["timeout"] or stats["env"]) else 0


if __name__ == "__main__":
    sys.exit(main())
