"""views.sectors_per_request evaluates every lane's offsets at once and falls back to eval_index
lane by lane where a lane needs its care (loaded data, a zero divisor, a Select's unchosen branch
that would fail): its count of sectors is the lane-by-lane count's on random index expressions."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.analysis.views import (_PerLane, _lane_arrays, _lane_offsets, _loads_with_strides, load_offset,
                                     sectors_per_request)
from compiler.ir.dtypes import DType
from compiler.ir.graph import TensorType
from compiler.ir.texpr import Binary, Cast, Const, Load, Select, Var, load_counts

I64, F32 = DType.int64, DType.float32
VARS = ("i0", "i1", "r0")


def _lane_by_lane(e, inputs, envs, sector=32) -> float:
    """sectors_per_request as it was written before: every lane through load_offset."""
    counts = load_counts(e)
    total = weight = 0
    for x, strides, item in _loads_with_strides(counts, inputs):
        touched = {off // sector for env in envs for off in (load_offset(x, strides, item, env),) if off is not None}
        if touched:
            total += counts[x] * len(touched)
            weight += counts[x]
    return total / weight if weight else 0.0


def index_exprs(fallbacks: bool):
    """Index expressions of the ops eval_index computes; with `fallbacks`, also what it gives None
    for (a float, an index read from data, an op it does not compute)."""
    leaves = st.one_of(st.sampled_from(VARS).map(Var), st.integers(-9, 40).map(lambda v: Const(v, I64)))
    if fallbacks:
        leaves = st.one_of(leaves, st.just(Const(0.5, F32)))
    fns = ["add", "sub", "mul", "idiv", "imod", "min", "max"] + (["pow"] if fallbacks else [])

    def grow(children):
        binary = st.builds(lambda fn, a, b: Binary(fn, a, b, I64), st.sampled_from(fns), children, children)
        choose = st.builds(lambda c, a, b: Select(c, a, b, I64), children, children, children)
        cast = st.builds(lambda x: Cast(x, DType.int32), children)
        if not fallbacks:
            return st.one_of(binary, choose, cast)
        data = st.builds(lambda i: Load(1, (i,), I64), children)
        return st.one_of(binary, choose, cast, data)
    return st.recursive(leaves, grow, max_leaves=8)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=st.data(), fallbacks=st.booleans(),
       lanes=st.lists(st.tuples(*(st.integers(0, 70) for _ in VARS)), min_size=1, max_size=32),
       same_vars=st.booleans())
def test_lane_offsets_count_the_sectors_lane_by_lane_does(data, fallbacks, lanes, same_vars):
    idx = data.draw(st.lists(index_exprs(fallbacks), min_size=1, max_size=3))
    table = TensorType(F32, (64,) * len(idx))
    e = Load(0, tuple(idx), F32)
    inputs = (table, TensorType(I64, (100,)))
    envs = [dict(zip(VARS, v)) for v in lanes]
    if not same_vars:       # lanes that name different variables: eval_index's default of 0 per lane
        envs[0].pop("r0")
    assert sectors_per_request(e, inputs, envs) == _lane_by_lane(e, inputs, envs)
    lanes = _lane_arrays(envs)
    if lanes is not None:          # where every lane's offset comes at once, it is each lane's own
        try:
            offsets = _lane_offsets(e, (4096, 64, 1)[3 - len(idx):], 4, lanes, len(envs)).tolist()
        except _PerLane:
            return
        assert offsets == [load_offset(e, (4096, 64, 1)[3 - len(idx):], 4, env) for env in envs]


def test_a_warp_of_a_row_major_tile_coalesces(monkeypatch):
    """The vectorised path itself (lane by lane fails here): 32 consecutive floats are 4 sectors;
    a column, 32; a Select of the lanes' parity, a division and a remainder too."""
    from compiler.analysis import views
    monkeypatch.setattr(views, "load_offset", None)
    table = TensorType(F32, (64, 64))
    envs = [{"i0": 0, "i1": lane} for lane in range(32)]
    row = Load(0, (Var("i0"), Var("i1")), F32)
    col = Load(0, (Var("i1"), Var("i0")), F32)
    assert sectors_per_request(row, (table,), envs) == 4.0
    assert sectors_per_request(col, (table,), envs) == 32.0
    i0, i1 = Var("i0"), Var("i1")
    odd = Binary("imod", i1, Const(2, I64), I64)
    picked = Load(0, (Select(odd, i0, Binary("idiv", i1, Const(8, I64), I64), I64), i1), F32)
    # odd lanes read row 0 at columns 1..31: sectors 0..3; even lane l reads row l // 8 at column l,
    # sector 8 (l // 8) + l // 8: 0, 9, 18, 27; seven in all
    assert sectors_per_request(picked, (table,), envs) == 7.0


def test_division_and_remainder_truncate_as_eval_index():
    """idiv and imod of negative operands truncate toward zero (int(a / b), math.fmod), lane by
    lane and all lanes at once alike."""
    envs = [{"i0": v} for v in range(-7, 8)]
    for fn in ("idiv", "imod"):
        for d in (-3, 3):
            e = Load(0, (Binary(fn, Var("i0"), Const(d, I64), I64),), F32)
            got = _lane_offsets(e, (1,), 4, _lane_arrays(envs), len(envs)).tolist()
            assert got == [load_offset(e, (1,), 4, env) for env in envs], (fn, d)
