"""The scikit-learn private helpers of calibbook._utils.compat exist and behave as we use them.

They are private in scikit-learn, so a release may move or change them; this test is where
that shows, with the helper's name, instead of a failure deep inside a fit.
"""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from calibbook._utils import compat as _compat


def test_safe_indexing_takes_rows_of_arrays_frames_lists_and_sparse():
    rows = np.array([2, 0])
    X = np.arange(12).reshape(4, 3)
    np.testing.assert_array_equal(_compat.safe_indexing(X, rows), X[rows])
    frame = pd.DataFrame(X, columns=list("abc"))
    pd.testing.assert_frame_equal(_compat.safe_indexing(frame, rows), frame.iloc[rows])
    assert _compat.safe_indexing([10, 11, 12, 13], rows) == [12, 10]
    np.testing.assert_array_equal(_compat.safe_indexing(sp.csr_matrix(X), rows).toarray(), X[rows])


def test_num_samples_and_num_features():
    X = np.zeros((5, 3))
    assert _compat.num_samples(X) == 5 and _compat.num_features(X) == 3
    assert _compat.num_samples([[1, 2], [3, 4]]) == 2
    with pytest.raises(TypeError):
        _compat.num_samples(3.0)  # CalibratedClassifier relies on TypeError for non-arrays


def test_check_sample_weight_like():
    X = np.zeros((4, 2))
    np.testing.assert_array_equal(_compat.check_sample_weight_like(None, X), np.ones(4))
    np.testing.assert_array_equal(_compat.check_sample_weight_like(2.0, X), np.full(4, 2.0))
    with pytest.raises(ValueError):
        _compat.check_sample_weight_like(np.ones(3), X)
    with pytest.raises(ValueError):
        _compat.check_sample_weight_like(-np.ones(4), X, ensure_non_negative=True)
