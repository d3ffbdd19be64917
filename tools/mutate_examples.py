#!/usr/bin/env python3
"""Property harness: "accepted => ptxas accepts" over mutated examples.

Each mutant is one example (examples/*.py) with one to three edits.  Two
kinds of mutant:

- script mutants (the text of the example): an integer literal replaced
  by a small or a boundary value (0, +-1, 2^31, 2^32, 2^63-1, -2^63,
  2^64, ...) or by a device id (T.cuda.block_idx("x") ...; launch dims,
  shapes and steps are constant positions); a dtype, memory scope or PTX
  opcode token swapped; a comparison or arithmetic operator swapped; a
  statement dropped, repeated, wrapped in a loop or an if, or swapped
  with another statement of the same indentation; two call arguments
  swapped;
- IR JSON mutants (`ptxtile json` of the example, --json-share of them):
  an integer node set to a boundary value, a string swapped for another
  string seen under the same key, an object replaced by another object
  of the same "expr"/"stmt"/... kind from anywhere in the corpus (a
  subtree swap), a list element dropped or repeated.

Every mutant is compiled for the example's target (# Target: line,
default sm_90a); a mutant that compiles must be accepted by ptxas for that
target, and no mutant may end on a signal, a sanitizer report or a
timeout.  By default mutants are compiled in batches inside a worker
process (libptxtile through the Python package): a worker that dies is a
crash of the mutant it was compiling, one that does not answer within
--timeout seconds a hang.  --cli compiles each mutant with `ptxtile
compile` instead (for the ASan build: `--cli --ptxtile build-asan/ptxtile`
reports sanitizer output as a crash).  ptxas runs once per distinct PTX.

A mutant that breaks the property is written to --corpus (default
tests/property/corpus) as KIND-HASH.py (or .json) with a first line
"# target: sm_XX" (JSON: a sibling .target file); the suite
tests/suites/property.sh replays that corpus in `make test`.

  tools/mutate_examples.py [-n 5000] [--seed 1] [--ptxtile build/ptxtile]
                           [--ptxas PATH] [--corpus DIR] [--json-share 0.3]
                           [--cli] [--timeout 30]

Prints one summary line: mutants, compiled, ptxas-accepted, the rate, and
the counts of each failure kind.  Exit 1 when any mutant broke the property.
"""
import argparse
import copy
import glob
import hashlib
import json
import os
import random
import re
import select
import shutil
import subprocess
import sys
import tempfile

DTYPES = ["float32", "float16", "bfloat16", "int32", "uint32", "int64",
          "uint64", "int8", "uint8", "float64", "tf32", "float8_e4m3fn",
          "int16", "uint16", "bool", "float8_e5m2", "float4_e2m1fn"]
SCOPES = ["global", "shared", "shared::cta", "shared::cluster", "local",
          "param", "tmem"]
OPS = [("<", "<="), ("<=", "<"), (">", ">="), ("==", "!="), ("+", "-"),
       ("-", "+"), ("*", "//"), ("//", "%"), ("%", "*"), ("&", "|"),
       ("<<", ">>"), (">>", "<<")]
BOUNDARY = [0, 1, -1, 2, 7, 255, 256, 65535, 65536, 2 ** 31 - 1, 2 ** 31,
            -2 ** 31, -2 ** 31 - 1, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1,
            2 ** 63 - 1, 2 ** 63, -2 ** 63, -2 ** 63 - 1, 2 ** 64 - 1,
            2 ** 64, 1 << 80]
DEVICE_IDS = ['T.cuda.block_idx("x")', 'T.cuda.thread_idx("x")',
              'T.cuda.thread_idx("y")', 'T.cuda.block_idx("z")',
              'T.cuda.lane_id()', 'T.cuda.warp_id()',
              'T.cuda.cluster_cta_id("x")', 'T.cuda.block_idx("x") + 1',
              '16 // T.cuda.thread_idx("x")']
# PTX opcode token swaps inside T.ptx["..."]: each group's members are
# interchangeable spellings that the contract code must tell apart.
OPCODE_GROUPS = [
    ["v2", "v4", "v8", "v16"], ["b8", "b16", "b32", "b64", "b128"],
    ["f16", "bf16", "f32", "f64", "tf32", "e4m3", "e5m2"],
    ["u32", "s32", "u64", "s64", "u16", "s16"],
    ["global", "shared", "shared::cta", "shared::cluster", "local"],
    ["x1", "x2", "x4", "x8", "x16", "x32"], ["1d", "2d", "3d", "4d", "5d"],
    ["16x64b", "16x128b", "16x256b", "32x32b", "16x32bx2"],
    ["m8n8", "m16n8", "m16n16"], ["cta_group::1", "cta_group::2"],
    ["trans", "aligned", "sync"], ["tile", "im2col", "tile::gather4"],
]
WRAPS = ["for _m in T.serial(2):", "for _m in T.unroll(3):",
         'if T.cuda.thread_idx("x") == 0:', "if True:",
         "while False:", 'if T.cuda.block_idx("x") < 1:']


def target_of(text):
    m = re.search(r"^# Target: (sm_[0-9a-z]+)", text, re.M)
    return m.group(1) if m else "sm_90a"


def code_part(line):
    """The line before a comment (a '#' inside a string is not one)."""
    q = None
    for i, c in enumerate(line):
        if q:
            if c == q:
                q = None
        elif c in "\"'":
            q = c
        elif c == "#":
            return line[:i]
    return line


def int_spans(line):
    body = code_part(line)
    return list(re.finditer(r"(?<![\w.])\d+(?![\w.])", body))


def mutate_int(rng, line):
    nums = int_spans(line)
    if not nums:
        return None
    m = rng.choice(nums)
    v = int(m.group(0))
    r = rng.random()
    if r < 0.45:
        new = str(rng.choice([0, 1, -1, v * 2, v // 2, v + 1, v - 1,
                              2 ** rng.randint(2, 40)]))
    elif r < 0.85:
        new = str(rng.choice(BOUNDARY))
    else:
        new = rng.choice(DEVICE_IDS)
    if new.startswith("-"):
        new = "(%s)" % new
    return line[:m.start()] + new + line[m.end():]


def mutate_dtype(rng, line):
    hits = [d for d in DTYPES if '"%s"' % d in line]
    if not hits:
        return None
    return line.replace('"%s"' % rng.choice(hits), '"%s"' % rng.choice(DTYPES), 1)


def mutate_scope(rng, line):
    hits = [s for s in SCOPES if '"%s"' % s in line]
    if not hits:
        return None
    return line.replace('"%s"' % rng.choice(hits), '"%s"' % rng.choice(SCOPES), 1)


def mutate_opcode(rng, line):
    m = re.search(r'T\.ptx\["([^"]+)"\]', line)
    if not m:
        return None
    toks = m.group(1).split(".")
    cands = [(i, g) for i, t in enumerate(toks) for g in OPCODE_GROUPS
             if t in g]
    if cands and rng.random() < 0.85:
        i, g = rng.choice(cands)
        toks[i] = rng.choice(g)
    elif len(toks) > 2 and rng.random() < 0.5:
        del toks[rng.randrange(1, len(toks))]
    else:
        toks.insert(rng.randrange(1, len(toks) + 1),
                    rng.choice(rng.choice(OPCODE_GROUPS)))
    return line[:m.start(1)] + ".".join(toks) + line[m.end(1):]


def mutate_op(rng, line):
    body = code_part(line)
    hits = [(a, b) for a, b in OPS if " %s " % a in body]
    if not hits:
        return None
    a, b = rng.choice(hits)
    return line.replace(" %s " % a, " %s " % b, 1)


def split_args(s):
    """Top-level comma positions of the text inside one call's parens."""
    depth, out, start = 0, [], 0
    for i, c in enumerate(s):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return None
        elif c == "," and depth == 0:
            out.append(s[start:i])
            start = i + 1
    if depth:
        return None
    out.append(s[start:])
    return out


def mutate_args(rng, line):
    """Swaps two arguments of the outermost call on the line."""
    body = code_part(line)
    i, j = body.find("("), body.rfind(")")
    if i < 0 or j <= i:
        return None
    args = split_args(body[i + 1:j])
    if not args or len(args) < 2:
        return None
    a, b = rng.sample(range(len(args)), 2)
    args[a], args[b] = args[b], args[a]
    return body[:i + 1] + ",".join(args) + body[j:]


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def is_simple_stmt(line):
    s = line.strip()
    return (line.startswith("    ") and s and not s.startswith("#") and
            not s.endswith(":") and not s.startswith(("return", "@")))


def mutate_lines(rng, lines, body):
    """One statement-level edit in place; False when it found none."""
    i = rng.choice(body)
    kind = rng.random()
    if not is_simple_stmt(lines[i]):
        return False
    if kind < 0.25:
        lines[i] = ""
    elif kind < 0.5:
        lines.insert(i, lines[i])
    elif kind < 0.75:
        pad = " " * indent_of(lines[i])
        lines[i:i + 1] = [pad + rng.choice(WRAPS), "    " + lines[i]]
    else:
        same = [j for j in body if j != i and j < len(lines) and
                is_simple_stmt(lines[j]) and
                indent_of(lines[j]) == indent_of(lines[i])]
        if not same:
            return False
        j = rng.choice(same)
        lines[i], lines[j] = lines[j], lines[i]
    return True


LINE_MUTATORS = [(0.45, mutate_int), (0.57, mutate_dtype),
                 (0.62, mutate_scope), (0.72, mutate_opcode),
                 (0.82, mutate_op), (0.88, mutate_args)]


def mutate(rng, text):
    lines = text.split("\n")
    body = [i for i, l in enumerate(lines)
            if l.strip() and not l.lstrip().startswith("#")]
    for _ in range(rng.randint(1, 3)):
        for _attempt in range(20):
            kind = rng.random()
            fn = next((f for p, f in LINE_MUTATORS if kind < p), None)
            if fn is None:
                if mutate_lines(rng, lines, body):
                    break
                continue
            i = rng.choice(body)
            if i >= len(lines):
                continue
            new = fn(rng, lines[i])
            if new is not None and new != lines[i]:
                lines[i] = new
                break
    return "\n".join(lines)


# ---- IR JSON mutants ----

def json_nodes(node, path, out):
    """Every (container, key, value) below node."""
    if isinstance(node, dict):
        for k, v in node.items():
            out.append((node, k, v))
            json_nodes(v, path + (k,), out)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.append((node, i, v))
            json_nodes(v, path + (i,), out)


def node_kind(v):
    """The key that names an object's kind, and its value."""
    if isinstance(v, dict):
        for k in ("expr", "stmt", "param", "kind", "op"):
            if k in v and isinstance(v[k], str):
                return (k, v[k])
    return None


class JsonPool(object):
    """Strings seen under each key and subtrees of each kind, over every
    example's IR JSON: the material of swaps."""

    def __init__(self, docs):
        self.strings, self.subtrees = {}, {}
        for d in docs:
            nodes = []
            json_nodes(d, (), nodes)
            for parent, k, v in nodes:
                if isinstance(v, str) and isinstance(k, str):
                    self.strings.setdefault(k, set()).add(v)
                kind = node_kind(v)
                if kind:
                    self.subtrees.setdefault(kind[0], []).append(v)
        self.strings = {k: sorted(v) for k, v in self.strings.items()}


def mutate_json(rng, doc, pool):
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        nodes = []
        json_nodes(doc, (), nodes)
        if not nodes:
            break
        parent, k, v = rng.choice(nodes)
        r = rng.random()
        if isinstance(v, bool):
            parent[k] = not v
        elif isinstance(v, int):
            parent[k] = rng.choice(BOUNDARY + [v + 1, v - 1, -v])
        elif isinstance(v, str) and isinstance(k, str) and \
                pool.strings.get(k) and r < 0.9:
            parent[k] = rng.choice(pool.strings[k])
        elif node_kind(v) and r < 0.7:
            parent[k] = copy.deepcopy(rng.choice(
                pool.subtrees[node_kind(v)[0]]))
        elif isinstance(parent, list) and r < 0.85:
            del parent[k]
        elif isinstance(parent, list):
            parent.insert(k, copy.deepcopy(v))
        elif v is None:
            parent[k] = rng.choice([0, -1, 2 ** 32, "x", [], {}])
    return json.dumps(doc)


# ---- compiling: in a worker process, or the CLI per mutant ----

SAN_MARKERS = ("ERROR: AddressSanitizer", "runtime error:",
               "ERROR: LeakSanitizer", "UndefinedBehaviorSanitizer")


def worker_main():
    """Compiles mutants read as JSON lines on stdin; one JSON line out per
    mutant.  A crash here ends the process: the parent reports it."""
    sys.path.insert(0, os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "..", "python"))
    from ptxtile import _compile
    from ptxtile._errors import CompileError
    for line in sys.stdin:
        job = json.loads(line)
        try:
            ptx, _meta = _compile.compile_text(job["name"], job["text"],
                                               job["target"])
            with open(job["out"], "w") as f:
                f.write(ptx)
            res = {"rc": 0}
        except CompileError as e:
            res = {"rc": 1, "err": str(e)[:300]}
        except Exception as e:  # a Python-level defect is a crash too
            res = {"rc": "signal", "err": "%s: %s" % (type(e).__name__, e)}
        sys.stdout.write(json.dumps(res) + "\n")
        sys.stdout.flush()


class Worker(object):
    def __init__(self, timeout):
        self.timeout, self.p = timeout, None

    def start(self):
        self.p = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)

    def stop(self):
        if self.p:
            self.p.kill()
            self.p.wait()
            self.p = None

    def compile(self, name, text, target, out):
        if not self.p:
            self.start()
        job = {"name": name, "text": text, "target": target, "out": out}
        self.p.stdin.write((json.dumps(job) + "\n").encode())
        self.p.stdin.flush()
        r, _, _ = select.select([self.p.stdout], [], [], self.timeout)
        if not r:
            self.stop()
            return "timeout", ""
        line = self.p.stdout.readline()
        if not line:
            self.p.wait()
            err = self.p.stderr.read().decode("utf-8", "replace")
            rc = self.p.returncode
            self.p = None
            return "signal", "worker died (%s) %s" % (rc, err[-300:])
        res = json.loads(line)
        return res["rc"], res.get("err", "")


def run(cmd, timeout=60):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
        return p.returncode, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "timeout", ""


def cli_compile(args, path, target, out):
    rc, err = run([args.ptxtile, "compile", "--target", target, path,
                   "-o", out], args.timeout)
    if rc == "timeout":
        return rc, err
    if rc < 0 or rc >= 128 or any(m in err for m in SAN_MARKERS):
        return "signal", err
    if rc == 2:
        return "env", err
    return rc, err


def example_json(args, path):
    p = subprocess.run([args.ptxtile, "json", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return json.loads(p.stdout) if p.returncode == 0 else None


def record(args, bad, src, target, ext, origin, err):
    os.makedirs(args.corpus, exist_ok=True)
    h = hashlib.sha1(src.encode()).hexdigest()[:12]
    name = os.path.join(args.corpus, "%s-%s.%s" % (bad, h, ext))
    with open(name, "w") as fh:
        fh.write("# target: %s\n%s" % (target, src) if ext == "py" else src)
    if ext == "json":
        with open(name[:-5] + ".target", "w") as fh:
            fh.write(target + "\n")
    print("%s: %s (%s) %s" % (bad, name, origin,
                              err.strip().split("\n")[0][:200]),
          file=sys.stderr)


def main():
    if "--worker" in sys.argv:
        worker_main()
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ptxtile", default="build/ptxtile")
    ap.add_argument("--ptxas", default=shutil.which("ptxas") or
                    "/usr/local/cuda/bin/ptxas")
    ap.add_argument("--corpus", default="tests/property/corpus")
    ap.add_argument("--examples", default="examples/*.py")
    ap.add_argument("--json-share", type=float, default=0.3)
    ap.add_argument("--cli", action="store_true")
    ap.add_argument("--timeout", type=int, default=30)
    args = ap.parse_args()
    if not os.access(args.ptxas, os.X_OK):
        print("mutate_examples: SKIPPED, ptxas not found (--ptxas)")
        return 0
    rng = random.Random(args.seed)
    sources = [(p, open(p).read()) for p in sorted(glob.glob(args.examples))]
    docs = {p: example_json(args, p) for p, _ in sources}
    pool = JsonPool([d for d in docs.values() if d])
    tmp = tempfile.mkdtemp()
    worker = None if args.cli else Worker(args.timeout)
    seen = {}
    stats = {"mutants": 0, "json": 0, "compiled": 0, "ptxas_ok": 0,
             "rejected": 0, "ptxas_rejects": 0, "signal": 0, "timeout": 0,
             "env": 0, "ptxas_runs": 0}
    try:
        for n in range(args.n):
            path, text = rng.choice(sources)
            target = target_of(text)
            as_json = docs[path] is not None and rng.random() < args.json_share
            if as_json:
                src, ext = mutate_json(rng, docs[path], pool), "json"
                stats["json"] += 1
            else:
                src, ext = mutate(rng, text), "py"
            f = os.path.join(tmp, "m." + ext)
            out = os.path.join(tmp, "m.ptx")
            with open(f, "w") as fh:
                fh.write(src)
            if os.path.exists(out):
                os.remove(out)
            stats["mutants"] += 1
            if worker:
                rc, err = worker.compile(f, src, target, out)
            else:
                rc, err = cli_compile(args, f, target, out)
            bad = None
            if rc in ("timeout", "signal", "env"):
                bad = rc
            elif rc == 1:
                stats["rejected"] += 1
            else:
                stats["compiled"] += 1
                with open(out, "rb") as fh:
                    key = (target, hashlib.sha1(fh.read()).hexdigest())
                if key not in seen:
                    stats["ptxas_runs"] += 1
                    seen[key] = run([args.ptxas, "-arch=" + target, out, "-o",
                                     os.path.join(tmp, "m.cubin")])
                prc, perr = seen[key]
                if prc == 0:
                    stats["ptxas_ok"] += 1
                else:
                    bad = "ptxas_rejects"
                    err = perr
            if bad:
                stats[bad] += 1
                record(args, bad, src, target, ext, os.path.basename(path),
                       err)
    finally:
        if worker:
            worker.stop()
        shutil.rmtree(tmp)
    c = stats["compiled"]
    rate = 100.0 * stats["ptxas_ok"] / c if c else 100.0
    print("mutants %d (IR JSON %d), compiled %d, ptxas accepted %d (%.2f%%; "
          "%d distinct PTX), rejected with diagnostics %d; ptxas rejects %d, "
          "crashes %d, hangs %d, exit 2 %d" % (
              stats["mutants"], stats["json"], c, stats["ptxas_ok"], rate,
              stats["ptxas_runs"], stats["rejected"], stats["ptxas_rejects"],
              stats["signal"], stats["timeout"], stats["env"]))
    return 1 if (stats["ptxas_rejects"] or stats["signal"] or
                 stats["timeout"] or stats["env"]) else 0


if __name__ == "__main__":
    sys.exit(main())
