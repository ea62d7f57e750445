"""References in the built book read as numbers and sentences; the bibliography reads author-year.

Built-book tests (marker ``built_book``; they skip when _build/html, or ``CALIBBOOK_HTML``, holds
no build), over every page of _toc.yml:

- a ``{ref}`` or ``{doc}`` link to a section of a numbered chapter prints its number ("§1.2",
  "Chapter 8"), never the bare section title (book/_ext/calibbook_sphinx.py,
  NumberedSectionReferences);
- no doubled label: "Lemma Lemma 7.1", "Theorem Theorem 2.1", "Table Table 3", "Section §1.2",
  "chapter Chapter 8" (prose before a role that already prints its own label);
- the bibliography's labels are author-year ("Naeini et al., 2014"), sorted by author, and carry
  the year every citation of the entry prints ("Kull et al. [2017a]");
- every entry of book/references.bib with a ``doi`` or ``eprint`` field links out to
  https://doi.org/... or https://arxiv.org/abs/... on the bibliography page.

The label helpers of book/_ext are unit-tested without a build.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from urllib.parse import unquote, urldefrag, urljoin

import pytest

from tests._support.book_layout import HTML, ROOT, toc_pages

EXT = ROOT / "book" / "_ext"
BIB = ROOT / "book" / "references.bib"
BIBLIOGRAPHY = "book/bibliography"

built_book = pytest.mark.built_book
needs_build = pytest.mark.skipif(
    not (HTML / "index.html").is_file(),
    reason="the book is not built: run `make book` (or jupyter-book build .) first",
)

# Prose before a role that prints its own label: "Lemma {prf:ref}`x`" gives "Lemma Lemma 7.1".
LABEL_WORDS = (
    "Theorem|Lemma|Corollary|Proposition|Definition|Assumption|Example|Remark|Algorithm|"
    "Figure|Fig\\.|Table|Equation|Chapter|Section|Appendix"
)
DOUBLED = re.compile(rf"\b({LABEL_WORDS})\s+\1(?=[\s\d])", re.IGNORECASE)
# A section number after a word that already says "section" or "chapter".
SECTION_WORD = re.compile(
    r"\b(sections?|chapters?|§)\s*§|\b(chapters?\s+Chapter|appendix\s+Appendix)\b", re.IGNORECASE
)
NUMBER_TEXT = re.compile(r"^(§\d+(\.\d+)+|(Chapter|Appendix) \d+)$")
LABEL_YEAR = re.compile(r"^(?P<authors>.+), (?P<year>\d{4}[a-z]?|n\.d\.[a-z]?)$")


# ---------------------------------------------------------------------------
# unit tests of the label helpers (no build)
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ext():
    pytest.importorskip("sphinx")
    pytest.importorskip("sphinxcontrib.bibtex")
    sys.path.insert(0, str(EXT))
    try:
        import calibbook_bibliography
        import calibbook_sphinx
    finally:
        sys.path.remove(str(EXT))
    return calibbook_sphinx, calibbook_bibliography


def test_number_label(ext):
    sphinx_ext, _ = ext
    assert sphinx_ext.number_label((8,)) == "Chapter 8"
    assert sphinx_ext.number_label((15,), "book/appendix_probing") == "Appendix 15"
    assert sphinx_ext.number_label((1, 2)) == "§1.2"
    assert sphinx_ext.number_label((12, 3, 4)) == "§12.3.4"
    assert sphinx_ext.number_label(None) is None  # unnumbered page: the title stays
    assert sphinx_ext.number_label(()) is None


def test_author_year_labels(ext):
    _, bib = ext
    from pybtex.database import Entry, Person

    def entry(*authors, year="2017"):
        return Entry("article", fields={"year": year}, persons={"author": list(authors)})

    kull = entry(Person("Kull, Meelis"), Person("Silva Filho, Telmo M."), Person("Flach, Peter"))
    assert bib.authors_text(entry(Person("Platt, John C."))) == "Platt"
    assert bib.authors_text(entry(Person("Zadrozny, B."), Person("Elkan, C."))) == (
        "Zadrozny and Elkan"
    )
    assert bib.authors_text(kull) == "Kull et al."
    assert bib.authors_text(entry(Person('Br{\\"o}cker, Jochen'))) == "Bröcker"
    assert bib.author_year_label("Kull et al.", "2017") == "Kull et al., 2017"
    assert bib.author_year_label("Anon", None) == "Anon, n.d."
    assert bib.disambiguate(["A, 2017", "B, 2018", "A, 2017"]) == [
        "A, 2017a",
        "B, 2018",
        "A, 2017b",
    ]
    assert bib.label_year("Kull et al., 2017b") == "2017b"
    assert bib.label_year("Platt, 1999") == "1999"
    assert bib.label_year("no year here") is None


# ---------------------------------------------------------------------------
# the built pages
# ---------------------------------------------------------------------------
@cache
def _soup(docname):
    bs4 = pytest.importorskip("bs4")
    path = HTML / f"{docname}.html"
    return bs4.BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _article(docname):
    soup = _soup(docname)
    return soup.find("article") or soup.find("main") or soup


def _text(node):
    return re.sub(r"\s+", " ", node.get_text(" ")).replace("\N{NO-BREAK SPACE}", " ")


BLOCKS = ["p", "li", "dt", "dd", "td", "th", "figcaption", "caption", "h1", "h2", "h3", "h4"]


def _blocks(docname):
    """The text of each paragraph, list item, cell, caption and heading, one by one.

    (One string for the whole page would join a heading, or a line ending a sentence before a
    list, to the next block: "The plan of the chapter" + "§2.1: the method".)
    """
    for block in _article(docname).find_all(BLOCKS):
        yield _text(block)


def _pages():
    return toc_pages() if (HTML / "index.html").is_file() else []


@cache
def _numbered_title(docname, anchor):
    """(number, title) of the section ``anchor`` of a page ("" for the top), or None."""
    path = HTML / f"{docname}.html"
    if not path.is_file():
        return None
    article = _article(docname)
    if anchor:
        target = article.find(id=anchor)
        section = target if target is not None and target.name == "section" else None
        if section is None and target is not None:
            section = (
                target.find_parent("section")
                if target.find(re.compile("^h[1-6]$")) is None
                else target
            )
    else:
        section = article.find("section")
    if section is None:
        return None
    heading = section.find(re.compile("^h[1-6]$"))
    if heading is None:
        return None
    number = heading.find(class_="section-number")
    if number is None:
        return None
    title = _text(heading).replace(_text(number), "", 1)
    return _text(number).strip(" ."), title.replace("#", "").strip()


@built_book
@needs_build
@pytest.mark.parametrize("docname", _pages())
def test_no_bare_title_section_references(docname):
    """A {ref}/{doc} link to a numbered section prints "§1.2" or "Chapter 8", not the title."""
    bare = []
    for link in _article(docname).select("a.reference.internal"):
        inner = link.find("span", class_=["std-ref", "doc"])
        explicit = "calibbook-explicit-title" in link.get("class", [])
        if inner is None or explicit or not link.get("href"):
            continue
        url, anchor = urldefrag(urljoin(f"{docname}.html", link["href"]))
        target = _numbered_title(url.removesuffix(".html"), anchor)
        if target is None:
            continue  # unnumbered page (guide, notation, API, back matter): the title stays
        text = _text(link).strip()
        if not NUMBER_TEXT.match(text) and text == target[1]:
            bare.append(f"{text!r} -> {link['href']} ({target[0]})")
    assert not bare, f"{docname}: {len(bare)} bare-title section references:\n" + "\n".join(bare)


@built_book
@needs_build
@pytest.mark.parametrize("docname", _pages())
def test_no_doubled_labels(docname):
    """No "Lemma Lemma 7.1", "Table Table 3", "Section §1.2", "chapter Chapter 8"."""
    found = []
    for text in _blocks(docname):
        for pattern in (DOUBLED, SECTION_WORD):
            for match in pattern.finditer(text):
                start = max(match.start() - 60, 0)
                found.append(text[start : match.end() + 40])
    found = list(dict.fromkeys(found))  # a nested block repeats its parent's text
    assert not found, f"{docname}: doubled labels:\n" + "\n".join(found)


def _bibliography_entries():
    entries = {}
    for citation in _article(BIBLIOGRAPHY).select("div.citation"):
        label = _text(citation.find(class_="label")).strip().strip("[] ")
        entries[citation["id"]] = (label, citation)
    return entries


def _fold(text):
    import unicodedata

    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().casefold()


@built_book
@needs_build
def test_bibliography_labels_are_author_year():
    entries = _bibliography_entries()
    assert entries, "no entries on the bibliography page"
    labels = [label for label, _ in entries.values()]
    wrong = [label for label in labels if not LABEL_YEAR.match(label)]
    assert not wrong, f"labels that are not author-year: {wrong}"
    keys = [
        (_fold(LABEL_YEAR.match(label)["authors"]), LABEL_YEAR.match(label)["year"])
        for label in labels
    ]
    assert keys == sorted(keys), "the bibliography is not sorted by author and year"


@built_book
@needs_build
def test_citations_print_their_entry_year():
    """Every citation's year ("2017a") is the year of its entry's label."""
    entries = _bibliography_entries()
    wrong = []
    for docname in _pages():
        for citation in _article(docname).select("span.bibtex-citation a.reference.internal"):
            url, anchor = urldefrag(urljoin(f"{docname}.html", citation["href"]))
            if url.removesuffix(".html") != BIBLIOGRAPHY or anchor not in entries:
                continue
            label = entries[anchor][0]
            text = citation.get_text().strip()
            year = re.search(r"(\d{4}[a-z]?|n\.d\.[a-z]?)$", text)
            if year is None or LABEL_YEAR.match(label)["year"] != year.group(1):
                wrong.append(f"{docname}: {text!r} cites [{label}]")
    assert not wrong, "citations whose year differs from their entry's label:\n" + "\n".join(wrong)


@built_book
@needs_build
def test_doi_and_arxiv_entries_link_out():
    pybtex_database = pytest.importorskip("pybtex.database")
    bib = pybtex_database.parse_file(str(BIB))
    hrefs = {
        unquote(a["href"])
        for _, citation in _bibliography_entries().values()
        for a in citation.select("a.reference.external")
    }
    missing = []
    for key, entry in bib.entries.items():
        fields = {name.lower(): value for name, value in entry.fields.items()}
        if "doi" in fields:
            url = f"https://doi.org/{fields['doi']}"
            if url not in hrefs:
                missing.append(f"{key}: {url}")
        if "eprint" in fields:
            assert re.fullmatch(r"\d{4}\.\d{4,5}(v\d+)?", fields["eprint"]), key
            url = f"https://arxiv.org/abs/{fields['eprint']}"
            if url not in hrefs:
                missing.append(f"{key}: {url}")
    assert not missing, "entries whose DOI or arXiv id does not link out:\n" + "\n".join(missing)
    assert all(
        re.fullmatch(r"https://(doi\.org/10\.\d{4,9}/|arxiv\.org/abs/)\S+", h)
        for h in hrefs
        if "doi.org" in h or "arxiv.org" in h
    )
