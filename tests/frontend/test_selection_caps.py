"""NonMaxSuppression capped at the rows its readers take (compiler/frontend/selection_caps.py): which
readers bound a selection and which read all of it, and the capped models right against
onnxruntime, across classes and batches, in both thread orders."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto as TP, helper

from compiler.frontend.onnx_import import import_model
from tests.ops.test_runtime_extents import boxes_and_scores, check, model

ALL = np.iinfo(np.int64).max     # what torchvision's batched_nms asks for


def nms_model(tail: list, outputs: list, inits: dict, max_out: int = ALL, b: int = 2, c: int = 3, n: int = 150) -> bytes:
    """NonMaxSuppression of b batches, c classes and n boxes into `sel`, then `tail`."""
    values = {"max_out": np.array([max_out], np.int64), "iou": np.array([0.3], np.float32),
              "score_min": np.array([0.25], np.float32), **inits}
    nodes = [helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou", "score_min"], ["sel"]), *tail]
    return model(nodes, [("boxes", TP.FLOAT, [b, n, 4]), ("scores", TP.FLOAT, [b, c, n])], outputs,
                 list(values.items()))


def first_rows(k: int, of: str = "sel", out: str = "first", axes=(0,)) -> tuple[list, dict]:
    return ([helper.make_node("Slice", [of, f"{out}_s", f"{out}_e", f"{out}_a"], [out])],
            {f"{out}_s": np.zeros(len(axes), np.int64), f"{out}_e": np.array([k] * len(axes), np.int64),
             f"{out}_a": np.array(axes, np.int64)})


def caps(data: bytes) -> list[tuple[int, int, tuple[str, ...]]]:
    return [(c.requested, c.cap, c.readers) for c in import_model(data).selection_caps]


def feeds(b: int = 2, c: int = 3, n: int = 150) -> list[dict]:
    out = []
    for seed in range(3):
        boxes, scores = boxes_and_scores(b, n, c, seed=seed)
        out.append({"boxes": boxes, "scores": scores})
    return out


@pytest.mark.parametrize("k", [5, 60, 400])
def test_a_cap_keeps_the_first_rows_across_classes_and_batches(k):
    """The first k rows of the selection, read through a Gather of its box column: 5 lie in the
    first class of the first batch, 60 run into later classes (each class takes a few dozen of its
    300 boxes here), 400 into the second batch; capped at k a class, each is what onnxruntime gives
    uncapped, in both thread orders and in both NMS forms."""
    tail, inits = first_rows(k, of="box", out="first")
    tail = [helper.make_node("Gather", ["sel", "col"], ["box"], axis=1)] + tail
    inits["col"] = np.array(2, np.int64)
    data = nms_model(tail, [("first", TP.INT64, ["k"])], inits, n=300)
    assert caps(data) == [(ALL, k, ("Slice_2",))]
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    taken = [len(sess.run(["first"], f)[0]) for f in feeds(n=300)]
    assert min(taken) == k or k == 400, taken   # a cap that binds
    for disable in ((), ("nms_bitmask",)):
        art = check(data, feeds(n=300), disable=disable)
        assert dict(art.plan.types)["sel"].shape == (2 * 3 * min(k, 300), 3)
        (form,) = [t for t in art.report["techniques"] if t["name"] == "bitmask NMS"]
        assert form["effect"]["bitmask"] == (not disable), form   # the scan stops mid-chunk at k
        (tech,) = [t for t in art.report["techniques"] if t["name"] == "NMS cap"]
        assert tech["enabled"] and tech["effect"]["capped"] == [
            {"node": "NonMaxSuppression_0", "requested": ALL, "cap": k, "readers": ["Slice_2"]}]


def test_batched_nms_head_as_torchvision_exports_it_is_capped_at_its_detections():
    """torchvision's postprocess (bench/detection.py): the selection, inside the If on the list's
    emptiness, read as `keep[:max_det]` outside it. Capped at max_det: the same detections as
    onnxruntime, the empty list included; the bit-matrix scan stops at max_det taken boxes and its
    predicted time falls; --disable nms_cap keeps every box selectable, and the same outputs."""
    from bench.detection import batched_nms_head
    n, c, max_det = 200, 4, 10
    data = batched_nms_head(n, c, score=0.05, max_det=max_det)
    assert [(r, k) for r, k, _ in caps(data)] == [(ALL, max_det)]
    fs = []
    for seed in range(2):
        boxes, scores = boxes_and_scores(1, n, c, spread=40.0, size=12.0, seed=seed)
        fs.append({"boxes": boxes[0], "scores": np.ascontiguousarray(scores[0].T)})
    fs.append({"boxes": fs[0]["boxes"], "scores": fs[0]["scores"] * 0.01})   # none above 0.05
    capped, whole = check(data, fs), check(data, fs, disable=("nms_cap",))

    def bitmask_us(art) -> float:
        (tech,) = [t for t in art.report["techniques"] if t["name"] == "bitmask NMS"]
        (priced,) = tech["effect"]["priced"]
        assert priced["chosen"] == "bitmask"
        return priced["predicted_us"]["bitmask"]
    assert bitmask_us(capped) < bitmask_us(whole), (bitmask_us(capped), bitmask_us(whole))
    # the If runs on the device, its branch's kernels inside one persistent kernel, whose time is theirs
    assert capped.report["latency"]["predicted_us"] < whole.report["latency"]["predicted_us"]
    (tech,) = [t for t in whole.report["techniques"] if t["name"] == "NMS cap"]
    assert not tech["enabled"] and tech["effect"]["capped"] == []
    # report.html says it in words, as it does every technique of these reports
    from compiler.report_html import technique_sentence
    (on,) = [t for t in capped.report["techniques"] if t["name"] == "NMS cap"]
    assert f"at most {max_det} boxes a class" in technique_sentence(on)
    assert technique_sentence(tech) == "NMS cap (import): off."
    for t in capped.report["techniques"] + whole.report["techniques"]:
        assert not technique_sentence(t).endswith(": on."), t["name"]


def test_two_readers_cap_at_the_longer():
    t1, i1 = first_rows(7, out="a")
    t2, i2 = first_rows(12, out="b")
    data = nms_model(t1 + t2, [("a", TP.INT64, ["k", 3]), ("b", TP.INT64, ["m", 3])], {**i1, **i2})
    assert caps(data) == [(ALL, 12, ("Slice_1", "Slice_2"))]
    check(data, feeds())


def _reads_all(tail: list, inits: dict, outputs: list, max_out: int = ALL) -> None:
    assert caps(nms_model(tail, outputs, inits, max_out=max_out)) == []


def test_a_selection_the_model_returns_is_not_capped():
    tail, inits = first_rows(5)
    _reads_all(tail, inits, [("first", TP.INT64, ["k", 3]), ("sel", TP.INT64, ["m", 3])])


@pytest.mark.parametrize("starts,ends,steps", [([1], [5], [1]), ([0], [8], [2]), ([0], [-1], [1])])
def test_a_slice_that_is_not_a_prefix_reads_all(starts, ends, steps):
    tail = [helper.make_node("Slice", ["sel", "s", "e", "a", "st"], ["first"])]
    inits = {"s": np.array(starts, np.int64), "e": np.array(ends, np.int64), "a": np.array([0], np.int64),
             "st": np.array(steps, np.int64)}
    _reads_all(tail, inits, [("first", TP.INT64, ["k", 3])])


def test_a_prefix_longer_than_the_request_changes_nothing():
    tail, inits = first_rows(50)
    _reads_all(tail, inits, [("first", TP.INT64, ["k", 3])], max_out=4)


@pytest.mark.parametrize("reader", ["shape", "unsqueeze0", "gather0", "reduce", "slice_of_columns_then_all"])
def test_readers_that_read_every_row(reader):
    """The selection's length (Shape), an axis inserted before the rows, rows picked by index, a
    reduction over the rows, and a slice of the columns (row-wise) returned whole: no cap."""
    if reader == "shape":
        tail, inits = [helper.make_node("Shape", ["sel"], ["out"])], {}
        out = ("out", TP.INT64, [2])
    elif reader == "unsqueeze0":
        tail, inits = first_rows(5, of="u", axes=(1,), out="out")
        tail = [helper.make_node("Unsqueeze", ["sel", "ax"], ["u"])] + tail
        inits["ax"] = np.array([0], np.int64)
        out = ("out", TP.INT64, [1, "k", 3])
    elif reader == "gather0":
        tail, inits = first_rows(5, of="g", out="out")
        tail = [helper.make_node("Gather", ["sel", "idx"], ["g"], axis=0)] + tail
        inits["idx"] = np.array([3, 1, 0], np.int64)
        out = ("out", TP.INT64, [3, 3])
    elif reader == "reduce":
        tail, inits = [helper.make_node("ReduceMax", ["sel"], ["out"], keepdims=0)], {}
        out = ("out", TP.INT64, [])
    else:
        tail, inits = first_rows(2, out="out", axes=(1,))
        out = ("out", TP.INT64, ["k", 2])
    _reads_all(tail, inits, [out])


def _random_readers(seed: int) -> tuple[bytes, dict]:
    """NonMaxSuppression, then a random chain of readers of its selection: gathers of a column,
    casts, adds, squeezes and unsqueezes, slices of either axis with random bounds and steps."""
    rng = np.random.default_rng(seed)
    b, c, n = int(rng.choice([1, 2])), int(rng.choice([1, 3])), int(rng.choice([20, 150]))
    max_out = int(rng.choice([ALL, ALL, 50, 7]))
    tail, inits, v, rank, k, cols = [], {}, "sel", 2, 0, 3   # (cols: axis 1's extent while rank is 2)
    steps = [str(rng.choice(["gather", "gather1", "cast", "add", "unsqueeze", "slice0", "slice1"]))
             for _ in range(int(rng.integers(0, 3)))]
    if rng.random() < 0.75:     # most chains end in a slice of the rows, as exporters write them
        steps.append("slice0")
    for step in steps:
        k += 1
        out = f"v{k}"
        if step in ("gather", "gather1") and rank == 2 and cols:
            j = int(rng.integers(0, cols))
            inits[f"c{k}"] = np.array(j if step == "gather" else [j], np.int64)
            tail.append(helper.make_node("Gather", [v, f"c{k}"], [out], axis=1))
            rank, cols = (1, 0) if step == "gather" else (2, 1)
        elif step == "cast":
            tail.append(helper.make_node("Cast", [v], [out], to=TP.INT64))
        elif step == "add":
            inits[f"c{k}"] = np.array(int(rng.integers(-2, 3)), np.int64)
            tail.append(helper.make_node("Add", [v, f"c{k}"], [out]))
        elif step == "unsqueeze" and rank < 3:
            axis = int(rng.choice([0, rank]))
            inits[f"c{k}"] = np.array([axis], np.int64)
            tail.append(helper.make_node("Unsqueeze", [v, f"c{k}"], [out]))
            rank, cols = rank + 1, (1 if rank == 1 and axis == 1 else 0)
        elif step in ("slice0", "slice1"):
            axis = 0 if step == "slice0" or rank == 1 else 1
            inits[f"s{k}"] = np.array([int(rng.choice([0, 0, 0, 1]))], np.int64)
            inits[f"e{k}"] = np.array([int(rng.choice([2, 9, 40, 1000]))], np.int64)
            inits[f"a{k}"] = np.array([axis], np.int64)
            inits[f"t{k}"] = np.array([int(rng.choice([1, 1, 2]))], np.int64)
            tail.append(helper.make_node("Slice", [v, f"s{k}", f"e{k}", f"a{k}", f"t{k}"], [out]))
        else:
            continue
        v = out
    data = nms_model(tail, [(v, TP.INT64, [f"d{i}" for i in range(rank)])], inits, max_out=max_out, b=b, c=c, n=n)
    boxes, scores = boxes_and_scores(b, n, c, seed=seed)
    return data, {"boxes": boxes, "scores": scores}


@pytest.mark.parametrize("seed", range(24))
def test_random_readers_of_a_selection_against_onnxruntime(seed):
    """Whatever reads the selection, capping it changes no output: the model compiled with the cap
    and with --disable nms_cap both refuse it alike or both give onnxruntime's outputs."""
    from compiler import compile
    from compiler.errors import CompilerError
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    data, feed = _random_readers(seed)
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feed)[0]
    outcomes = []
    for disable in ((), ("nms_cap",)):
        try:
            art = compile(data, "h100", CompileOptions(build=False, disable=disable))
        except CompilerError as e:
            outcomes.append(type(e).__name__)
            continue
        got = next(iter(Executor(art.plan, make_backend("host")).run(feed).values()))
        assert got.shape == want.shape and np.array_equal(got, want), (disable, got.shape, want.shape)
        outcomes.append("right")
    assert outcomes[0] == outcomes[1], outcomes
