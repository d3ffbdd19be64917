"""Scripts that once took the interpreter down (issue 19): each must come
back as a CompileError with its stable code, in this process.  The
deepest inputs the budgets allow must still compile."""
import pytest

import ptxtile

HEAD = 'from tvm_tirx.script import tirx as T\n\n'


def kernel(body, params='A: T.Tensor((64,), "float32")', launch="grid=1, block=32"):
    return (HEAD + "@T.function\ndef k(%s):\n" % params +
            "    T.device_entry(launch=T.cuda.LaunchConfig(%s))\n" % launch +
            body)


def codes_of(text):
    with pytest.raises(ptxtile.CompileError) as e:
        ptxtile.compile(text, target="sm_90a")
    return e.value.codes


@pytest.mark.parametrize("grid", ['T.cuda.block_idx("x")',
                                  'T.cuda.block_idx("x") + 1',
                                  'T.cuda.block_idx("x") // 16'])
def test_device_id_grid_is_an_error_not_a_stack_overflow(grid):
    text = kernel("    A[0] = T.float32(1.0)\n", launch="grid=%s, block=32" % grid)
    assert codes_of(text)[0] == "E2035"


def view_chain(n):
    body = "    B0 = A[0:64]\n"
    body += "".join("    B%d = B%d[0:64]\n" % (i, i - 1) for i in range(1, n))
    return kernel(body + "    B%d[0] = T.float32(1.0)\n" % (n - 1))


def test_view_chain_past_the_depth_budget():
    # 20,000 links overflowed codegen's recursive resolver (SIGSEGV)
    assert codes_of(view_chain(20000))[0] == "E9019"


def test_view_chain_at_the_depth_budget_compiles():
    k = ptxtile.compile(view_chain(512), target="sm_90a")
    assert "st.global.f32" in k.ptx


def function_chain(n):
    text = HEAD + ("@T.function\ndef f0(x: T.float32) -> T.float32:\n"
                   "    return x + 1.0\n\n")
    for i in range(1, n):
        text += ("@T.function\ndef f%d(x: T.float32) -> T.float32:\n"
                 "    return f%d(x) + 1.0\n\n" % (i, i - 1))
    text += ("@T.function\ndef k(A: T.Tensor((64,), \"float32\")):\n"
             "    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))\n"
             "    A[0] = f%d(A[1])\n" % (n - 1))
    return text


def test_function_chain_past_the_depth_budget():
    assert codes_of(function_chain(3000))[0] == "E9019"


def test_function_chain_below_the_depth_budget_compiles():
    k = ptxtile.compile(function_chain(200), target="sm_90a")
    assert k.ptx.count("add.f32") == 200


def test_parser_nesting_past_its_budget():
    expr = "(" * 5000 + "1" + ")" * 5000
    text = kernel("    A[0] = T.float32(%s)\n" % expr,
                  params='A: T.Tensor((64,), "float32")')
    assert codes_of(text)[0] == "E1009"


def test_deep_unary_chain_past_its_budget():
    text = kernel("    A[0] = T.float32(%s1)\n" % ("-" * 100000))
    assert codes_of(text)[0] == "E1009"


def binding_chain_call(n):
    text = HEAD + "@T.function\ndef f(x: T.float32) -> T.float32:\n    y = x\n"
    text += "    y = y + 1.0\n" * n
    text += ("    return y\n\n@T.function\n"
             "def k(A: T.Tensor((64,), \"float32\")):\n"
             "    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))\n"
             "    A[0] = f(A[1])\n")
    return text


def test_worst_cases_on_a_one_mib_thread_stack():
    """The deepest inputs the budgets admit, and those just past them,
    on a thread with a 1 MiB stack (a 60,000-binding chain overflowed
    it in the inliner's node count before the depth budget)."""
    import threading
    results = {}

    def work():
        for name, text in (("bindings", binding_chain_call(60000)),
                           ("views", view_chain(20000))):
            try:
                ptxtile.compile(text, target="sm_90a")
                results[name] = "compiled"
            except ptxtile.CompileError as e:
                results[name] = e.codes[0]
        results["views_512"] = bool(ptxtile.compile(view_chain(512),
                                                    target="sm_90a").ptx)

    old = threading.stack_size(1 << 20)
    try:
        t = threading.Thread(target=work)
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
    assert results == {"bindings": "E9019", "views": "E9019",
                       "views_512": True}
