"""scikit-learn's private helpers that calibbook needs, imported in one place.

scikit-learn has no public equivalent of these; they have kept their names and
behaviour from 1.6 (our floor) to today, but private names may move in any release.
``tests/test_compat.py`` checks each one's behaviour, so a move fails loudly there
rather than somewhere deep inside a fit.
"""

from sklearn.utils import _safe_indexing as safe_indexing
from sklearn.utils.validation import _check_sample_weight as check_sample_weight_like
from sklearn.utils.validation import _num_features as num_features
from sklearn.utils.validation import _num_samples as num_samples

__all__ = ["check_sample_weight_like", "num_features", "num_samples", "safe_indexing"]
