"""compiler.verify.max_rel_error, the models' acceptance measure (verify stage, bench/e2e.py): a NaN on
one side only is an error, never hidden; NaNs and infinities both sides agree on are equal."""
from __future__ import annotations

import math

import numpy as np

from compiler.verify import max_rel_error


def test_relative_to_the_largest_reference_value():
    ref = np.random.default_rng(0).standard_normal((4, 5))
    got = ref.copy()
    got[2, 3] += 0.25
    assert math.isclose(max_rel_error({"y": got}, {"y": ref}), 0.25 / np.abs(ref).max())


def test_a_nan_on_one_side_is_reported():
    ref = np.array([1.0, -2.0, 3.0])
    assert math.isnan(max_rel_error({"y": np.array([1.0, np.nan, 3.0])}, {"y": ref}))
    assert math.isnan(max_rel_error({"y": ref}, {"y": np.array([1.0, np.nan, 3.0])}))


def test_agreeing_nans_and_infinities_are_equal():
    ref = np.array([np.nan, np.inf, -np.inf, 2.0])
    got = np.array([np.nan, np.inf, -np.inf, 2.5])
    assert math.isclose(max_rel_error({"y": got}, {"y": ref}), 0.25)   # denominator: the finite values
    assert max_rel_error({"y": np.array([np.nan, -np.inf, -np.inf, 2.0])}, {"y": ref}) == math.inf


def test_shape_mismatch_is_infinite():
    assert max_rel_error({"y": np.ones((2, 3))}, {"y": np.ones((3, 2))}) == math.inf
