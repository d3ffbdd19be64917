"""The script text ptxtile compiles for a @T.function defined in a Python
module.

A module of kernels may also hold ordinary Python (torch set-up, tests, a
`__main__` block) that the script language rejects (E2029).  So the text
keeps, from the module's source, only what a script may hold: imports of
ptxtile / tvm_tirx names, module constants built from literals and those
names (`N = 128`, `n = T.dynamic("n")`, `FRAG = T.TileLayout(...)`), and
the @T.function definitions.  Every kept line stays at its own line
number (the rest become empty lines), so a diagnostic's file:line:col
points into the module as written.
"""
import ast
import linecache

_SCRIPT_MODULES = ("ptxtile", "tvm_tirx")


def _is_script_import(node):
    if isinstance(node, ast.ImportFrom):
        return (node.level == 0 and node.module is not None and
                node.module.split(".")[0] in _SCRIPT_MODULES)
    if isinstance(node, ast.Import):
        return all(a.name.split(".")[0] in _SCRIPT_MODULES
                   for a in node.names)
    return False


def _bound_names(node):
    out = []
    for a in node.names:
        out.append(a.asname or a.name.split(".")[0])
    return out


def _is_constant_expr(value, known):
    """True when every name the expression reads is a script name or an
    earlier kept constant (so no torch, no os, no function of this
    module)."""
    for sub in ast.walk(value):
        if isinstance(sub, ast.Name) and sub.id not in known:
            return False
        if isinstance(sub, (ast.Lambda, ast.ListComp, ast.DictComp,
                            ast.SetComp, ast.GeneratorExp, ast.Await,
                            ast.Yield, ast.YieldFrom, ast.NamedExpr)):
            return False
    return True


def _is_script_function(node, known):
    if not isinstance(node, ast.FunctionDef):
        return False
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if (isinstance(target, ast.Attribute) and
                target.attr in ("function", "prim_func") and
                isinstance(target.value, ast.Name) and
                target.value.id in known):
            return True
    return False


def script_lines(lines):
    """The script text for a module's source lines (see the module doc)."""
    tree = ast.parse("".join(lines))
    keep = [""] * len(lines)
    known = set()
    for node in tree.body:
        first = node.lineno
        if _is_script_import(node):
            known.update(_bound_names(node))
        elif isinstance(node, ast.Assign) and all(
                isinstance(t, ast.Name) for t in node.targets):
            if not _is_constant_expr(node.value, known):
                continue
            known.update(t.id for t in node.targets)
        elif _is_script_function(node, known):
            first = min([first] + [d.lineno for d in node.decorator_list])
        else:
            continue
        for i in range(first - 1, node.end_lineno):
            keep[i] = lines[i]
    return "".join(line if line.endswith("\n") else line + "\n"
                   for line in keep)


def function_source(fn):
    """(file name, script text) for a ptxtile.tirx.Function."""
    filename = fn.filename
    module = getattr(fn.__wrapped__, "__globals__", None)
    lines = linecache.getlines(filename, module)
    if not lines:
        raise ValueError(
            "the source of @T.function %s is not available (%s): define "
            "kernels in a file, or pass the script text to ptxtile.compile"
            % (fn.__name__, filename))
    return filename, script_lines(lines)
