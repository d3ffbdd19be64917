"""ptxtile.compile(..., lineinfo=True): .file/.loc in the PTX, so an
emulator error names the script line (here a failed device assert, whose
line number is counted in the script text below)."""

import pytest

import ptxtile

np = pytest.importorskip("numpy")

SCRIPT = '''from tvm_tirx.script import tirx as T
@T.function
def k(A: T.Tensor((4,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=4))
    tid = T.cuda.thread_idx("x")
    assert A[tid] < 10, "small"
'''


def test_lineinfo_off_by_default():
    k = ptxtile.compile(SCRIPT, target="sm_90a", cache=False)
    assert ".loc" not in k.ptx and ".file" not in k.ptx


def test_lineinfo_names_the_script_line(capfd):
    k = ptxtile.compile(SCRIPT, target="sm_90a", cache=False, lineinfo=True)
    assert '.file 1 "<string>"' in k.ptx and "\t.loc 1 6 " in k.ptx
    a = np.array([0, 1, 12, 3], dtype=np.int32)  # A[2] fails line 6
    with pytest.raises(Exception) as e:
        k(a, device="emulator")
    assert "<string>:6" in str(e.value) and "E9580" in str(e.value)
    out = capfd.readouterr().out
    assert "<string>:6: assertion failed: A[tid] < 10: small" in out


def test_lineinfo_cached_separately():
    a = ptxtile.compile(SCRIPT, target="sm_90a", lineinfo=True)
    b = ptxtile.compile(SCRIPT, target="sm_90a")
    assert a.cache_key != b.cache_key and ".loc" not in b.ptx
