"""The expression walks the analyses lean on, over expressions that share subtrees (a composed
stage read twice): `walk_distinct` and `load_counts` find what `walk` finds without walking a
shared subtree again, and a node's remembered hash stays out of pickles."""
from __future__ import annotations

import pickle
import random

from compiler.ir.dtypes import DType
from compiler.ir.graph import TensorType
from compiler.ir.texpr import Binary, Load, Select, TensorExpr, Var, load_counts, walk, walk_distinct


def _shared_dag(seed: int, size: int = 200):
    """Random expressions built bottom-up from earlier ones, so most subtrees have several parents."""
    rng = random.Random(seed)
    nodes = [Var("i0"), Var("i1")]
    for _ in range(size):
        r = rng.random()
        if r < 0.3:
            nodes.append(Load(rng.randrange(3), (rng.choice(nodes),), DType.int64))
        elif r < 0.85:
            nodes.append(Binary(rng.choice(("add", "mul", "sub")), rng.choice(nodes), rng.choice(nodes), DType.int64))
        else:
            nodes.append(Select(rng.choice(nodes), rng.choice(nodes), rng.choice(nodes), DType.int64))
    return nodes[-10:]


def test_load_counts_count_each_load_as_often_as_walk_meets_it():
    for seed in range(5):
        for e in _shared_dag(seed):
            walked = [x for x in walk(e) if isinstance(x, Load)]
            counts = load_counts(e)
            assert counts == {ld: walked.count(ld) for ld in dict.fromkeys(walked)}    # equal loads together
            assert sum(counts.values()) == len(walked)


def test_walk_distinct_keeps_walks_first_occurrences():
    shared = 0
    for seed in range(5):
        for e in _shared_dag(seed):
            every = list(walk(e))
            once = list(walk_distinct(e))
            first_seen = list(dict.fromkeys(id(x) for x in every))     # each node object at its first visit
            assert [id(x) for x in once] == first_seen
            shared += len(every) > len(once)
    assert shared > 0       # the expressions do share subtrees, or nothing was tested


def test_tensor_expr_loads_over_shared_subtrees():
    e = _shared_dag(9)[-1]
    te = TensorExpr("t", tuple(TensorType(DType.int64, (8,)) for _ in range(3)), TensorType(DType.int64, ()), e)
    for arg in range(3):
        assert list(te.loads[arg]) == list(dict.fromkeys(x for x in walk(e) if isinstance(x, Load) and x.arg == arg))


def test_a_remembered_hash_is_not_pickled():
    e = Binary("add", Var("i0"), Load(0, (Var("i1"),), DType.float32), DType.float32)
    h = hash(e)
    assert e.__dict__.get("_hash") == h
    copy = pickle.loads(pickle.dumps(e))
    assert "_hash" not in copy.__dict__ and copy == e and hash(copy) == h
