#!/usr/bin/env python3
"""Black-box oracle: compile a TIRx script with the Python reference
implementation (PyPI apache-tvm-tirx) and print the CUDA source it emits.

    python3 tools/tirx_oracle.py KERNEL.py [--arch sm_90a]

KERNEL.py is an ordinary ptxtile script whose imports work with tvm_tirx
(`from tvm_tirx.script import tirx as T`; axes from
`tvm_tirx.backend.cuda.axis`).  Every @T.function kernel in it is compiled;
the emitted inline PTX can be compared with ptxtile's output.  Optional: not
part of `make test` (DESIGN section 11)."""
import argparse
import importlib.util
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("script")
    ap.add_argument("--arch", default="sm_90a")
    args = ap.parse_args()
    import tvm_tirx
    spec = importlib.util.spec_from_file_location("kernel", args.script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    target = tvm_tirx.target.Target({"kind": "cuda", "arch": args.arch})
    found = False
    for name, obj in vars(mod).items():
        if type(obj).__name__ not in ("PrimFunc", "Function"):
            continue
        found = True
        try:
            exe = tvm_tirx.tirx.compile(obj, target=target)
            print(f"// ---- {name}")
            print(exe.mod.imports[0].inspect_source())
        except Exception as e:  # report and go on with the next kernel
            print(f"// ---- {name}: error: {e}", file=sys.stderr)
    if not found:
        print("no kernels found", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
