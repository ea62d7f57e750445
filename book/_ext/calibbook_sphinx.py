"""Sphinx glue for the calibbook book, loaded through ``sphinx.local_extensions`` in _config.yml."""

from calibbook_bibliography import setup as _setup_bibliography
from docutils import nodes
from sphinx import addnodes
from sphinx.ext.autosummary import autosummary_toc
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import docname_join
from sphinx.util.nodes import clean_astext, make_refnode

TABLE_PREFIX = "tbl-"


class DropAutosummaryToctrees(SphinxTransform):
    """Remove the hidden toctrees that autosummary adds to book/api/index.md.

    Its tables write one page per public name (book/api/generated, gitignored) and _toc.yml
    lists those pages with a glob, so these toctrees would only duplicate them, and
    sphinx-external-toc warns about every toctree it did not make itself. Runs before that
    check (its InsertToctrees transform has priority 100).
    """

    default_priority = 90

    def apply(self, **kwargs):
        for node in list(self.document.findall(autosummary_toc)):
            node.parent.remove(node)


class table_figure(nodes.figure):
    """A captioned notebook output that is a table: numbered "Table N", apart from the figures."""


def _caption_text(node):
    return next((child.astext() for child in node.children if isinstance(child, nodes.caption)), "")


def _visit_table_figure(self, node):
    self.visit_figure(node)


def _depart_table_figure(self, node):
    self.depart_figure(node)


class NumberOutputTables(SphinxTransform):
    """Number a captioned cell output as a table when its name starts with ``tbl-``.

    myst-nb wraps a cell's output in a figure node when the cell's metadata has
    ``mystnb: {figure: {name: ..., caption: ...}}``, whatever the output is. A rendered DataFrame
    is a table, so it is numbered with the tables ("Table 3", ``{numref}`tbl-...```).
    """

    default_priority = 500

    def apply(self, **kwargs):
        for figure in list(self.document.findall(nodes.figure)):
            if type(figure) is not nodes.figure or not any(
                i.startswith(TABLE_PREFIX) for i in figure["ids"]
            ):
                continue
            table = table_figure(figure.rawsource, *figure.children, **figure.attributes)
            figure.replace_self(table)
            for target in table["ids"]:  # references and numbering look the node up by id
                self.document.ids[target] = table


def number_label(number, docname=""):
    """The text of a reference to a numbered section: "Chapter 8", "Appendix 15" or "§1.2".

    ``number`` is the section's number as Sphinx keeps it in ``env.toc_secnumbers``, a tuple
    such as ``(8,)`` for a chapter's top heading or ``(1, 2)`` for section 1.2. None or an
    empty tuple (an unnumbered page) gives None: the reference keeps its title. The pages of
    the numbered part "Appendices" (``book/appendix_*``) are appendices, not chapters.
    """
    if not number:
        return None
    if len(number) == 1:
        kind = "Appendix" if docname.startswith("book/appendix_") else "Chapter"
        return f"{kind} {number[0]}"
    return "§" + ".".join(str(n) for n in number)


SECTIONS_KEY = "calibbook_section_anchors"


def _collect_section_anchors(app, doctree):
    # For every id a section carries: the id its table-of-contents entry is keyed by
    # (env.toc_secnumbers uses "#" + ids[0], and "" for the page's top heading).
    anchors = {}
    for index, section in enumerate(doctree.findall(nodes.section)):
        if not section["ids"]:
            continue
        anchor = "" if index == 0 else "#" + section["ids"][0]
        for target in section["ids"]:
            anchors[target] = anchor
    if not hasattr(app.env, SECTIONS_KEY):
        setattr(app.env, SECTIONS_KEY, {})
    getattr(app.env, SECTIONS_KEY)[app.env.docname] = anchors


def _purge_section_anchors(app, env, docname):
    getattr(env, SECTIONS_KEY, {}).pop(docname, None)


def _merge_section_anchors(app, env, docnames, other):
    if not hasattr(env, SECTIONS_KEY):
        setattr(env, SECTIONS_KEY, {})
    theirs = getattr(other, SECTIONS_KEY, {})
    for docname in docnames:
        if docname in theirs:
            getattr(env, SECTIONS_KEY)[docname] = theirs[docname]


class NumberedSectionReferences(SphinxPostTransform):
    """``{ref}`label``` to a numbered section prints its number, not its title.

    A reference without an explicit title to a section of a numbered chapter reads "§1.2"
    (or "Chapter 8" for a chapter's top heading); ``{doc}`page``` to a numbered chapter reads
    "Chapter 8". The title becomes the link's hover text. References to unnumbered pages (the
    guide, notation, API pages, back matter) keep the title Sphinx gives them; references with
    an explicit title keep it, and their link carries the class ``calibbook-explicit-title``.
    Runs before Sphinx resolves the references (ReferencesResolver, priority 10).
    """

    default_priority = 5

    def run(self, **kwargs):
        env = self.env
        std = env.get_domain("std")
        anchors = getattr(env, SECTIONS_KEY, {})
        for node in list(self.document.findall(addnodes.pending_xref)):
            if node.get("refdomain") != "std" or node.get("reftype") not in ("ref", "doc"):
                continue
            if node.get("refexplicit"):
                self._mark_explicit(std, node)
                continue
            if node.get("reftype") == "ref":
                docname, labelid, title = std.labels.get(node["reftarget"], ("", "", ""))
                anchor = anchors.get(docname, {}).get(labelid)
                if anchor is None:
                    continue
                text = number_label(env.toc_secnumbers.get(docname, {}).get(anchor), docname)
                css = ["std", "std-ref"]
            else:
                docname = docname_join(node.get("refdoc", self.env.docname), node["reftarget"])
                if docname not in env.titles:
                    continue
                labelid, title = None, clean_astext(env.titles[docname])
                text = number_label(env.toc_secnumbers.get(docname, {}).get(""), docname)
                css = ["doc"]
            if text is None:
                continue
            inner = nodes.inline(text, text, classes=[*css, "calibbook-numbered-ref"])
            ref = make_refnode(self.app.builder, self.env.docname, docname, labelid, inner, title)
            node.replace_self(ref)

    def _mark_explicit(self, std, node):
        # Resolved as Sphinx would, with a class that says its text is the author's own
        # (tests/book/test_references.py tells these from a bare title printed by Sphinx).
        ref = std.resolve_xref(
            self.env,
            self.env.docname,
            self.app.builder,
            node["reftype"],
            node["reftarget"],
            node,
            node[0].deepcopy(),
        )
        if ref is None:
            return  # left to ReferencesResolver, which warns as usual
        ref["classes"].append("calibbook-explicit-title")
        node.replace_self(ref)


def _unique_scripts(app, pagename, templatename, context, doctree):
    # jupyter-book 1 registers the inline scripts of sphinx-thebe and sphinx-togglebutton
    # twice; the second `const THEBE_JS_URL` is a JavaScript error on every page.
    # (The two copies differ only in filename None against "".)
    scripts = context.get("script_files") or []
    seen, unique = set(), []
    for js in scripts:
        attributes = getattr(js, "attributes", {})
        key = (
            getattr(js, "filename", js) or "",
            tuple(sorted((k, str(v)) for k, v in attributes.items())),
        )
        if key not in seen:
            seen.add(key)
            unique.append(js)
    scripts[:] = unique  # in place: the builder shares this list


def _resolve_lazy_alias(app, env, node, contnode):
    # The names calibbook exports lazily (calibbook._LAZY) are documented once, at the
    # top-level path (calibbook.ENIR). A docstring may name the defining module instead
    # (calibbook.calibrators.enir.ENIR): send such a reference to the same page.
    target = node.get("reftarget", "")
    parts = target.split(".")
    if node.get("refdomain") != "py" or len(parts) != 3 or parts[0] != "calibbook":
        return None
    import calibbook

    if calibbook._LAZY.get(parts[2]) != f"calibbook.{parts[1]}":
        return None
    return env.get_domain("py").resolve_xref(
        env, node["refdoc"], app.builder, node["reftype"], f"calibbook.{parts[2]}", node, contnode
    )


def _claim_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{claim}`key```: marks a sentence whose words a code cell checks with booktools.claim.

    The marker is for the tests (tests/book/test_claims.py); the reader sees nothing.
    """
    return [], []


def _nitpick_pairs_as_tuples(app, config):
    # _config.yml can only give lists; Sphinx looks the (type, target) pairs up as tuples.
    config.nitpick_ignore = [tuple(pair) for pair in config.nitpick_ignore]


def setup(app):
    app.add_role("claim", _claim_role)
    app.add_transform(DropAutosummaryToctrees)
    app.add_transform(NumberOutputTables)
    app.add_post_transform(NumberedSectionReferences)
    app.connect("doctree-read", _collect_section_anchors)
    app.connect("env-purge-doc", _purge_section_anchors)
    app.connect("env-merge-info", _merge_section_anchors)
    _setup_bibliography(app)
    app.add_enumerable_node(
        table_figure, "table", _caption_text, html=(_visit_table_figure, _depart_table_figure)
    )
    app.connect("config-inited", _nitpick_pairs_as_tuples)
    app.connect("missing-reference", _resolve_lazy_alias)
    app.connect("html-page-context", _unique_scripts, priority=900)  # after the others add theirs
    return {"parallel_read_safe": True, "parallel_write_safe": True}
