"""Finding the sentences of the book's prose that compare or generalise, and their claim checks.

A chapter states a qualitative claim ("X ranks best", "all six intervals are narrower") with a
``{claim}`key``` marker in the sentence, and checks it in a code cell beside the evidence with
``booktools.claim("key", condition, because=...)``. This module reads both from a notebook.
"""

import re

# The words that make a sentence a comparison or a universal statement about results.
CLAIM_WORDS = re.compile(
    r"\b(best|worst|all|none|most|ahead|behind|agrees?|agreement|narrower|wider|smaller|larger|"
    r"significant(?:ly)?|better|worse|beats?|outperforms?|fastest|slowest|every|always|never)\b",
    re.IGNORECASE,
)
MARKER = re.compile(r"\{claim\}`([^`]+)`")
CHECK = re.compile(r"""\bclaim\(\s*(?:f?["'])([^"']+)["']""")

# Blocks whose prose is mathematics or a fold (proofs, checks, code), not a statement of results.
_FOLDS = ("prf:", "dropdown", "code", "math")
_FENCE = re.compile(r"^(?P<fence>`{3,}|:{3,})(?P<info>\S*)")
# display math, inline math (which may run over a line break, not over a blank line), environments
_MATH = re.compile(
    r"\$\$.*?\$\$|\$(?:[^$\n]|\n(?![ \t]*\n))+?\$|\\begin\{(\w+\*?)\}.*?\\end\{\1\}", re.DOTALL
)
_ESCAPED_DOLLAR = "\x00"  # a literal \$ (an amount of money) is not math
_SENTENCE_END = re.compile(r"(?<=[.!?])[)\]*_]*\s+(?=[A-Z(*_\[{`])")
_INLINE_CODE = re.compile(r"`[^`]*`")  # code and role targets: not prose
_ABBREVIATIONS = re.compile(r"\b(e\.g|i\.e|cf|vs|et al|Fig|Eq|Sec|Ch|resp|approx)\.$")


def _prose(source):
    """The markdown outside code, math and folds, as a list of paragraphs."""
    kept, stack = [], []  # stack: [fence, skipped, reading options]
    for line in source.splitlines():
        stripped = line.strip()
        match = _FENCE.match(stripped)
        if match and stack and match["fence"] == stack[-1][0] and not match["info"]:
            stack.pop()
            continue
        if match:
            info = match["info"]
            directive = info.startswith("{")
            name = info.strip("{}")
            skipped = not directive or name.startswith(_FOLDS)
            stack.append([match["fence"], skipped, directive])
            continue
        if stack and stack[-1][2]:
            if stripped.startswith(":"):
                if stripped.startswith(":class:") and "dropdown" in stripped:
                    stack[-1][1] = True  # an admonition folded by its class
                continue
            stack[-1][2] = False
        if any(entry[1] for entry in stack) or re.match(r"#+ |\(.+\)=$", stripped):
            continue  # folded, or a heading or a label
        kept.append(line)
    text = "\n".join(kept).replace("\\$", _ESCAPED_DOLLAR)
    text = _MATH.sub(" ", text).replace(_ESCAPED_DOLLAR, "\\$")
    return [p for p in re.split(r"\n\s*\n", text) if p.strip()]


def _sentences(paragraph):
    text = " ".join(paragraph.split())
    pieces, current = [], ""
    for piece in _SENTENCE_END.split(text):
        current = f"{current} {piece}".strip()
        if not _ABBREVIATIONS.search(current):
            pieces.append(current)
            current = ""
    if current:
        pieces.append(current)
    return pieces


def claim_sentences(nb):
    """Every prose sentence with a comparison or universal word: (cell index, sentence)."""
    found = []
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        for paragraph in _prose("".join(cell["source"])):
            for sentence in _sentences(paragraph):
                if CLAIM_WORDS.search(_INLINE_CODE.sub("", MARKER.sub("", sentence))):
                    found.append((index, sentence))
    return found


def claim_checks(nb):
    """The keys that the notebook's code cells check with ``booktools.claim``."""
    keys = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            keys += CHECK.findall("".join(cell["source"]))
    return keys
