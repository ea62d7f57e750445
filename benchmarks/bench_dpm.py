"""DPMCalibration.fit against the fit before issue 18 (targets: 1e5 in <= 0.5 s, 1e6 in <= 5 s).

The baseline is today's fit frozen in this file (the dense coordinate ascent of commit
85531eb: (n, K) responsibilities, three passes per iteration, 500 iterations at these N),
timed in the same run on the same scores: chapter 8's ``synthetic`` scores in [0, 1]
(``DPM``, the default) and ``DPMCalibration(logit_input=True)`` on them (``DPM-logit``, as
chapter 8 and the decision guide run it). A fit meets its target when it takes at most the
target's seconds and the lower bound (``lower_bound_``) of each class's mixture is at least
the baseline's, to 1e-8 relative.

Fit times are medians of --repeats runs, ours and the baseline's interleaved; the baseline
runs once where one run takes more than 10 s (about 12 s at 1e5 and 140 s at 1e6 on 2 cores)
and not at all above 1e6 (about half an hour at 1e7).

Run: python benchmarks/bench_dpm.py [--sizes 1e5 1e6] [--repeats 5]
"""

import math
import os
import platform
import time
import warnings

import numpy as np
from _timing import parse_args
from bench_scaling import synthetic
from numba import njit

from calibbook.calibrators.dpm import (
    DPGaussianMixture1D,
    DPMCalibration,
    _quantile_responsibilities,
)

TARGET_S = {100_000: 0.5, 1_000_000: 5.0}  # issue 18: absolute fit-time targets
BASELINE_MAX_N = 1_000_000  # above: the baseline is not run
LONG_RUN_S = 10.0  # a baseline run this long is not repeated
ELBO_RTOL = 1e-8
METHODS = {"DPM": {}, "DPM-logit": {"logit_input": True}}


# ------------------------------------------- the fit before issue 18 (85531eb), frozen verbatim
_EPS10 = 10.0 * np.finfo(np.float64).eps
_LOG_2PI = math.log(2.0 * math.pi)


@njit(cache=True)
def _digamma(x):
    result = 0.0
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    series = inv2 * (
        1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 / 132)))
    )
    return result + math.log(x) - 0.5 * inv - series


@njit(cache=True)
def _m_step(x, w, resp, gamma, mean0, beta0, nu0, cov0, reg_covar, a, b, beta, mean, nu, cov):
    n, n_comp = resp.shape
    nk = np.zeros(n_comp)
    sx = np.zeros(n_comp)
    for i in range(n):
        for k in range(n_comp):
            r = w[i] * resp[i, k]
            nk[k] += r
            sx[k] += r * x[i]
    for k in range(n_comp):
        nk[k] += _EPS10
        sx[k] /= nk[k]
    sk = np.zeros(n_comp)
    for i in range(n):
        for k in range(n_comp):
            d = x[i] - sx[k]
            sk[k] += w[i] * resp[i, k] * d * d
    tail = 0.0
    for k in range(n_comp - 1, -1, -1):
        a[k] = 1.0 + nk[k]
        b[k] = gamma + tail
        tail += nk[k]
    for k in range(n_comp):
        s = sk[k] / nk[k] + reg_covar
        beta[k] = beta0 + nk[k]
        mean[k] = (beta0 * mean0 + nk[k] * sx[k]) / beta[k]
        nu[k] = nu0 + nk[k]
        diff = sx[k] - mean0
        cov[k] = (cov0 + nk[k] * s + nk[k] * beta0 / beta[k] * diff * diff) / nu[k]


@njit(cache=True)
def _e_step(x, a, b, beta, mean, nu, cov, log_resp):
    n, n_comp = log_resp.shape
    log_w = np.empty(n_comp)
    const = np.empty(n_comp)
    acc = 0.0
    for k in range(n_comp):
        dsum = _digamma(a[k] + b[k])
        log_w[k] = _digamma(a[k]) - dsum + acc
        acc += _digamma(b[k]) - dsum
        const[k] = (
            log_w[k]
            - 0.5 * _LOG_2PI
            - 0.5 * math.log(cov[k])
            - 0.5 * math.log(nu[k])
            + 0.5 * (math.log(2.0) + _digamma(0.5 * nu[k]) - 1.0 / beta[k])
        )
    for i in range(n):
        top = -np.inf
        for k in range(n_comp):
            d = x[i] - mean[k]
            v = const[k] - 0.5 * d * d / cov[k]
            log_resp[i, k] = v
            if v > top:
                top = v
        s = 0.0
        for k in range(n_comp):
            s += math.exp(log_resp[i, k] - top)
        norm = top + math.log(s)
        for k in range(n_comp):
            log_resp[i, k] -= norm


@njit(cache=True)
def _lower_bound(w, log_resp, a, b, beta, nu, cov):
    n, n_comp = log_resp.shape
    entropy = 0.0
    for i in range(n):
        for k in range(n_comp):
            lr = log_resp[i, k]
            entropy -= w[i] * math.exp(lr) * lr
    log_wishart = 0.0
    log_norm_weight = 0.0
    sum_log_beta = 0.0
    for k in range(n_comp):
        log_det_chol = -0.5 * math.log(cov[k]) - 0.5 * math.log(nu[k])
        log_wishart += -(
            nu[k] * log_det_chol + nu[k] * 0.5 * math.log(2.0) + math.lgamma(0.5 * nu[k])
        )
        log_norm_weight -= math.lgamma(a[k]) + math.lgamma(b[k]) - math.lgamma(a[k] + b[k])
        sum_log_beta += math.log(beta[k])
    return entropy - log_wishart - log_norm_weight - 0.5 * sum_log_beta


@njit(cache=True)
def _dp_mixture_vi(x, w, resp0, gamma, mean0, beta0, nu0, cov0, reg_covar, max_iter, tol):
    n, n_comp = resp0.shape
    a = np.empty(n_comp)
    b = np.empty(n_comp)
    beta = np.empty(n_comp)
    mean = np.empty(n_comp)
    nu = np.empty(n_comp)
    cov = np.empty(n_comp)
    _m_step(x, w, resp0, gamma, mean0, beta0, nu0, cov0, reg_covar, a, b, beta, mean, nu, cov)
    log_resp = np.empty((n, n_comp))
    resp = np.empty((n, n_comp))
    bound = -np.inf
    converged = False
    n_iter = 0
    for it in range(1, max_iter + 1):
        n_iter = it
        previous = bound
        _e_step(x, a, b, beta, mean, nu, cov, log_resp)
        for i in range(n):
            for k in range(n_comp):
                resp[i, k] = math.exp(log_resp[i, k])
        _m_step(x, w, resp, gamma, mean0, beta0, nu0, cov0, reg_covar, a, b, beta, mean, nu, cov)
        bound = _lower_bound(w, log_resp, a, b, beta, nu, cov)
        if abs(bound - previous) < tol:
            converged = True
            break
    return a, b, beta, mean, nu, cov, n_iter, bound, converged


class FrozenMixture(DPGaussianMixture1D):
    """DPGaussianMixture1D.fit as of 85531eb (the summary parameters are ignored)."""

    def fit(self, x, w, resp=None):
        if resp is None:
            resp = _quantile_responsibilities(x, w, self.n_components)
        gamma, mean0, beta0, nu0, cov0 = self.priors(x, w)
        a, b, beta, mean, nu, cov, n_iter, bound, converged = _dp_mixture_vi(
            x,
            w,
            np.ascontiguousarray(resp, dtype=np.float64),
            gamma,
            mean0,
            beta0,
            nu0,
            cov0,
            float(self.reg_covar),
            int(self.max_iter),
            float(self.tol),
        )
        self.weight_concentration_ = (a, b)
        self.mean_precision_, self.means_ = beta, mean
        self.degrees_of_freedom_, self.covariances_ = nu, cov
        self.n_iter_, self.lower_bound_ = int(n_iter), float(bound)
        self.converged_ = bool(converged)
        tmp = b / (a + b)
        weights = a / (a + b) * np.concatenate([[1.0], np.cumprod(tmp[:-1])])
        self.weights_ = np.maximum(weights / weights.sum(), 1e-300)
        return self


class FrozenDPM(DPMCalibration):
    """DPMCalibration with the frozen mixture fit of 85531eb, on the same standardised scores
    and priors as ours (issue 28), so that the lower bounds compare."""

    def _fit_mixture(self, params, z, w):
        return FrozenMixture(**params).fit(z, w)


# ----------------------------------------------------------------------------- measurement
def _timed(func):
    start = time.perf_counter()
    out = func()
    return time.perf_counter() - start, out


def _target(n):
    if n in TARGET_S:
        return f"fit <= {TARGET_S[n]:g} s, lower bounds >= baseline's ({ELBO_RTOL:g} rel)"
    return f"lower bounds >= baseline's ({ELBO_RTOL:g} rel)"


def measure(sizes, repeats):
    """Rows method, n, fit_s, predict_s, baseline, baseline_fit_s, ... for the bench table.

    Extra keys: ``elbo_rel_change`` (the smaller over the two classes of (ours - baseline)
    / |baseline| for lower_bound_), ``baseline_runs`` and ``iterations`` (summary +
    data iterations of each class).
    """
    warnings.filterwarnings("ignore")
    s0, y0 = synthetic(500, seed=1)
    for params in METHODS.values():  # compile (or load) the numba kernels outside the timings
        for cls in (DPMCalibration, FrozenDPM):
            cls(**params).fit(s0, y0).predict(s0)
    rows = []
    for n in map(int, sizes):
        s, y = synthetic(n)
        for method, params in METHODS.items():
            run_baseline = n <= BASELINE_MAX_N
            ours_t, base_t = [], []
            ours = base = None
            for _ in range(max(repeats, 1)):
                t, ours = _timed(lambda: DPMCalibration(**params).fit(s, y))
                ours_t.append(t)
                if (
                    run_baseline
                    and len(base_t) < repeats
                    and not (base_t and max(base_t) > LONG_RUN_S)
                ):
                    t, base = _timed(lambda: FrozenDPM(**params).fit(s, y))
                    base_t.append(t)
            predict_s = float(np.median([_timed(lambda: ours.predict(s))[0] for _ in range(3)]))
            row = {
                "method": method,
                "n": n,
                "fit_s": float(np.median(ours_t)),
                "predict_s": predict_s,
                "baseline": "DPM fit before issue 18 (frozen, 85531eb)",
                "baseline_fit_s": float(np.median(base_t)) if base_t else float("nan"),
                "baseline_predict_s": float("nan"),
                "target": _target(n),
                "target_met": None,
                "elbo_rel_change": float("nan"),
                "baseline_runs": len(base_t),
                "iterations": "; ".join(
                    f"{m.n_iter_summary_} + {m.n_iter_}" for m in ours.mixtures_
                ),
            }
            if base is not None:
                row["baseline_predict_s"] = float(
                    np.median([_timed(lambda: base.predict(s))[0] for _ in range(3)])
                )
                change = [
                    (m.lower_bound_ - b.lower_bound_) / abs(b.lower_bound_)
                    for m, b in zip(ours.mixtures_, base.mixtures_, strict=True)
                ]
                row["elbo_rel_change"] = min(change)
                met = row["elbo_rel_change"] >= -ELBO_RTOL
                if n in TARGET_S:
                    met = met and row["fit_s"] <= TARGET_S[n]
                row["target_met"] = bool(met)
            rows.append(row)
    return rows


def main():
    args = parse_args(__doc__, [1e5, 1e6])
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; fit: median of {args.repeats} (baseline: 1 run "
        f"when a run exceeds {LONG_RUN_S:g} s)"
    )
    print(
        f"{'method':>9} {'N':>8} {'ours s':>8} {'base s':>8} {'ratio':>7} {'runs':>4} "
        f"{'ELBO change':>11} {'iterations':>18}  target"
    )
    for row in measure(args.sizes, args.repeats):
        ratio = row["fit_s"] / row["baseline_fit_s"]
        met = {True: "met", False: "NOT met", None: "-"}[row["target_met"]]
        print(
            f"{row['method']:>9} {row['n']:>8.0e} {row['fit_s']:8.3f} "
            f"{row['baseline_fit_s']:8.2f} {ratio:7.4f} {row['baseline_runs']:4d} "
            f"{row['elbo_rel_change']:+11.2e} {row['iterations']:>18}  {row['target']}: {met}",
            flush=True,
        )


if __name__ == "__main__":
    main()
