"""NonMaxSuppression: for each batch and class, boxes taken greedily by descending score, each
dropped whose overlap with one already taken (intersection over union) exceeds the threshold.

How many boxes it selects is known only at run time (OpDef.bounded): its output is sized to the
most any input can select, batches x classes x min(max_output_boxes_per_class, boxes), its rows
in the order ONNX gives them and zeros past the selected ones, and the count is one more output
(the runtime trims the output to it). Two hand-written kernels, since each step of the greedy
selection depends on the boxes taken before it:
- one block per (batch, class): its candidates (scored above the threshold) gathered by a ballot
  per warp, sorted by descending score with ties to the lower box (a bitonic sort in a scratch of
  the next power of two: O(k log^2 k) for k candidates, where ranking every pair was O(n^2)), then
  walked in that order, the block's threads testing the next box against the taken ones together,
  a chunk of ranked boxes staged in shared memory at a time; boxes of run-time number (a
  score-filtered list: passes/bounded_rows.py) are candidates up to their real number only;
- one block per (batch, class) copying its selection to its offset, the sum of the counts before
  it; block 0 zeroes the rows past the total and writes the count.

Where a class has many candidates, ops/nms_bitmask.py's form (ranks and overlap bits computed
across the grid, the decisions 64 boxes a step) replaces the first kernel when the micro-model
prices it lower (`--disable nms_bitmask` keeps this one)."""
from __future__ import annotations

import numpy as np

from ..codegen.block_function import BLOCK_X, finish_kernel
from ..codegen.cuda import c_const
from ..codegen.naming import NAME_PLACEHOLDER
from ..errors import ModelError, ShapeError
from ..ir.dtypes import DType
from ..ir.graph import Node, TensorType
from ..ir.kernel import Kernel, KernelParam
from . import nms_bitmask
from .registry import LowerCtx, bounded_result, register

_BOXES, _SCORES, _MAX_OUT, _IOU, _SCORE = range(5)
_THREADS = 128     # a block tests the next box against the taken ones, a taken box a thread
_KEPT_SHARED_BYTES = 32 * 1024   # the taken boxes' corners kept in shared memory up to this


def _given(inputs: list, i: int) -> bool:
    return i < len(inputs) and inputs[i] is not None and np.asarray(inputs[i]).size > 0


def _sizes(boxes: tuple[int, ...], scores: tuple[int, ...], node: str) -> tuple[int, int, int]:
    """(batches, classes, boxes), the two shapes checked against each other."""
    if len(boxes) != 3 or boxes[2] != 4 or len(scores) != 3 or scores[0] != boxes[0] or scores[2] != boxes[1]:
        raise ModelError(f"NonMaxSuppression takes boxes [batches, boxes, 4] and scores [batches, classes, boxes]; "
                         f"got boxes {list(boxes)} and scores {list(scores)}", node=node)
    return boxes[0], scores[1], boxes[1]


def _per_class_cap(max_out, n: int) -> int:
    """The most boxes one (batch, class) may select: max_output_boxes_per_class (0 when absent;
    a run-time value: every box) against the boxes there are."""
    if max_out is None:
        return n
    v = np.asarray(max_out).reshape(-1)
    return min(max(int(v[0]), 0), n) if v.size else 0


def _infer(pn, in_types: list, consts: list) -> list[TensorType]:
    b, c, n = _sizes(in_types[_BOXES].shape, in_types[_SCORES].shape, pn.name)
    given = _MAX_OUT < len(pn.input) and pn.input[_MAX_OUT]
    cap = _per_class_cap(consts[_MAX_OUT], n) if given else 0
    if b * c * cap == 0:     # nothing can be selected: the output is empty, its extent static
        return [TensorType(DType.int64, (0, 3))]
    return [TensorType(DType.int64, (b * c * cap, 3)), TensorType(DType.int64, ())]


def _suppressed(box_a: np.ndarray, box_b: np.ndarray, center: bool, threshold) -> bool:
    """Whether two boxes overlap by more than the threshold; in the boxes' float type, with
    ONNX's early exits (no overlap, or an empty box or union, never suppresses)."""
    half = box_a.dtype.type(2)
    if center:
        ax0, ax1 = box_a[0] - box_a[2] / half, box_a[0] + box_a[2] / half
        bx0, bx1 = box_b[0] - box_b[2] / half, box_b[0] + box_b[2] / half
        ay0, ay1 = box_a[1] - box_a[3] / half, box_a[1] + box_a[3] / half
        by0, by1 = box_b[1] - box_b[3] / half, box_b[1] + box_b[3] / half
    else:
        ax0, ax1 = min(box_a[1], box_a[3]), max(box_a[1], box_a[3])
        bx0, bx1 = min(box_b[1], box_b[3]), max(box_b[1], box_b[3])
        ay0, ay1 = min(box_a[0], box_a[2]), max(box_a[0], box_a[2])
        by0, by1 = min(box_b[0], box_b[2]), max(box_b[0], box_b[2])
    ix0, ix1 = max(ax0, bx0), min(ax1, bx1)
    iy0, iy1 = max(ay0, by0), min(ay1, by1)
    if ix1 <= ix0 or iy1 <= iy0:
        return False
    inter = (ix1 - ix0) * (iy1 - iy0)
    area_a, area_b = (ax1 - ax0) * (ay1 - ay0), (bx1 - bx0) * (by1 - by0)
    union = area_a + area_b - inter
    if inter <= 0 or area_a <= 0 or area_b <= 0 or union <= 0:
        return False
    return bool(inter / union > threshold)


def _ref_nms(node: Node, inputs: list, opset: int) -> list[np.ndarray]:
    boxes, scores = np.asarray(inputs[_BOXES]), np.asarray(inputs[_SCORES])
    b, c, n = _sizes(boxes.shape, scores.shape, node.name)
    cap = _per_class_cap(inputs[_MAX_OUT], n) if _given(inputs, _MAX_OUT) else 0
    iou = np.asarray(inputs[_IOU]).reshape(-1)[0] if _given(inputs, _IOU) else boxes.dtype.type(0)
    score_min = np.asarray(inputs[_SCORE]).reshape(-1)[0] if _given(inputs, _SCORE) else None
    center = bool(node.attr("center_point_box", 0))
    rows = []
    for bi in range(b):
        for ci in range(c):
            s = scores[bi, ci]
            order = sorted(range(n), key=lambda i: (-s[i], i))    # descending, ties to the lower index
            taken: list[int] = []
            for i in order:
                if len(taken) >= cap or (score_min is not None and not s[i] > score_min):
                    break
                if not any(_suppressed(boxes[bi, i], boxes[bi, j], center, iou) for j in taken):
                    taken.append(i)
            rows += [(bi, ci, i) for i in taken]
    return bounded_result(node, np.array(rows, dtype=np.int64).reshape(-1, 3), 0)


def _suppress_helper(center: bool) -> str:
    """The device function `<kernel>_suppress(a, b, t)`: whether box a overlaps box b by more than
    t, ONNX's test, each product and sum rounded on its own (no fused multiply-add), so a box at the
    threshold goes as the reference's."""
    if center:   # [x_center, y_center, width, height]
        corners = ["ax0 = __fsub_rn(a[0], a[2] / 2.0f), ax1 = __fadd_rn(a[0], a[2] / 2.0f);",
                   "const float bx0 = __fsub_rn(b[0], b[2] / 2.0f), bx1 = __fadd_rn(b[0], b[2] / 2.0f);",
                   "const float ay0 = __fsub_rn(a[1], a[3] / 2.0f), ay1 = __fadd_rn(a[1], a[3] / 2.0f);",
                   "const float by0 = __fsub_rn(b[1], b[3] / 2.0f), by1 = __fadd_rn(b[1], b[3] / 2.0f);"]
    else:        # [y1, x1, y2, x2], either diagonal
        corners = ["ax0 = by_min(a[1], a[3]), ax1 = by_max(a[1], a[3]);",
                   "const float bx0 = by_min(b[1], b[3]), bx1 = by_max(b[1], b[3]);",
                   "const float ay0 = by_min(a[0], a[2]), ay1 = by_max(a[0], a[2]);",
                   "const float by0 = by_min(b[0], b[2]), by1 = by_max(b[0], b[2]);"]
    lines = [f"BY_DEVICE bool {NAME_PLACEHOLDER}_suppress(const float* a, const float* b, float t) {{",
             "  const float " + corners[0], *("  " + c for c in corners[1:]),
             "  const float ix0 = by_max(ax0, bx0), ix1 = by_min(ax1, bx1), iy0 = by_max(ay0, by0), iy1 = by_min(ay1, by1);",
             "  if (ix1 <= ix0 || iy1 <= iy0) return false;",
             "  const float inter = __fmul_rn(__fsub_rn(ix1, ix0), __fsub_rn(iy1, iy0));",
             "  const float area_a = __fmul_rn(__fsub_rn(ax1, ax0), __fsub_rn(ay1, ay0));",
             "  const float area_b = __fmul_rn(__fsub_rn(bx1, bx0), __fsub_rn(by1, by0));",
             "  const float uni = __fsub_rn(__fadd_rn(area_a, area_b), inter);",
             "  if (inter <= 0.0f || area_a <= 0.0f || area_b <= 0.0f || uni <= 0.0f) return false;",
             "  return __fdiv_rn(inter, uni) > t;",
             "}"]
    return "\n".join(lines) + "\n"


def _scalar_param(ctx: LowerCtx, i: int, ctype: str, name: str, default: str) -> tuple[list[KernelParam], list[str], str]:
    """A scalar input as the kernel sees it: its constant value inlined, or a pointer it reads."""
    if not ctx.has_input(i) or ctx.input(i).size == 0:
        return [], [], default
    v = ctx.const(i)
    if v is not None:
        x = np.asarray(v).reshape(-1)[0]
        return [], [], (c_const(float(x), DType.float32) if ctype == "float" else f"{int(x)}ll")
    return ([KernelParam(ctx.input(i).dtype.ctype, ctx.in_name(i), False)],
            [f"const {ctx.input(i).dtype.ctype}* __restrict__ {name}"], f"{name}[0]")


def _run_time_boxes(ctx: LowerCtx) -> str | None:
    """The scalar holding the real number of boxes where it is known only at run time (boxes and
    scores computed from a value of run-time length, along their boxes axis), else None."""
    live = None
    for i, axis, what in ((_BOXES, 1, "boxes"), (_SCORES, 2, "scores")):
        found = ctx.run_time_extent(i)
        if found is None:
            continue
        count, at = found
        if at != axis:
            raise ShapeError(f"NonMaxSuppression's {what} have a run-time extent on axis {at} (batches or "
                             "classes); only the number of boxes may be known at run time only",
                             node=ctx.node.name)
        if live is not None and live != count:
            raise ShapeError("NonMaxSuppression's boxes and scores have run-time numbers of boxes from "
                             f"different values ('{live}', '{count}')", node=ctx.node.name)
        live = count
    return live


@register("NonMaxSuppression", reference=_ref_nms, infer=_infer, bounded=((0, 0),))
def lower_nms(ctx: LowerCtx) -> None:
    boxes_t, scores_t = ctx.input(_BOXES), ctx.input(_SCORES)
    selected_t = ctx.out_types[0]
    if selected_t.size == 0:
        return
    if boxes_t.dtype is not DType.float32 or scores_t.dtype is not DType.float32:
        raise ctx.unsupported(f"boxes of {boxes_t.dtype.name} and scores of {scores_t.dtype.name} "
                              "(ONNX defines it for float32)", feature=True)
    b, c, n = _sizes(boxes_t.shape, scores_t.shape, ctx.node.name)
    cap = selected_t.shape[0] // (b * c)
    center = bool(ctx.attr("center_point_box", 0))

    taken_t, counts_t = TensorType(DType.int64, (b * c, cap)), TensorType(DType.int64, (b * c,))
    params = [KernelParam("float", ctx.in_name(_BOXES), False), KernelParam("float", ctx.in_name(_SCORES), False)]
    decl = ["const float* __restrict__ boxes", "const float* __restrict__ scores"]
    live = _run_time_boxes(ctx)
    if live is not None:     # the boxes past this many are padding, never candidates
        params.append(KernelParam("long long", live, False))
        decl.append("const long long* __restrict__ live")
    # the thresholds: inlined where constant, else scalars the kernels read
    limit, scalar_params, scalar_decl = f"{cap}ll", [], []
    for i, ctype, name, default in ((_MAX_OUT, "long long", "max_out", f"{cap}ll"), (_IOU, "float", "iou", "0.0f"),
                                    (_SCORE, "float", "score_min", "")):
        p, d, expr = _scalar_param(ctx, i, ctype, name, default)
        scalar_params += p
        scalar_decl += d
        if i == _MAX_OUT:
            limit = f"by_min(by_max({expr}, 0ll), {cap}ll)" if p else limit
        elif i == _IOU:
            iou = expr
        else:
            score_min = expr
    inputs, inputs_decl = params + scalar_params, decl + scalar_decl
    in_range = "p < by_min(N, live[0])" if live is not None else "p < N"

    def greedy() -> None:
        """One block per batch and class: candidates gathered, sorted, walked greedily."""
        # the candidates of a (batch, class) sorted in place: a scratch of the next power of two
        width = 1 << max(n - 1, 0).bit_length()
        keys = ctx.temp(TensorType(DType.float32, (b * c, width)), "sort_keys")
        ids = ctx.temp(TensorType(DType.int64, (b * c, width)), "sort_ids")
        taken, counts = ctx.temp(taken_t, "taken"), ctx.temp(counts_t, "counts")
        params, decl = list(inputs), list(inputs_decl)
        params += [KernelParam("float", keys, True), KernelParam("long long", ids, True),
                   KernelParam("long long", taken, True), KernelParam("long long", counts, True)]
        decl += ["float* __restrict__ sort_keys", "long long* __restrict__ sort_ids",
                 "long long* __restrict__ taken", "long long* __restrict__ counts"]
        # the taken boxes' corners, tested at every step: in shared memory when they fit, else in a
        # global scratch (max_output_boxes_per_class only known at run time: every box may be taken)
        kept_shared = cap * 16 <= _KEPT_SHARED_BYTES
        staging = _THREADS * (16 + 8) + 16 * (_THREADS // 32)
        if kept_shared:
            kept_at = f"(float*)(smem + {staging})"
        else:
            kept_boxes = ctx.temp(TensorType(DType.float32, (b * c, cap, 4)), "taken_boxes")
            params.append(KernelParam("float", kept_boxes, True))
            decl.append("float* __restrict__ kept_boxes")
            kept_at = "kept_boxes + bc * CAP * 4"
        candidate = f"{in_range} && sc[p] > {score_min}" if score_min else in_range
        body = [f"  constexpr long long N = {n}, C = {c}, CAP = {cap}, W = {width}, T = {_THREADS};",
                f"  const long long bc = {BLOCK_X}, bi = bc / C;",
                "  BY_SHARED_BUFFER(smem);",
                "  float* chunk = (float*)smem;                          // the next T ranked boxes' corners",
                "  long long* chunk_i = (long long*)(smem + T * 16);     // their indices",
                "  int* warp_total = (int*)(smem + T * 24);              // candidates per warp of a T-box run",
                f"  float* kept_box = {kept_at};",
                "  const float* bx = boxes + bi * N * 4;",
                "  const float* sc = scores + bc * N;",
                "  float* key = sort_keys + bc * W;",
                "  long long* id = sort_ids + bc * W;",
                "  long long* mine = taken + bc * CAP;",
                "  // 1. the candidates (scored above the threshold) gathered in box order: a ballot per warp",
                *nms_bitmask.gather_candidates(candidate),
                "  // 2. sorted by descending score, ties to the lower box (a bitonic sort of the next power of",
                "  //    two, padded with entries that sort last)",
                "  long long width = 1;",
                "  while (width < k) width <<= 1;",
                "  for (long long e = k + threadIdx.x; e < width; e += T) { key[e] = -by_inf_f(); id[e] = N; }",
                "  __syncthreads();",
                *nms_bitmask.bitonic_sort("key", "id", "long long", "width"),
                f"  const long long limit = {limit};",
                f"  const float t = {iou};",
                "  // 3. the greedy walk: each ranked box tested against the ones taken, a T-box chunk staged",
                "  //    in shared memory at a time, so a step waits on no memory round trip",
                "  long long kept = 0;",
                "  for (long long p0 = 0; p0 < k && kept < limit; p0 += T) {",
                "    if (p0 + threadIdx.x < k) {",
                "      const long long i = id[p0 + threadIdx.x];",
                "      chunk_i[threadIdx.x] = i;",
                "      for (int d = 0; d < 4; ++d) chunk[threadIdx.x * 4 + d] = bx[i * 4 + d];",
                "    }",
                "    __syncthreads();",
                "    const long long steps = by_min(T, k - p0);",
                "    for (long long s = 0; s < steps && kept < limit; ++s) {",
                "      int hit = 0;",
                "      for (long long q = threadIdx.x; q < kept && !hit; q += T)",
                f"        hit = {NAME_PLACEHOLDER}_suppress(chunk + s * 4, kept_box + q * 4, t);",
                "      if (!__syncthreads_or(hit)) {",
                "        if (threadIdx.x == 0) {",
                "          mine[kept] = chunk_i[s];",
                "          for (int d = 0; d < 4; ++d) kept_box[kept * 4 + d] = chunk[s * 4 + d];",
                "        }",
                "        ++kept;",
                "      }",
                "      __syncthreads();   // the box taken is in kept_box before the next step reads it",
                "    }",
                "  }",
                "  if (threadIdx.x == 0) counts[bc] = kept;"]
        entry, source = finish_kernel("nms_select", decl, body, launch_bounds=(_THREADS,),
                                      helpers=_suppress_helper(center))
        passes = width.bit_length() * (width.bit_length() - 1) // 2      # the sort's, at most every box a candidate
        ctx.emit_kernel(Kernel(entry=entry, source=source, params=tuple(params), grid=(b * c, 1, 1),
                               block=(_THREADS, 1, 1), shared_bytes=staging + (cap * 16 if kept_shared else 0),
                               # at most every box a candidate: the sort's passes, then every box a step of
                               # the walk, each tested against (on average) half the taken ones between
                               # two barriers; a chunk's load waits on the sorted index, then the box
                               config=(("schedule", "nms_greedy"), ("sequential_steps", n + passes),
                                       ("flops", b * c * (n * max(cap // 2, 1) * 20 + passes * width * 4)),
                                       ("rows_bytes_per_step", 0 if kept_shared else b * c * 16 * max(cap // 2, 1)),
                                       ("grid_syncs_per_step", 0), ("block_syncs_per_step", 2),
                                       ("dependent_loads", 2 * -(-n // _THREADS)))))
        _emit_place(ctx, taken, counts, b, c, cap)

    def bitmask(batched: bool):
        """The overlap tests as a bit matrix across the grid, the decisions 64 boxes a step
        (ops/nms_bitmask.py), their words read a batch of chunks at once or a chunk at a time."""
        def emit() -> None:
            taken, counts = ctx.temp(taken_t, "taken"), ctx.temp(counts_t, "counts")
            nms_bitmask.emit_bitmask_nms(ctx, (inputs, inputs_decl), (scalar_params, scalar_decl), b=b, c=c, n=n,
                                         in_range=in_range, score_min=score_min, iou=iou, limit=limit,
                                         helper=_suppress_helper(center), taken=taken, counts=counts,
                                         batched=batched)
            _emit_place(ctx, taken, counts, b, c, cap)
        return emit

    ways = {"greedy": greedy}
    if n > 64 and nms_bitmask.fits(b * c, n) and ctx.enabled("nms_bitmask"):
        ways["bitmask"] = bitmask(True)
        if nms_bitmask.eager_fits(n):
            ways["bitmask, eager scan"] = bitmask(False)
    ctx.cheapest(ways)


def _emit_place(ctx: LowerCtx, taken: str, counts: str, b: int, c: int, cap: int) -> None:
    """Each class's taken boxes copied to their offset (the counts before them) as rows
    (batch, class, box); block 0 zeroes the rows past the total and writes the count."""
    body = [f"  constexpr long long C = {c}, CAP = {cap}, ROWS = {b * c * cap};",
            f"  const long long bc = {BLOCK_X}, nbc = {b * c};",
            "  long long at = 0;",
            "  for (long long k = 0; k < bc; ++k) at += counts[k];",
            "  for (long long q = threadIdx.x; q < counts[bc]; q += blockDim.x) {",
            "    long long* row = selected + (at + q) * 3;",
            "    row[0] = bc / C; row[1] = bc % C; row[2] = taken[bc * CAP + q];",
            "  }",
            "  if (bc == 0) {",
            "    long long total = 0;",
            "    for (long long k = 0; k < nbc; ++k) total += counts[k];",
            "    for (long long e = total * 3 + threadIdx.x; e < ROWS * 3; e += blockDim.x) selected[e] = 0;",
            "    if (threadIdx.x == 0) count[0] = total;",
            "  }"]
    entry, source = finish_kernel("nms_place", ["const long long* __restrict__ taken",
                                                "const long long* __restrict__ counts",
                                                "long long* __restrict__ selected", "long long* __restrict__ count"],
                                  body, launch_bounds=(_THREADS,))
    ctx.emit_kernel(Kernel(entry=entry, source=source,
                           params=(KernelParam("long long", taken, False), KernelParam("long long", counts, False),
                                   KernelParam("long long", ctx.out_name(0), True),
                                   KernelParam("long long", ctx.out_name(1), True)),
                           grid=(b * c, 1, 1), block=(_THREADS, 1, 1), config=(("schedule", "nms_place"),)))
