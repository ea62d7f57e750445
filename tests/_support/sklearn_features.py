"""What the installed scikit-learn offers, for the tests that compare with it."""

import sklearn

#: scikit-learn 1.8 added CalibratedClassifierCV(method="temperature").
SKLEARN_HAS_TEMPERATURE = tuple(int(v) for v in sklearn.__version__.split(".")[:2]) >= (1, 8)
