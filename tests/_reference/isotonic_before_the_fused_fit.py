"""IsotonicCalibration's unweighted fit before the fused kernel (one sort per class, runs and PAV
in one pass), frozen: the oracle of tests/unit/test_isotonic.py. Kept as it was, so do not tidy it.
"""

import numpy as np


def _old_sorted_runs(scores, labels):
    """Frozen copy of the unweighted ``sorted_runs`` before the fused path (boolean masks)."""
    from tests._reference.bbq_before_the_sweep import merge_sorted_runs

    is_pos = labels == 1
    return merge_sorted_runs(np.sort(scores[~is_pos]), np.sort(scores[is_pos]))


def _old_isotonic_fit(scores, y, increasing):
    """Frozen copy of ``IsotonicCalibration._fit`` without weights before the fused kernel."""
    from calibbook._kernels.isotonic import pav_runs

    sign = 1.0 if increasing else -1.0
    values, weights, positives = _old_sorted_runs(sign * scores, y)
    ends, block_weight, block_sum = pav_runs(weights, positives)
    starts = np.concatenate(([0], ends[:-1]))
    lower, upper = values[starts], values[ends - 1]
    if not increasing:
        lower, upper = -upper[::-1], -lower[::-1]
        block_weight, block_sum = block_weight[::-1], block_sum[::-1]
    return lower, upper, block_weight, np.clip(block_sum / block_weight, 0.0, 1.0)
