"""The exact solution path of near-isotonic regression (Tibshirani, Hoefling & Tibshirani 2011).

Problem, for sorted runs with weights w_i and weighted sums s_i (means y_i = s_i / w_i):

    minimise  1/2 sum_i w_i (p_i - y_i)^2 + lam * sum_i (p_i - p_{i+1})_+ .

Between merges each block B (a maximal set of adjacent runs with a common value)
satisfies W_B p_B = S_B - lam (nu_right - nu_left), where nu = 1 for a pair of
adjacent blocks in decreasing order (a violation) and 0 otherwise. So

    p_B(lam) = m_B - lam c_B,   m_B = S_B / W_B,   c_B = (nu_right - nu_left) / W_B,

exactly, with no accumulated rounding. Blocks never split as lam grows; two adjacent
blocks merge when their values meet. A priority queue of candidate merge times gives
the whole path in O(R log R) for R runs, and the merges are recorded as events (O(R)
memory).

The kernels, by module (import them from there; this package exports nothing):

- :mod:`.path`: the path itself, :func:`.path.scored_path` (and its models' binned
  fits, found in the same sweep) and :func:`.path.near_isotonic_path`;
- :mod:`.heap`: its priority queues, a radix heap of merge times and a binary heap;
- :mod:`.replay`: the fits along a path, replayed from the runs and the merges;
- :mod:`.models`: the path's models, grouped, scored (:func:`.models.exact_fits`) and
  averaged (:func:`.models.model_average`, ENIR);
- :mod:`.lookup`: ENIR's averaged map as knots, and the lookup through them.
"""
