"""DPGaussianMixture1D's fit before issue 18 (dense (n, K) responsibilities, numpy), frozen: the
oracle of tests/unit/test_dpm.py for the fused E/M pass. Kept as it was, so do not tidy it.
"""

import numpy as np


def frozen_dense_fit(x, w, resp, priors, reg_covar, max_iter, tol):
    """The fit before issue 18 (dense (n, K) responsibilities, numpy): the reference."""
    from scipy.special import digamma as psi
    from scipy.special import gammaln, logsumexp

    gamma, mean0, beta0, nu0, cov0 = priors
    eps10 = 10 * np.finfo(np.float64).eps

    def m_step(resp):
        nk = (w[:, None] * resp).sum(0) + eps10
        xk = (w[:, None] * resp * x[:, None]).sum(0) / nk
        sk = (w[:, None] * resp * (x[:, None] - xk) ** 2).sum(0) / nk + reg_covar
        a = 1 + nk
        b = gamma + np.r_[np.cumsum(nk[::-1])[::-1][1:], 0.0]
        beta = beta0 + nk
        mean = (beta0 * mean0 + nk * xk) / beta
        nu = nu0 + nk
        cov = (cov0 + nk * sk + nk * beta0 / beta * (xk - mean0) ** 2) / nu
        return a, b, beta, mean, nu, cov

    params = m_step(resp)
    bound, n_iter = -np.inf, 0
    for n_iter in range(1, max_iter + 1):  # noqa: B007 (read after the loop)
        a, b, beta, mean, nu, cov = params
        dsum = psi(a + b)
        log_w = psi(a) - dsum + np.r_[0.0, np.cumsum(psi(b) - dsum)[:-1]]
        const = (
            log_w
            - 0.5 * np.log(2 * np.pi)
            - 0.5 * np.log(cov)
            - 0.5 * np.log(nu)
            + 0.5 * (np.log(2.0) + psi(0.5 * nu) - 1.0 / beta)
        )
        log_resp = const - 0.5 * (x[:, None] - mean) ** 2 / cov
        log_resp -= logsumexp(log_resp, axis=1)[:, None]
        params = m_step(np.exp(log_resp))
        a, b, beta, mean, nu, cov = params
        previous = bound
        log_det = -0.5 * np.log(cov) - 0.5 * np.log(nu)
        log_wishart = -(nu * log_det + nu * 0.5 * np.log(2.0) + gammaln(0.5 * nu)).sum()
        log_norm = -(gammaln(a) + gammaln(b) - gammaln(a + b)).sum()
        entropy = -(w[:, None] * np.exp(log_resp) * log_resp).sum()
        bound = entropy - log_wishart - log_norm - 0.5 * np.log(beta).sum()
        if abs(bound - previous) < tol:
            break
    return params, bound, n_iter
