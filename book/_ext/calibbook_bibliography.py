"""Author-year labels for the bibliography page, matching the author-year citations.

sphinxcontrib-bibtex cites author-year in the text ("Naeini et al. [2014]") but its "plain"
style numbers the list ("[34]"). This module registers

- ``calibbook`` (pybtex formatting style): pybtex's plain entries with the labels and the
  order below; selected by ``bibtex_default_style: calibbook`` in _config.yml;
- ``calibbook`` (pybtex label style): "Platt, 1999", "Niculescu-Mizil and Caruana, 2005",
  "Naeini et al., 2014", with "a", "b" after the year where two entries would share a label;
- ``calibbook`` (pybtex sorting style): by those labels, alphabetically (accents folded);
- ``calibbook_author_year`` (sphinxcontrib-bibtex referencing style): the author-year citations
  of ``author_year`` whose year carries the same "a"/"b" as the label, so that a citation and its
  entry read alike ("Kull et al. [2017a]"); selected by ``bibtex_reference_style``.

The entries keep pybtex's DOI and arXiv links (``doi`` and ``eprint`` fields).
"""

import re
import string
import unicodedata
from dataclasses import dataclass
from types import SimpleNamespace

import pybtex.plugin
from pybtex.richtext import Text
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.sorting import BaseSortingStyle
from pybtex.style.template import field, first_of, join, node, optional
from sphinxcontrib.bibtex.plugin import register_plugin
from sphinxcontrib.bibtex.style.referencing import PersonStyle
from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle
from sphinxcontrib.bibtex.style.referencing.basic_author_year import (
    BasicAuthorYearParentheticalReferenceStyle,
    BasicAuthorYearTextualReferenceStyle,
)
from sphinxcontrib.bibtex.style.template import join2, post_text, pre_text, reference

STYLE_NAME = "calibbook"
REFERENCE_STYLE_NAME = "calibbook_author_year"

_PERSONS = PersonStyle()
_AUTHORS = _PERSONS.author_or_editor_or_title(full=False)
_YEAR_AT_END = re.compile(r"(\d{4}[a-z]?|n\.d\.[a-z]?)$")


def authors_text(entry):
    """The author part of an entry's citation ("Naeini et al."), as plain text."""
    data = {"entry": entry, "style": SimpleNamespace(person=_PERSONS)}
    return _AUTHORS.format_data(data).render_as("text")


def author_year_label(authors, year, suffix=""):
    """The label of one entry: ``"Naeini et al., 2014"``, with ``suffix`` after the year."""
    return f"{authors}, {year or 'n.d.'}{suffix}"


def label_year(label):
    """The year part of a label, suffix included: ``"Kull et al., 2017a"`` gives ``"2017a"``."""
    match = _YEAR_AT_END.search(label)
    return match.group(1) if match else None


def disambiguate(labels):
    """Append "a", "b", ... to labels that occur more than once, in the given order."""
    counts = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    seen = {}
    result = []
    for label in labels:
        if counts[label] == 1:
            result.append(label)
            continue
        index = seen.get(label, 0)
        seen[label] = index + 1
        result.append(label + string.ascii_lowercase[index])
    return result


def _fold(text):
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().casefold()


class AuthorYearLabelStyle(BaseLabelStyle):
    def format_labels(self, sorted_entries):
        entries = list(sorted_entries)
        bases = [author_year_label(authors_text(e), e.fields.get("year")) for e in entries]
        yield from disambiguate(bases)


class AuthorYearSortingStyle(BaseSortingStyle):
    def sorting_key(self, entry):
        return (
            _fold(authors_text(entry)),
            entry.fields.get("year", ""),
            _fold(entry.fields.get("title", "")),
        )


class CalibbookStyle(PlainStyle):
    """pybtex's plain entries, labelled and sorted author-year."""

    default_label_style = STYLE_NAME
    default_sorting_style = STYLE_NAME


@node
def labelled_year(children, data):
    """The year as the entry's label prints it (with its "a"/"b"), else the year field."""
    assert not children
    formatted = data.get("formatted_entry")
    year = label_year(formatted.label) if formatted is not None else None
    if year is None:
        return first_of[optional[field("year")], "n.d."].format_data(data)
    return Text(year)


@dataclass
class _Parenthetical(BasicAuthorYearParentheticalReferenceStyle):
    def inner(self, role_name):
        return join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[
            pre_text,
            reference[
                join(sep=self.author_year_sep)[
                    self.person.author_or_editor_or_title(full="s" in role_name),
                    labelled_year,
                ]
            ],
            post_text,
        ]


@dataclass
class _Textual(BasicAuthorYearTextualReferenceStyle):
    def inner(self, role_name):
        return join(sep=self.text_reference_sep)[
            self.person.author_or_editor_or_title(full="s" in role_name),
            join[
                self.bracket.left,
                join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[
                    pre_text,
                    reference[labelled_year],
                    post_text,
                ],
                self.bracket.right,
            ],
        ]


@dataclass
class CalibbookReferenceStyle(AuthorYearReferenceStyle):
    """sphinxcontrib-bibtex's author_year, with the labels' year suffixes."""

    def __post_init__(self):
        super().__post_init__()
        basic = {
            BasicAuthorYearParentheticalReferenceStyle: _Parenthetical,
            BasicAuthorYearTextualReferenceStyle: _Textual,
        }
        styles = []
        for style in self.styles:
            replacement = basic.get(type(style))
            if replacement is not None:
                style = replacement(**vars(style))
            styles.append(style)
        self.styles[:] = styles
        # the group looks a role's style up in role_style, filled from the old styles
        self.role_style.update(
            (role_name, style) for style in self.styles for role_name in style.role_names()
        )


def setup(app):
    pybtex.plugin.register_plugin("pybtex.style.labels", STYLE_NAME, AuthorYearLabelStyle)
    pybtex.plugin.register_plugin("pybtex.style.sorting", STYLE_NAME, AuthorYearSortingStyle)
    pybtex.plugin.register_plugin("pybtex.style.formatting", STYLE_NAME, CalibbookStyle)
    register_plugin(
        "sphinxcontrib.bibtex.style.referencing", REFERENCE_STYLE_NAME, CalibbookReferenceStyle
    )
