"""Figures in one consistent style: reliability diagrams with prediction histograms.

Conventions follow matplotlib: every function takes an optional ``ax`` and
returns the Axes it drew on, so figures compose with ``plt.subplots``.
"""

from collections.abc import Mapping

import numpy as np

from calibbook._utils.deprecation import renamed_parameter
from calibbook._utils.optional import require
from calibbook._utils.params import Interval, Real, check_random_state, validate_params
from calibbook.experiments.statistics import nemenyi_critical_difference
from calibbook.metrics import reliability_curve
from calibbook.metrics._consistency_bands import BAND_PARAMETERS
from calibbook.metrics._consistency_bands import consistency_bands as _consistency_bands

__all__ = [
    "COLORS",
    "STYLE",
    "critical_difference_diagram",
    "histogram_axes",
    "label_outer",
    "reliability_diagram",
    "use_style",
]

#: The book's colour cycle, the Okabe-Ito palette, whose eight colours stay
#: distinguishable under the common colour-vision deficiencies.
COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]

#: The book's matplotlib rcParams (figure size, fonts, grid, colour cycle);
#: :func:`calibbook.plotting.use_style` applies them.
STYLE = {
    "figure.figsize": (5.0, 4.2),
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.prop_cycle": None,  # filled in use_style (needs matplotlib's cycler)
    "legend.frameon": False,
    "lines.linewidth": 1.6,
    "lines.markersize": 4.5,
}


def use_style():
    """Apply the calibbook figure style to matplotlib's global rcParams.

    Every chapter calls it first (:doc:`/book/01_measuring_calibration`), so all
    figures share sizes, fonts and the colours of
    :data:`calibbook.plotting.COLORS`. It changes global state, as
    ``matplotlib.style.use`` does.

    Returns
    -------
    None

    References
    ----------
    Okabe & Ito, "Color universal design (CUD): how to make figures and
    presentations that are friendly to colorblind people" (2008).

    Examples
    --------
    >>> import matplotlib as mpl
    >>> from calibbook.plotting import COLORS, use_style
    >>> use_style()
    >>> mpl.rcParams["axes.prop_cycle"].by_key()["color"] == COLORS
    True
    """
    mpl = require("matplotlib", "plot")
    from cycler import cycler

    style = dict(STYLE, **{"axes.prop_cycle": cycler(color=COLORS)})
    mpl.rcParams.update(style)


def histogram_axes(ax):
    """The twin Axes holding the prediction histogram of a reliability diagram.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Axes drawn on by :func:`calibbook.reliability_diagram`.

    Returns
    -------
    matplotlib.axes.Axes or None
        The histogram's twin Axes (right-hand scale), or None when ``ax`` has none.

    References
    ----------
    Niculescu-Mizil & Caruana, "Predicting good probabilities with supervised
    learning", ICML 2005 (reliability diagrams with prediction histograms).
    The figures of :doc:`/book/01_measuring_calibration` use it.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from calibbook import reliability_diagram
    >>> from calibbook.plotting import histogram_axes
    >>> fig, ax = plt.subplots()
    >>> ax = reliability_diagram([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3], ax=ax)
    >>> histogram_axes(ax).get_ylabel()
    'fraction of predictions'
    >>> plt.close(fig)
    """
    return getattr(ax, "_calibbook_histogram_axes", None)


def label_outer(axes):
    """Keep axis labels only on the outer panels of a grid of reliability diagrams.

    Like :meth:`matplotlib.axes.Axes.label_outer`, and it also keeps the
    histogram's right-hand label on the last column only. The grids of
    :doc:`/book/01_measuring_calibration` use it.

    Parameters
    ----------
    axes : array-like of matplotlib.axes.Axes
        A grid of Axes, as ``plt.subplots`` returns it (1-D is taken as one row).

    Returns
    -------
    ndarray of matplotlib.axes.Axes
        The same Axes, as a 2-D array.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from calibbook.plotting import label_outer
    >>> fig, axes = plt.subplots(1, 2)
    >>> for ax in axes:
    ...     _ = ax.set_ylabel("observed frequency")
    >>> label_outer(axes).shape
    (1, 2)
    >>> axes[1].get_ylabel()
    ''
    >>> plt.close(fig)
    """
    axes = np.atleast_2d(axes)
    n_rows, n_cols = axes.shape
    for (row, col), ax in np.ndenumerate(axes):
        if col > 0:
            ax.set_ylabel("")
        if row < n_rows - 1:
            ax.set_xlabel("")
        hax = histogram_axes(ax)
        if hax is not None and col < n_cols - 1:
            hax.set_ylabel("")
    return axes


def _histogram_axes(ax, height):
    """A twin axis whose bars fill the lowest ``height`` of ``ax`` (created once per ax)."""
    hax = getattr(ax, "_calibbook_histogram_axes", None)
    if hax is None:
        hax = ax.twinx()
        hax.grid(False)
        hax.set_ylabel("fraction of predictions", color="0.45")
        hax.tick_params(axis="y", colors="0.45", labelsize=8)
        hax.spines["right"].set_color("0.6")
        hax.set_zorder(ax.get_zorder() - 1)  # bars behind the curve
        ax.patch.set_visible(False)
        ax._calibbook_histogram_axes = hax
        ax._calibbook_histogram_height = height
        ax._calibbook_histogram_max = 0.0
    return hax


def _draw_bands(ax, bands, confidence, label, color, zorder):
    """Bröcker & Smith's consistency bars (from :func:`calibbook.consistency_bands`): one
    wide translucent bar per bin, at ``zorder`` (behind the curve)."""
    band_label = f"{100 * confidence:.10g}% consistency band"
    if label is not None:  # overlaid models each have their own bands
        band_label += f" ({label})"
    ax.vlines(
        bands.mean_predicted,
        bands.lower,
        bands.upper,
        colors=color,
        alpha=0.3,
        linewidths=7,
        zorder=zorder,
        gid="calibbook-consistency-band",
        label=band_label,
    )


def _draw_histogram(ax, y_prob, sample_weight, height, color):
    """The fraction of the predictions in each twentieth of [0, 1], as bars along the bottom
    of ``ax`` on its twin axis; the tallest bar of all the models drawn reaches ``height``
    (of the first call on ``ax``) of the axes."""
    from matplotlib.ticker import MaxNLocator

    hax = _histogram_axes(ax, height)
    p = np.asarray(y_prob, dtype=float).ravel()
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
    counts, edges = np.histogram(p, bins=np.linspace(0, 1, 21), weights=w)
    frac = counts / counts.sum()
    hax.stairs(frac, edges, color=color, alpha=0.25, fill=True)
    hax.stairs(frac, edges, color=color, alpha=0.8, lw=0.8)
    top = ax._calibbook_histogram_max = max(ax._calibbook_histogram_max, frac.max())
    ticks = MaxNLocator(nbins=3).tick_values(0, top)
    hax.set_yticks(ticks[ticks <= top * (1 + 1e-9)])  # no ticks above the tallest bar
    hax.set_ylim(0, top / ax._calibbook_histogram_height)


def _draw_diagonal(ax):
    """The diagonal of perfect calibration, once per Axes."""
    if not any(line.get_gid() == "calibbook-diagonal" for line in ax.get_lines()):
        ax.plot([0, 1], [0, 1], ls="--", color="0.5", lw=1, gid="calibbook-diagonal",
                label="perfect calibration")  # fmt: skip


def _draw_curve(ax, curve, with_intervals, color, label, line_kwargs):
    """The binned curve of a reliability_curve frame, with its intervals if asked."""
    x, obs = curve["mean_predicted"].to_numpy(), curve["observed"].to_numpy()
    yerr = None
    if with_intervals:
        yerr = np.vstack([obs - curve["ci_lower"].to_numpy(), curve["ci_upper"].to_numpy() - obs])
    # color=None: errorbar takes the next colour of the Axes' cycle, as plot does
    return ax.errorbar(x, obs, yerr=yerr, color=color, marker="o", capsize=2, elinewidth=0.8,
                       label=label, **line_kwargs)  # fmt: skip


@renamed_parameter("band_level", "band_confidence")
@validate_params(
    {
        "confidence": [None, Interval(Real, 0.0, 1.0, closed="neither")],
        "consistency_bands": ["boolean"],
        "band_confidence": BAND_PARAMETERS["confidence"],
        "n_resamples": BAND_PARAMETERS["n_resamples"],
        "random_state": BAND_PARAMETERS["random_state"],
    }
)
def reliability_diagram(
    y_true,
    y_prob,
    *,
    ax=None,
    n_bins=10,
    strategy="uniform",
    sample_weight=None,
    label=None,
    confidence=0.95,
    show_histogram=True,
    histogram_height=0.25,
    color=None,
    consistency_bands=False,
    band_confidence=0.9,
    n_resamples=1000,
    random_state=None,
    **line_kwargs,
):
    """Reliability diagram: observed frequency against mean prediction, per bin.

    Draws the diagonal of perfect calibration, the binned curve with binomial
    confidence intervals on the observed frequencies, and a histogram of the
    predictions on a twin axis along the bottom (fraction of samples per bin,
    right-hand scale). Call it again on the same ``ax``, or pass a mapping of
    ``{name: y_prob}``, to overlay several models. :doc:`/book/01_measuring_calibration`
    explains how to read it.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels in {0, 1}.
    y_prob : array-like of shape (n,) or mapping {name: array-like}
        Predicted probabilities of one model, or of several models to overlay.
    ax : matplotlib Axes, optional
        Axes to draw on; the current Axes by default.
    n_bins, strategy, sample_weight
        Binning, as in :func:`calibbook.reliability_curve`.
    label : str, optional
        Legend label for a single model (mappings use their keys).
    confidence : float or None, default=0.95
        Level of the Wilson intervals; None draws no error bars.
    show_histogram : bool, default=True
        Draw the histogram of predictions.
    histogram_height : float, default=0.25
        Fraction of the axes height the tallest histogram bar reaches.
    color : color, optional
        Colour for a single model. By default, and for mappings, the next colours of the
        Axes' property cycle, which each model advances as a plotted line does.
    consistency_bands : bool, default=False
        Draw each bin's consistency band: the range of observed frequencies that a
        perfectly calibrated forecaster making the same predictions would show
        (:func:`calibbook.consistency_bands` computes it for these bins). Each band
        is a wide translucent bar in the model's colour at the bin's mean prediction,
        labelled "90% consistency band" in the legend (followed by the model's label,
        if it has one). A point outside its bar departs from
        calibration more than chance explains.
    band_confidence : float, default=0.9
        Level of the consistency bands, in (0, 1).
    n_resamples : int, default=1000
        Redrawn label sets behind each band.
    random_state : None, int or numpy.random.Generator, default=None
        Seed or generator of the bands' redraws; the models of a mapping draw in turn
        from one generator.
    **line_kwargs
        Passed to :meth:`matplotlib.axes.Axes.errorbar` for the curve.

    Returns
    -------
    matplotlib.axes.Axes
        The diagram's Axes; :func:`calibbook.plotting.histogram_axes` gives its
        histogram twin.

    Raises
    ------
    ValueError
        If the labels or probabilities are invalid (as in
        :func:`calibbook.reliability_curve`), or ``band_confidence`` is not in (0, 1),
        ``n_resamples`` is not a positive integer or ``random_state`` is invalid.

    References
    ----------
    DeGroot & Fienberg, "The comparison and evaluation of forecasters", The
    Statistician 32 (1983); Niculescu-Mizil & Caruana, "Predicting good
    probabilities with supervised learning", ICML 2005; Wilson (1927) for the
    intervals; Bröcker & Smith, "Increasing the reliability of reliability
    diagrams", Weather and Forecasting 22 (2007) for the consistency bands.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from calibbook import reliability_diagram
    >>> from calibbook.datasets import make_scores
    >>> scores, y, _ = make_scores(500, kind="sigmoid", random_state=0)
    >>> fig, ax = plt.subplots()
    >>> ax = reliability_diagram(y, {"raw scores": scores}, ax=ax)
    >>> ax.get_xlabel()
    'mean predicted probability'
    >>> plt.close(fig)

    With the consistency bands of a calibrated forecaster making the same predictions:

    >>> fig, ax = plt.subplots()
    >>> ax = reliability_diagram(y, scores, ax=ax, consistency_bands=True,
    ...                          random_state=0)
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['perfect calibration', '90% consistency band']
    >>> plt.close(fig)
    """
    plt = require("matplotlib.pyplot", "plot")

    # one generator for all the models of a mapping, drawn in turn
    random_state = check_random_state(random_state)
    if ax is None:
        ax = plt.gca()
    if isinstance(y_prob, Mapping):
        for name, p in y_prob.items():
            reliability_diagram(
                y_true,
                p,
                ax=ax,
                n_bins=n_bins,
                strategy=strategy,
                sample_weight=sample_weight,
                label=name,
                confidence=confidence,
                show_histogram=show_histogram,
                histogram_height=histogram_height,
                consistency_bands=consistency_bands,
                band_confidence=band_confidence,
                n_resamples=n_resamples,
                random_state=random_state,
                **line_kwargs,
            )
        return ax

    curve = reliability_curve(
        y_true,
        y_prob,
        n_bins=n_bins,
        strategy=strategy,
        sample_weight=sample_weight,
        confidence=confidence if confidence is not None else 0.95,
    )
    _draw_diagonal(ax)
    bars = _draw_curve(ax, curve, confidence is not None, color, label, line_kwargs)
    color = bars.lines[0].get_color()  # the histogram wears the curve's colour

    if consistency_bands:
        bands = _consistency_bands(
            y_prob,
            n_bins=n_bins,
            strategy=strategy,
            confidence=band_confidence,
            n_resamples=n_resamples,
            sample_weight=sample_weight,
            random_state=random_state,
        )
        _draw_bands(ax, bands, band_confidence, label, color, bars.lines[0].get_zorder() - 0.5)
    if show_histogram:
        _draw_histogram(ax, y_prob, sample_weight, histogram_height, color)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("mean predicted probability")
    ax.set_ylabel("observed frequency of positives")
    if label is not None or consistency_bands:
        ax.legend(loc="upper left", fontsize=8)
    return ax


def critical_difference_diagram(average_ranks, n_datasets, *, alpha=0.05, ax=None):
    """Demšar's critical-difference diagram of average ranks (Nemenyi test).

    Methods sit on a rank axis (1 = best, on the left); a bar of length CD shows
    the Nemenyi critical difference, and thick lines join groups of methods whose
    ranks differ by less than CD (not significantly different).
    :doc:`/book/08_comparison` draws one for each measure.

    Parameters
    ----------
    average_ranks : mapping or pandas.Series
        Average rank per method.
    n_datasets : int
        Number of data sets the ranks were averaged over.
    alpha : float, default=0.05
        Significance level of the Nemenyi test.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.

    Returns
    -------
    matplotlib.axes.Axes
        The diagram's Axes (axis lines off).

    Raises
    ------
    ValueError
        If there are fewer than two methods or ``n_datasets < 1`` (see
        :func:`calibbook.experiments.nemenyi_critical_difference`).

    References
    ----------
    Demšar, "Statistical comparisons of classifiers over multiple data sets",
    Journal of Machine Learning Research 7 (2006), Section 3.2.2 and Fig. 1.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from calibbook.plotting import critical_difference_diagram
    >>> ranks = {"ENIR": 1.4, "BBQ": 2.1, "isotonic": 2.5}
    >>> ax = critical_difference_diagram(ranks, n_datasets=20)
    >>> sorted(t.get_text() for t in ax.texts if "(" in t.get_text())
    ['BBQ (2.10)', 'ENIR (1.40)', 'isotonic (2.50)']
    >>> plt.close(ax.figure)
    """
    plt = require("matplotlib.pyplot", "plot")

    items = sorted(dict(average_ranks).items(), key=lambda kv: kv[1])
    names = [n for n, _ in items]
    ranks = np.array([float(r) for _, r in items])
    k = len(ranks)
    cd = nemenyi_critical_difference(k, n_datasets, alpha)
    if ax is None:
        _, ax = plt.subplots(figsize=(6.0, 1.2 + 0.28 * k))
    lo, hi = 1, k
    ax.set_xlim(lo - 0.3, hi + 0.3)
    ax.hlines(0, lo, hi, color="black", lw=1)
    for t in range(lo, hi + 1):
        ax.vlines(t, 0, 0.08, color="black", lw=1)
        ax.text(t, 0.12, str(t), ha="center", va="bottom", fontsize=9)
    ax.plot([lo, lo + cd], [0.5, 0.5], color="black", lw=1.5)
    ax.text(lo + cd / 2, 0.55, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=9)
    half = (k + 1) // 2
    for i, (name, r) in enumerate(zip(names, ranks, strict=True)):
        left = i < half
        depth = -(0.35 + 0.3 * (i if left else k - 1 - i))
        xt = lo - 0.2 if left else hi + 0.2
        ax.plot([r, r, xt], [0, depth, depth], color="black", lw=0.8)
        ax.text(
            xt, depth, f"{name} ({r:.2f})", ha="right" if left else "left", va="center", fontsize=9
        )
    # maximal groups of methods whose ranks lie within CD of each other
    cliques = []
    for i in range(k):
        j = i
        while j + 1 < k and ranks[j + 1] - ranks[i] < cd:
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in cliques):
            cliques.append((i, j))
    for level, (i, j) in enumerate(cliques):
        y = -0.15 - 0.1 * level
        ax.plot(
            [ranks[i] - 0.03, ranks[j] + 0.03], [y, y], color="black", lw=3, solid_capstyle="butt"
        )
    ax.set_ylim(-(0.35 + 0.3 * half) - 0.1, 0.9)
    ax.axis("off")
    return ax
