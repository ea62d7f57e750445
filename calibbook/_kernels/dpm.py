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

One iteration is one pass over the data (:func:`e_step_statistics`): it computes the
responsibilities of a block of samples, adds their weighted sufficient statistics and
entropy, and forgets them, so no array of shape (n, K) is ever formed. The statistics
of component k are taken about a centre c_k (the component's current mean):
n_k = sum_i w_i r_ik, s_k = sum_i w_i r_ik (x_i - c_k), q_k = sum_i w_i r_ik (x_i - c_k)^2,
from which the M step gets the weighted mean c_k + s_k / n_k and the scatter
q_k - s_k^2 / n_k without cancellation. The exponentials of the E step use a
polynomial that the compiler vectorises (:func:`_exp_nonpositive`, within 1 ulp of
``math.exp``), with fused multiply-adds.

Only that pass is compiled. The O(K) steps of an iteration (the constants of the E step,
the M step, the lower bound, the loop itself: :func:`coordinate_ascent`) are plain Python
on floats, the same arithmetic in the same order, so a first fit compiles one kernel,
not five (issue 31); ``math.lgamma`` of the bound is CPython's, within an ulp or so of the
C library's that the compiled loop used.

Parameters of the variational posterior (per component k):
``a, b``: Beta(a_k, b_k) of stick v_k; ``beta``: precision scale of the mean;
``mean``: mean of the mean; ``nu``: degrees of freedom; ``cov``: the
Wishart scale inverse divided by nu (scikit-learn's ``covariances_``).
"""

import math

import numpy as np
from numba import njit

from calibbook._kernels.arrays import zeroed
from calibbook._kernels.bits import bits_float

_EPS10 = 10.0 * np.finfo(np.float64).eps  # scikit-learn adds this to every n_k
_LOG_2PI = math.log(2.0 * math.pi)
_BLOCK = 128  # samples whose responsibilities are held at once (K x _BLOCK doubles)
_LOG2E = 1.4426950408889634
_LN2_HI = 0.6931471803691238  # ln 2 split in two (Cody & Waite): t * _LN2_HI is exact
_LN2_LO = 1.9082149292705877e-10


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


@njit(cache=True, inline="always")
def _exp_nonpositive(u):
    """exp(u) for u <= 0, within 1 ulp of ``math.exp``; 0 below -708 (exp(-708) < 1e-307).

    u = t ln 2 + r with t an integer and |r| <= ln(2) / 2; exp(r) by its Taylor series
    to degree 13 (remainder below 4e-18), times 2^t built from its bits. Branch-free, so
    a loop over it vectorises.
    """
    u = max(u, -708.5)
    t = math.floor(u * _LOG2E + 0.5)
    r = (u - t * _LN2_HI) - t * _LN2_LO
    p = 1.0 / 6227020800.0
    p = p * r + 1.0 / 479001600.0
    p = p * r + 1.0 / 39916800.0
    p = p * r + 1.0 / 3628800.0
    p = p * r + 1.0 / 362880.0
    p = p * r + 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    p = p * r + 1.0
    p = p * r + 1.0
    scale = bits_float((np.int64(t) + 1023) << 52)
    return p * scale if u > -708.0 else 0.0


def log_normal_constants(a, b, beta, nu, cov):
    """E[log pi_k] + E[log N(x | mu_k, lambda_k)] = const_k - half_prec_k (x - mean_k)^2.

    Returns (const, half_prec). O(K), in Python floats: the same arithmetic as compiled,
    the same results (``math.log`` is the C library's in both).
    """
    const, half_prec = [], []
    acc = 0.0
    for ak, bk, beta_k, nuk, covk in zip(
        a.tolist(), b.tolist(), beta.tolist(), nu.tolist(), cov.tolist(), strict=True
    ):
        dsum = digamma(ak + bk)
        log_w = digamma(ak) - dsum + acc  # E[log pi_k] under stick-breaking
        acc += digamma(bk) - dsum
        const.append(
            log_w
            - 0.5 * _LOG_2PI
            - 0.5 * math.log(covk)
            - 0.5 * math.log(nuk)
            + 0.5 * (math.log(2.0) + digamma(0.5 * nuk) - 1.0 / beta_k)
        )
        half_prec.append(0.5 / covk)
    return np.array(const), np.array(half_prec)


@njit(cache=True, fastmath={"contract"})  # fused multiply-adds only: no reordering
def e_step_statistics(x, w, mean, const, half_prec, nk, sd, sdd):
    """One E step over all samples; fills nk, sd, sdd (centred at ``mean``), returns entropy.

    ``const`` and ``half_prec`` are :func:`log_normal_constants` of the current parameters.

    The entropy is -sum_i w_i sum_k r_ik log r_ik = sum_i w_i (log Z_i - sum_k r_ik u_ik)
    with u_ik the log responsibility before normalisation, shifted by its maximum over k.
    Samples are taken _BLOCK at a time; per-lane accumulators keep the inner loops free
    of reductions (so they vectorise) and are summed at the end.
    """
    n = x.shape[0]
    n_comp = mean.shape[0]
    u = np.empty((n_comp, _BLOCK))
    top = np.empty(_BLOCK)
    total = np.empty(_BLOCK)
    dot = np.empty(_BLOCK)
    # np.empty and loops, not np.zeros: the same zeros, and one numpy overload less to compile
    acc_n = np.empty((n_comp, _BLOCK))
    acc_s = np.empty((n_comp, _BLOCK))
    acc_q = np.empty((n_comp, _BLOCK))
    acc_h = np.empty(_BLOCK)
    for j in range(_BLOCK):
        acc_h[j] = 0.0
        for k in range(n_comp):
            acc_n[k, j] = acc_s[k, j] = acc_q[k, j] = 0.0
    for start in range(0, n, _BLOCK):
        m = min(_BLOCK, n - start)
        xb = x[start : start + m]
        wb = w[start : start + m]
        for j in range(m):
            top[j] = -np.inf
            total[j] = 0.0
            dot[j] = 0.0
        for k in range(n_comp):
            mk, ck, hk = mean[k], const[k], half_prec[k]
            uk = u[k]
            for j in range(m):
                d = xb[j] - mk
                v = ck - d * d * hk
                uk[j] = v
                top[j] = max(top[j], v)
        for k in range(n_comp):
            uk = u[k]
            for j in range(m):
                v = uk[j] - top[j]
                e = _exp_nonpositive(v)
                uk[j] = e
                total[j] += e
                dot[j] += e * v
        for j in range(m):
            scale = wb[j] / total[j]
            acc_h[j] += wb[j] * math.log(total[j]) - dot[j] * scale
            total[j] = scale
        for k in range(n_comp):
            mk = mean[k]
            uk, an, as_, aq = u[k], acc_n[k], acc_s[k], acc_q[k]
            for j in range(m):
                r = uk[j] * total[j]
                d = xb[j] - mk
                rd = r * d
                an[j] += r
                as_[j] += rd
                aq[j] += rd * d
    entropy = 0.0
    for j in range(_BLOCK):
        entropy += acc_h[j]
    for k in range(n_comp):
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        for j in range(_BLOCK):
            s0 += acc_n[k, j]
            s1 += acc_s[k, j]
            s2 += acc_q[k, j]
        nk[k] = s0
        sd[k] = s1
        sdd[k] = s2
    return entropy


@njit(cache=True)
def responsibility_statistics(x, w, resp):
    """Statistics (nk, sd, sdd, centre) of given responsibilities ``resp`` of shape (n, K)."""
    n, n_comp = resp.shape
    nk = zeroed(np.empty(n_comp))
    centre = zeroed(np.empty(n_comp))
    for i in range(n):
        for k in range(n_comp):
            r = w[i] * resp[i, k]
            nk[k] += r
            centre[k] += r * x[i]
    for k in range(n_comp):
        if nk[k] > 0:
            centre[k] /= nk[k]
    sd = zeroed(np.empty(n_comp))
    sdd = zeroed(np.empty(n_comp))
    for i in range(n):
        for k in range(n_comp):
            r = w[i] * resp[i, k]
            d = x[i] - centre[k]
            sd[k] += r * d
            sdd[k] += r * d * d
    return nk, sd, sdd, centre


def m_step(
    nk, sd, sdd, centre, gamma, mean0, beta0, nu0, cov0, reg_covar, a, b, beta, mean, nu, cov
):
    """scikit-learn's M step from the statistics of :func:`e_step_statistics` (in place).

    O(K) arithmetic on Python floats, in the order of a loop over the components.
    """
    n_k = [v + _EPS10 for v in nk.tolist()]
    tail = 0.0
    for k in range(len(n_k) - 1, -1, -1):
        b[k] = gamma + tail  # gamma + sum of n_j over the components after k
        tail += n_k[k]
    a[:] = [1.0 + v for v in n_k]
    for k, (nk_k, sdk, sddk, ck) in enumerate(
        zip(n_k, sd.tolist(), sdd.tolist(), centre.tolist(), strict=True)
    ):
        shift = sdk / nk_k
        xbar = ck + shift  # the weighted mean x_k
        scatter = max(sddk - sdk * shift, 0.0)  # sum_i w_i r_ik (x_i - x_k)^2
        s = scatter / nk_k + reg_covar
        beta_k = beta0 + nk_k
        nu_k = nu0 + nk_k
        diff = xbar - mean0
        beta[k], nu[k] = beta_k, nu_k
        mean[k] = (beta0 * mean0 + nk_k * xbar) / beta_k
        cov[k] = (cov0 + nk_k * s + nk_k * beta0 / beta_k * diff * diff) / nu_k


def _bound_without_entropy(a, b, beta, nu, cov):
    """scikit-learn's lower bound (constant terms removed) less the entropy of q(z)."""
    log_wishart = 0.0
    log_norm_weight = 0.0
    sum_log_beta = 0.0
    for ak, bk, beta_k, nuk, covk in zip(
        a.tolist(), b.tolist(), beta.tolist(), nu.tolist(), cov.tolist(), strict=True
    ):
        log_det_chol = -0.5 * math.log(covk) - 0.5 * math.log(nuk)
        log_wishart += -(nuk * log_det_chol + nuk * 0.5 * math.log(2.0) + math.lgamma(0.5 * nuk))
        log_norm_weight -= math.lgamma(ak) + math.lgamma(bk) - math.lgamma(ak + bk)
        sum_log_beta += math.log(beta_k)
    return -log_wishart - log_norm_weight - 0.5 * sum_log_beta


def coordinate_ascent(
    x, w, a, b, beta, mean, nu, cov, gamma, mean0, beta0, nu0, cov0, reg_covar, max_iter, tol
):
    """scikit-learn's loop from the current parameters (updated in place).

    Each iteration: E step (compiled: the one pass over the data), M step, lower bound;
    stop when the bound changes by less than ``tol``. The O(K) steps run in Python: a
    first fit compiles only the E step. Returns (n_iter, lower_bound, converged).
    """
    n_comp = a.shape[0]
    nk = np.empty(n_comp)
    sd = np.empty(n_comp)
    sdd = np.empty(n_comp)
    bound = -np.inf
    converged = False
    n_iter = 0
    for it in range(1, max_iter + 1):
        n_iter = it
        previous = bound
        centre = mean.copy()
        const, half_prec = log_normal_constants(a, b, beta, nu, cov)
        entropy = e_step_statistics(x, w, mean, const, half_prec, nk, sd, sdd)
        m_step(
            nk,
            sd,
            sdd,
            centre,
            gamma,
            mean0,
            beta0,
            nu0,
            cov0,
            reg_covar,
            a,
            b,
            beta,
            mean,
            nu,
            cov,
        )
        bound = entropy + _bound_without_entropy(a, b, beta, nu, cov)
        if abs(bound - previous) < tol:
            converged = True
            break
    return n_iter, bound, converged


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
