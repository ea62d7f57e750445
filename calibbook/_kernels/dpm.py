"""Variational inference for a 1-D Dirichlet-process Gaussian mixture with weighted data.

Truncated stick-breaking with K components, Beta(1, gamma) sticks and a
Normal-Wishart (1-D: Normal-Gamma) prior on each component's mean and precision,
updated by coordinate ascent (Blei & Jordan 2006; Bishop 2006, Section 10.2). As in
scikit-learn, the last stick keeps a Beta(1 + N_K, gamma) posterior instead of Blei
and Jordan's v_K = 1, and the weights are renormalised; this is not the accelerated
variant of Kurihara, Welling & Vlassis (2007) that the density-calibration paper used.
The parametrisation, the order of the updates and the lower bound follow
scikit-learn's ``BayesianGaussianMixture`` with
``weight_concentration_prior_type="dirichlet_process"`` and ``covariance_type="full"``
in one dimension, so the two can be compared term by term. Each sample i carries a
weight w_i that multiplies its sufficient statistics and its entropy term: an integer
weight equals repeating the row.

Parameters of the variational posterior (per component k):
``a, b``: Beta(a_k, b_k) of stick v_k; ``beta``: precision scale of the mean;
``mean``: mean of the mean; ``nu``: degrees of freedom; ``cov``: the
Wishart scale inverse divided by nu (scikit-learn's ``covariances_``).
"""

import math

import numpy as np
from numba import njit

_EPS10 = 10.0 * np.finfo(np.float64).eps  # scikit-learn adds this to every n_k
_LOG_2PI = math.log(2.0 * math.pi)


@njit(cache=True)
def digamma(x):
    """psi(x) for x > 0: recurrence up to x >= 10, then the asymptotic series (error < 1e-13)."""
    result = 0.0
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    # 1/(12 x^2) - 1/(120 x^4) + 1/(252 x^6) - 1/(240 x^8) + 1/(132 x^10), by Horner
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
        sx[k] /= nk[k]  # now the weighted mean x_k
    sk = np.zeros(n_comp)
    for i in range(n):
        for k in range(n_comp):
            d = x[i] - sx[k]
            sk[k] += w[i] * resp[i, k] * d * d
    tail = 0.0
    for k in range(n_comp - 1, -1, -1):
        a[k] = 1.0 + nk[k]
        b[k] = gamma + tail  # gamma + sum of n_j over the components after k
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
    """Log responsibilities; returns nothing (log_resp is filled in place)."""
    n, n_comp = log_resp.shape
    log_w = np.empty(n_comp)
    const = np.empty(n_comp)
    acc = 0.0
    for k in range(n_comp):
        dsum = digamma(a[k] + b[k])
        log_w[k] = digamma(a[k]) - dsum + acc  # E[log pi_k] under stick-breaking
        acc += digamma(b[k]) - dsum
        # E[log N(x | mu_k, lambda_k)] without the quadratic term
        const[k] = (
            log_w[k]
            - 0.5 * _LOG_2PI
            - 0.5 * math.log(cov[k])
            - 0.5 * math.log(nu[k])
            + 0.5 * (math.log(2.0) + digamma(0.5 * nu[k]) - 1.0 / beta[k])
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
    """scikit-learn's lower bound (constant terms removed), with weighted entropy."""
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
def dp_mixture_vi(x, w, resp0, gamma, mean0, beta0, nu0, cov0, reg_covar, max_iter, tol):
    """Fit from initial responsibilities ``resp0`` (shape (n, K)); scikit-learn's loop.

    Returns (a, b, beta, mean, nu, cov, n_iter, lower_bound, converged).
    """
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


@njit(cache=True)
def student_t_mixture_logpdf(x, weights, mean, scale2, df, out):
    """log sum_k weights_k t_{df_k}(x | mean_k, scale2_k), by log-sum-exp (no underflow)."""
    n_comp = weights.shape[0]
    const = np.empty(n_comp)
    for k in range(n_comp):
        const[k] = (
            math.log(weights[k])
            + math.lgamma(0.5 * (df[k] + 1.0))
            - math.lgamma(0.5 * df[k])
            - 0.5 * math.log(df[k] * math.pi * scale2[k])
        )
    terms = np.empty(n_comp)
    for i in range(x.shape[0]):
        top = -np.inf
        for k in range(n_comp):
            r = abs(x[i] - mean[k]) / math.sqrt(df[k] * scale2[k])
            # log(1 + r^2), without overflow of r^2 for |x| up to the largest double
            log_term = math.log1p(r * r) if r < 1e150 else 2.0 * math.log(r)
            v = const[k] - 0.5 * (df[k] + 1.0) * log_term
            terms[k] = v
            if v > top:
                top = v
        s = 0.0
        for k in range(n_comp):
            s += math.exp(terms[k] - top)
        out[i] = top + math.log(s)
