"""tests/_support/book_layout.py's typography counts, on a hand-written page (no browser)."""

import pytest

from tests._support import book_layout

PAGE = """<html><body><article class="bd-article">
<h1><span class="section-number">2. </span>Histogram binning<a class="headerlink">#</a></h1>
<h2><span class="section-number">2.1. </span>The estimator<a class="headerlink">#</a></h2>
<p>As <a class="reference internal" href="#x"><span class="std std-ref">The estimator</span></a>
shows, and as <a class="reference internal" href="#x"><span class="std std-ref">§2.1</span></a>
and <a class="reference internal" href="a.html"><span class="doc">Histogram binning</span></a> say,
Theorem Theorem 7.1 holds; see Section §2.1 and chapter Chapter 8, not Table 2.3.</p>
<table><tr><th>ECE</th><td>7.12e-02</td><td>3.2e-05</td><td>1.5e+07</td><td>0e+00</td>
<td>-0.000</td><td>-0%</td><td>-0.012</td><td>0.071</td></tr>
<tr><th>bin_lower</th><th>bin lower edge</th><th>Dmax_q90</th></tr></table>
<figure><figcaption>Fig. 2.1 The loss with N = 10^5 cases and theta-hat.</figcaption></figure>
<figure><figcaption>Fig. 2.2 With <span class="math">\\(N = 10^5\\)</span> cases.</figcaption>
</figure>
</article></body></html>"""


@pytest.fixture
def built(tmp_path):
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "p.html").write_text(PAGE, encoding="utf-8")
    return tmp_path


def test_section_titles_drop_numbers_and_anchors(built):
    titles = book_layout.section_titles(["book/p"], built)
    assert titles == {"Histogram binning", "The estimator"}


def test_typography_counts_by_hand(built):
    titles = book_layout.section_titles(["book/p"], built)
    m = book_layout.typography("book/p", titles, built)
    assert m["e_notation"] == ["7.12e-02", "0e+00"]  # 3.2e-05 and 1.5e+07 may stay
    assert m["negative_zeros"] == ["-0.000", "-0%"]
    assert m["bare_refs"] == ["The estimator", "Histogram binning"]
    assert m["doubled_labels"] == ["Theorem Theorem", "Section §", "chapter Chapter 8"]
    assert m["ascii_maths"] == ["Fig. 2.1 The loss with N = 10^5 cases and theta-hat."]
    assert m["code_headers"] == ["Dmax_q90", "bin_lower"]


def test_layout_problems_name_each_rule_and_honour_open_work(monkeypatch):
    measures = {
        "code_share": 0.0,
        "screens_open": 30.0,
        "wide_code": [],
        "wide_tables": [],
        "unnumbered": [],
        "progress_bars": 0,
        "nbval_marks": [],
        "folded_figures": 2,
        "folded_tables": 0,
        "folded_statements": 0,
        "bold_glued": [],
        "e_notation": ["7.12e-02"],
        "negative_zeros": [],
        "bare_refs": [],
        "doubled_labels": [],
    }
    problems = book_layout.layout_problems("book/x", measures)
    assert len(problems) == 3
    assert any("30.0 screens" in p for p in problems)
    assert any("2 figures behind a fold" in p for p in problems)
    monkeypatch.setitem(
        book_layout.OPEN_WORK, "book/x", {"screens_open": 31, "folded_figures": 2, "e_notation": 1}
    )
    assert book_layout.layout_problems("book/x", measures) == []
