"""The whole-book PDF (``make pdf``: scripts/make_pdf.py prints the single-page build).

Read with pypdf, the PDF must hold

* every page of _toc.yml: the title of each chapter, front and back matter page;
* every numbered figure of the HTML book: a figure's caption prints as "Fig. 2.3 <caption>", so
  each HTML caption's number and first words must appear together in the PDF's text (a
  reference such as "Fig. 2.3 shows" does not count; the figures themselves print as images
  or vector paths, which text extraction does not see);
* no fold bar: no "Show code cell output"/"Show code"/"Hide code" text (every fold was opened);
* a page count in a sane range.

The PDF is ``_build/html/calibbook.pdf`` (``CALIBBOOK_HTML`` names another build folder, as for
the browser test). Marker ``built_book``: ``make test`` runs it after the book and PDF builds.
It skips when the book or its PDF is not built (``make pdf`` needs Chromium, like the browser
test), and when pypdf is missing (under ``CI=true`` that fails: tests/conftest.py).
"""

from __future__ import annotations

import html as html_lib
import re
import unicodedata
from functools import cache

import pytest

from tests._support.book_layout import HTML, toc_pages

PDF = HTML / "calibbook.pdf"
# A4 pages; 425 when the check was written (13 chapters, the guide, the API reference). Far
# fewer means pages went missing; far more, a layout that breaks (a page per table row, ...).
PAGE_RANGE = (200, 900)
# The bars of a fold left closed or printed open: myst-nb's "Show code cell source/output"
# (and their "Hide code cell ..." twins).
FOLD_BARS = ("Show code", "Hide code")
# The words of a caption that must follow its number in the PDF.
CAPTION_WORDS = 6

pytestmark = [
    pytest.mark.built_book,
    # one worker reads the PDF once for all four tests (make test: pytest -n 2 --dist loadgroup)
    pytest.mark.xdist_group("pdf"),
    pytest.mark.skipif(
        not (HTML / "index.html").is_file(),
        reason="the book is not built: run `make book` first",
    ),
    pytest.mark.skipif(
        not PDF.is_file(),
        reason=f"no {PDF}: run `make pdf` (it needs Chromium, like the browser test)",
    ),
]


def squash(text: str) -> str:
    """Letters and digits only, lower case, ligatures and math letters unfolded (NFKC): the
    PDF's line breaks and spacing do not match the HTML's."""
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", text)).lower()


def _text(fragment: str) -> str:
    return html_lib.unescape(re.sub(r"<[^>]+>", "", fragment))


@cache
def pdf_pages() -> tuple[str, ...]:
    pypdf = pytest.importorskip("pypdf", reason="pypdf is missing: pip install -e '.[dev]'")
    return tuple(page.extract_text() for page in pypdf.PdfReader(PDF).pages)


@cache
def pdf_squashed() -> str:
    return squash("\n".join(pdf_pages()))


@cache
def html_pages() -> dict[str, str]:
    return {doc: (HTML / f"{doc}.html").read_text(encoding="utf-8") for doc in toc_pages()}


def page_title(source: str) -> str:
    """The article's first heading, without its section number and link mark."""
    article = source[source.find("<article") :]
    match = re.search(r"<h1[^>]*>(.*?)</h1>", article, re.S)
    assert match, "a page without a title"
    heading = re.sub(r'<span class="section-number">.*?</span>', "", match.group(1))
    return _text(re.sub(r'<a class="headerlink".*?</a>', "", heading)).strip()


def html_figures() -> dict[str, str]:
    """Numbered figure captions of the HTML book: "Fig. 2.3" -> its first words (before any
    maths or markup, which print differently)."""
    figures = {}
    pattern = re.compile(
        r'<span class="caption-number">(Fig(?:ure|\.) [\d.]+) </span>'
        r'<span class="caption-text">(.*?)</span>',
        re.S,
    )
    for doc, source in html_pages().items():
        for number, caption in pattern.findall(source):
            plain = _text(re.split(r"<|\\\(|\$", caption)[0])
            assert number not in figures, f"{number} numbers two figures ({doc})"
            figures[number] = " ".join(plain.split()[:CAPTION_WORDS])
    return figures


def test_page_count():
    pages = len(pdf_pages())
    low, high = PAGE_RANGE
    assert low <= pages <= high, f"{PDF.name} has {pages} pages, outside {PAGE_RANGE}"


def test_every_page_of_the_book():
    text = pdf_squashed()
    titles = {doc: page_title(source) for doc, source in html_pages().items()}
    missing = [f"{doc}: {title!r}" for doc, title in titles.items() if squash(title) not in text]
    assert not missing, f"pages missing from {PDF.name}:\n" + "\n".join(missing)


def test_every_figure():
    figures = html_figures()
    assert figures, "no numbered figure in the HTML book"
    text = pdf_squashed()
    missing = [
        f"{n} {words!r}" for n, words in figures.items() if squash(f"{n} {words}") not in text
    ]
    printed = len(figures) - len(missing)
    assert not missing, (
        f"{PDF.name} prints {printed} of the HTML's {len(figures)} numbered figures; missing:\n"
        + "\n".join(missing)
    )


def test_no_fold_bars():
    found = [
        f"page {i}: {bar!r}"
        for i, page in enumerate(pdf_pages(), start=1)
        for bar in FOLD_BARS
        if bar.lower() in " ".join(page.split()).lower()
    ]
    assert not found, "fold bars printed in the PDF:\n" + "\n".join(found[:20])
