"""Every comparative or universal sentence of the chapters is checked, or says why it need not be.

A sentence with a word such as "best", "all", "ahead" or "agrees" (tests/_support/claims.py)
either carries a ``{claim}`key``` marker, whose key a code cell of the same notebook checks
with ``booktools.claim`` beside the evidence (nbval runs that check on every CI run), or is
listed in ``tests/book/unclaimed/<notebook>.txt`` with the reason it is not a claim about the
book's results. An entry is ``reason: start of the sentence``; one that matches no sentence
any more fails too, so the list cannot outlive the prose it excuses.
"""

import json
from collections import Counter
from pathlib import Path

import pytest

from tests._support.claims import MARKER, claim_checks, claim_sentences

BOOK = Path(__file__).resolve().parents[2] / "book"
UNCLAIMED = Path(__file__).resolve().parent / "unclaimed"
NOTEBOOKS = sorted(BOOK.glob("*.ipynb"))
MIN_PREFIX = 25

# Why a sentence with a comparative or universal word is not a claim about the book's results.
REASONS = {
    "method": "says what a method, the protocol or the code does, not how it came out",
    "definition": "defines a term, a measure or notation",
    "mathematics": "a statement derived or proved on the page (the proof is its check)",
    "paper": "a paper's own statement, attributed to it, with no transcribed table to check",
    "literature": "a cited fact from the literature, not a result of this book",
    "navigation": "says what the page, a section or a setting contains",
    "advice": "a recommendation resting on claims checked elsewhere on the page",
    "hypothetical": "a question, a null hypothesis or a conditional, not an outcome",
    "glued": "its comparison is wholly in glued numbers; no word in it can turn false",
    "elsewhere": "restates a result of another chapter, checked there",
}


def _entries(path):
    entries = []
    if not path.exists():
        return entries
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        reason, sep, prefix = line.partition(": ")
        entries.append((number, reason.strip(), " ".join(prefix.split()) if sep else ""))
    return entries


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_comparative_sentence_has_a_claim_check_or_a_reason(path):
    nb = json.loads(path.read_text())
    entries = _entries(UNCLAIMED / f"{path.stem}.txt")
    problems = [
        f"unclaimed/{path.stem}.txt:{n}: unknown reason {r!r} (known: {', '.join(REASONS)})"
        for n, r, _ in entries
        if r not in REASONS
    ]
    sentences = claim_sentences(nb)
    for n, _, prefix in entries:
        if not any(s.startswith(prefix) for _, s in sentences) or (
            len(prefix) < MIN_PREFIX and not any(s == prefix for _, s in sentences)
        ):
            problems.append(f"unclaimed/{path.stem}.txt:{n}: matches no sentence: {prefix!r}")
    for cell, sentence in sentences:
        if MARKER.search(sentence) or any(sentence.startswith(p) for _, _, p in entries if p):
            continue
        problems.append(f"cell {cell}: no claim check and no reason: {sentence!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_claim_markers_and_checks_match(path):
    nb = json.loads(path.read_text())
    checks = Counter(claim_checks(nb))
    markers = {
        key
        for cell in nb["cells"]
        if cell["cell_type"] == "markdown"
        for key in MARKER.findall("".join(cell["source"]))
    }
    assert not [k for k, c in checks.items() if c > 1], "a claim key checked twice"
    assert not markers - set(checks), f"markers without a check: {sorted(markers - set(checks))}"
    assert not set(checks) - markers, f"checks no sentence marks: {sorted(set(checks) - markers)}"


def test_every_chapter_checks_its_claims():
    counts = {p.stem: len(claim_checks(json.loads(p.read_text()))) for p in NOTEBOOKS}
    print("claim checks per chapter:", counts)
    assert all(counts.values()), f"chapters without a claim check: {counts}"


def test_the_extractor_on_a_hand_made_cell():
    # prose outside math, code, headings and folds is split into sentences; words inside
    # inline code, role targets and math do not count; escaped dollars are money, not math
    source = "\n".join(
        [
            "## The best heading",
            "Platt ranks best{claim}`k`. `calibbook` never splits ties.",
            "A {ref}`sec-best-part` link only. Costs \\$5 against \\$7, the most.",
            "Inline $\\max_{all}",
            "x$ math only. Also `best=None` code only.",
            "",
            ":::{dropdown} Proof",
            "Every step holds.",
            ":::",
            "```python",
            "best = 1",
            "```",
        ]
    )
    nb = {"cells": [{"cell_type": "markdown", "source": source}]}
    assert [s for _, s in claim_sentences(nb)] == [
        "Platt ranks best{claim}`k`.",
        "`calibbook` never splits ties.",
        "Costs \\$5 against \\$7, the most.",
    ]
    code = {"cell_type": "code", "source": 'booktools.claim(\n    "k", True, "x")'}
    assert claim_checks({"cells": [code]}) == ["k"]
