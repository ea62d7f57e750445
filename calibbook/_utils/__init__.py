"""The package's infrastructure: nothing here is public, and nothing here imports upward.

- ``params``: declared parameter constraints and the ``validate_params`` decorator;
- ``validation``: the input checks every public entry point runs once, at the edge;
- ``compat``: the private scikit-learn helpers we rely on, behind one import;
- ``maths``: small numerical helpers (stable logit and sigmoid, weighted moments);
- ``binning``: bin edges and per-bin statistics shared by metrics and calibrators.
"""
