"""Reliability diagrams draw what they promise: diagonal, curve, intervals, histogram."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.colors import to_hex

from calibbook.metrics import reliability_curve
from calibbook.plotting import (
    COLORS,
    histogram_axes,
    label_outer,
    reliability_diagram,
    use_style,
)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=500)
    return (rng.uniform(size=500) < p).astype(int), p


def test_single_model_diagram(data):
    y, p = data
    fig, ax = plt.subplots()
    reliability_diagram(y, p, ax=ax, label="model")
    diagonals = [ln for ln in ax.get_lines() if ln.get_gid() == "calibbook-diagonal"]
    assert len(diagonals) == 1
    curve = reliability_curve(y, p)
    drawn = next(c for c in ax.containers if c.get_label() == "model").lines[0]
    np.testing.assert_allclose(drawn.get_xdata(), curve["mean_predicted"])
    np.testing.assert_allclose(drawn.get_ydata(), curve["observed"])
    hax = ax._calibbook_histogram_axes
    assert len(hax.patches) == 2  # filled and outlined stairs
    assert ax.get_xlim() == (0, 1) and ax.get_ylim() == (0, 1)
    plt.close(fig)


def test_overlay_shares_diagonal_and_histogram_axis(data):
    y, p = data
    fig, ax = plt.subplots()
    reliability_diagram(y, {"a": p, "b": p**2}, ax=ax)
    reliability_diagram(y, np.sqrt(p), ax=ax, label="c")
    assert sum(ln.get_gid() == "calibbook-diagonal" for ln in ax.get_lines()) == 1
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert {"a", "b", "c"} <= set(labels)
    assert len(fig.axes) == 2  # one histogram twin, however many models
    plt.close(fig)


def test_style_applies_palette():
    use_style()
    assert matplotlib.rcParams["axes.prop_cycle"].by_key()["color"] == COLORS


def test_bad_input_raises_before_drawing():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        reliability_diagram([0, 1], [0.5, 1.5], ax=ax)
    plt.close(fig)


def test_label_outer_and_histogram_axes(data):
    y, p = data
    fig, axes = plt.subplots(2, 2)
    for ax in axes.flat:
        reliability_diagram(y, p, ax=ax)
    label_outer(axes)
    assert axes[0, 0].get_xlabel() == "" and axes[1, 0].get_xlabel() != ""
    assert axes[0, 1].get_ylabel() == "" and axes[0, 0].get_ylabel() != ""
    assert histogram_axes(axes[0, 0]).get_ylabel() == ""
    assert histogram_axes(axes[0, 1]).get_ylabel() != ""
    # histogram ticks stop at the tallest bar
    hax = histogram_axes(axes[0, 0])
    tallest = max(patch.get_data()[0].max() for patch in hax.patches)
    assert max(hax.get_yticks()) <= tallest + 1e-12
    plt.close(fig)


def test_extreme_bins_draw_without_negative_error_bars():
    # every bin observed at exactly 0 or 1: the intervals must still contain o_k
    p = np.linspace(0.01, 0.99, 2000)
    y = (p > 0.5).astype(int)
    curve = reliability_curve(y, p)
    assert (curve["ci_lower"] <= curve["observed"]).all()
    assert (curve["observed"] <= curve["ci_upper"]).all()
    fig, ax = plt.subplots()
    reliability_diagram(y, p, ax=ax)
    plt.close(fig)


def _curve_and_histogram_colours(ax):
    """Colour of each model's curve, and of its two histogram stairs, in drawing order."""
    curves = [to_hex(c.lines[0].get_color()) for c in ax.containers]
    hax = histogram_axes(ax)
    bars = [
        to_hex(bar.get_facecolor() if bar.get_fill() else bar.get_edgecolor())
        for bar in hax.patches
    ]
    return curves, bars


@pytest.mark.parametrize("styled", [False, True])
def test_colours_advance_the_axes_cycle_as_plot_does(data, styled):
    y, p = data
    with matplotlib.rc_context():
        if styled:
            use_style()
        cycle = [to_hex(c) for c in matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]]
        fig, (ref, ax) = plt.subplots(1, 2)
        # the reference: plain lines on a fresh Axes take the cycle's colours in turn
        plain = [to_hex(ref.plot([0, 1], [0, 1])[0].get_color()) for _ in range(5)]
        assert plain == cycle[:5]
        reliability_diagram(y, p, ax=ax, label="first")
        reliability_diagram(y, {"second": p**2, "third": np.sqrt(p)}, ax=ax)
        reliability_diagram(y, p, ax=ax, label="given", color="#123456")  # takes no cycle colour
        reliability_diagram(y, p**3, ax=ax, label="fourth")
        curves, bars = _curve_and_histogram_colours(ax)
        assert curves == [*plain[:3], "#123456", plain[3]]
        assert bars == [c for c in curves for _ in range(2)]  # filled and outlined, same colour
        # one cycle step per model, no more: a line drawn next takes the next colour
        assert to_hex(ax.plot([0, 1], [0, 1])[0].get_color()) == plain[4]
        plt.close(fig)


# ---------------------------------------------------------------- consistency bands
def _bands_drawn(ax):
    return [c for c in ax.collections if c.get_gid() == "calibbook-consistency-band"]


@pytest.mark.parametrize("strategy, weighted", [("uniform", False), ("quantile", True)])
def test_consistency_bands_are_drawn_with_their_values(data, strategy, weighted):
    from calibbook.metrics._consistency_bands import consistency_bands

    y, p = data
    w = np.random.default_rng(1).integers(1, 4, p.size).astype(float) if weighted else None
    fig, ax = plt.subplots()
    reliability_diagram(
        y,
        p,
        ax=ax,
        label="model",
        strategy=strategy,
        sample_weight=w,
        consistency_bands=True,
        n_resamples=300,
        random_state=3,
    )
    (band,) = _bands_drawn(ax)
    expected = consistency_bands(
        p, strategy=strategy, sample_weight=w, n_resamples=300, random_state=3
    )
    segments = np.array(band.get_segments())  # one vertical segment per bin
    np.testing.assert_array_equal(segments[:, 0, 0], expected.mean_predicted)
    np.testing.assert_array_equal(segments[:, 1, 0], expected.mean_predicted)
    np.testing.assert_array_equal(segments[:, 0, 1], expected.lower)
    np.testing.assert_array_equal(segments[:, 1, 1], expected.upper)
    # the bars stand at the curve's points, in the curve's colour
    curve = next(c for c in ax.containers if c.get_label() == "model").lines[0]
    np.testing.assert_allclose(curve.get_xdata(), expected.mean_predicted)
    assert to_hex(band.get_colors()[0]) == to_hex(curve.get_color())
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "90% consistency band (model)" in labels
    plt.close(fig)


def test_consistency_bands_legend_level_and_overlays(data):
    y, p = data
    fig, (ax, ax2) = plt.subplots(1, 2)
    reliability_diagram(y, p, ax=ax, consistency_bands=True, band_level=0.975, random_state=0)
    # no label: the legend still names the band
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "perfect calibration",
        "97.5% consistency band",
    ]
    reliability_diagram(y, {"a": p, "b": p**2}, ax=ax2, consistency_bands=True, random_state=0)
    bands = _bands_drawn(ax2)
    labels = [b.get_label() for b in bands]
    assert labels == ["90% consistency band (a)", "90% consistency band (b)"]
    assert to_hex(bands[0].get_colors()[0]) != to_hex(bands[1].get_colors()[0])
    plt.close(fig)


def test_no_consistency_bands_by_default(data):
    y, p = data
    fig, ax = plt.subplots()
    reliability_diagram(y, p, ax=ax)
    assert not _bands_drawn(ax)
    assert ax.get_legend() is None  # unchanged: no label, no legend
    plt.close(fig)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(band_confidence=1.0), "band_confidence"),
        (dict(band_confidence=0.0), "band_confidence"),
        (dict(band_confidence=-0.5), "band_confidence"),
        (dict(n_resamples=0), "n_resamples"),
        (dict(random_state="x"), "random_state"),
        (dict(consistency_bands="yes"), "consistency_bands"),
    ],
)
def test_bad_band_parameters_raise_before_drawing(data, kwargs, message):
    y, p = data
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match=message):
        reliability_diagram(y, p, ax=ax, **kwargs)
    assert not ax.lines and not ax.collections  # nothing drawn
    plt.close(fig)
