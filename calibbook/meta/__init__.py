"""Meta-estimators: any scikit-learn classifier, with calibrated probabilities.

``calibrated_classifier`` (``CalibratedClassifier``, scikit-learn's
``CalibratedClassifierCV`` semantics with any registered calibrator) and
``probing`` (``ProbingClassifier``, the Probing reduction). ``_base`` holds what
both share.
"""
