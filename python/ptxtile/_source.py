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

Constants the module computes in Python (`BLOCK = int(os.environ.get(
"BLOCK", 128))`, `from config import BM`) are captured: a statement the
script cannot hold that binds a name the kernels (or kept constants)
read is replaced, on its first line, by `NAME = <value>` with the
module global's value at compile time, when that value has a script
literal (_constants.literal).  A value that has none (a tensor, a
function) is not captured; the reason is kept, so that the compiler's
"unknown name" for it can say why.
"""
import ast
import linecache

from . import _constants

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


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
           ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)


def _stored_names(node):
    """Names a module-level statement binds at module scope, in order
    (not those of functions, classes or comprehensions inside it)."""
    out = []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                         ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [n for n in _bound_names(node) if n != "*"]
    todo = [node]
    while todo:
        n = todo.pop(0)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            if n.id not in out:
                out.append(n.id)
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, _SCOPES):
                todo.append(child)
    return out


def _names_read(tree):
    """Every name read anywhere in the module: the candidates worth
    capturing (a superset of what the kernels read)."""
    return {n.id for n in ast.walk(tree)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _capture(node, names, env, known, notes):
    """`A = 1; B = (2, 3)` for the names of node whose module global has
    a literal, or ""; notes[name] = why for those that have none."""
    parts = []
    for name in names:
        if name not in env:
            continue
        try:
            parts.append("%s = %s" % (name, _constants.literal(env[name])))
            known.add(name)
            notes.pop(name, None)
        except _constants.NotCapturable as e:
            notes[name] = ("'%s' is a Python global computed at line %d "
                           "that ptxtile cannot capture: %s"
                           % (name, node.lineno, e))
    return "; ".join(parts)


def script_module(lines, env=None):
    """(script text, notes) for a module's source lines (see the module
    doc); env holds the module globals to capture (None: capture
    nothing); notes maps an uncaptured name to the reason."""
    tree = ast.parse("".join(lines))
    keep = [""] * len(lines)
    known, notes = set(), {}
    read = _names_read(tree) if env is not None else set()
    for node in tree.body:
        first = node.lineno
        if _is_script_import(node):
            known.update(_bound_names(node))
        elif isinstance(node, ast.Assign) and all(
                isinstance(t, ast.Name) for t in node.targets) and \
                _is_constant_expr(node.value, known):
            known.update(t.id for t in node.targets)
        elif _is_script_function(node, known):
            first = min([first] + [d.lineno for d in node.decorator_list])
        else:
            names = [n for n in _stored_names(node) if n in read]
            text = _capture(node, names, env, known, notes) if names \
                else ""
            if text:
                keep[first - 1] = text + "\n"
            continue
        for i in range(first - 1, node.end_lineno):
            keep[i] = lines[i]
    text = "".join(line if line.endswith("\n") else line + "\n"
                   for line in keep)
    return text, notes


def script_lines(lines):
    """The script text for a module's source lines, capturing nothing."""
    return script_module(lines)[0]


def function_source(fn):
    """(file name, script text, notes) for a ptxtile.tirx.Function; notes
    as script_module's."""
    filename = fn.filename
    module = getattr(fn.__wrapped__, "__globals__", None)
    lines = linecache.getlines(filename, module)
    if not lines:
        raise ValueError(
            "the source of @T.function %s is not available (%s): define "
            "kernels in a file, or pass the script text to ptxtile.compile"
            % (fn.__name__, filename))
    text, notes = script_module(lines, module if module is not None else {})
    return filename, text, notes
