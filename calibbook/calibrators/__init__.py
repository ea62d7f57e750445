"""The calibrators: one module per method, each a :class:`calibbook.BaseCalibrator`.

``histogram_binning``, ``platt`` (with temperature scaling), ``isotonic``,
``near_isotonic`` (one lambda, and the whole mPAVA path), ``enir``, ``bbq``,
``kde`` and ``dpm``. ``_model_averaging`` and ``_path_scoring`` hold what the two
ensembles (BBQ and ENIR) share and ENIR's scoring of the near-isotonic path.
Import the classes from ``calibbook`` itself: ``from calibbook import ENIR``.
"""
