"""Print the single-page HTML book to one PDF (``make pdf``).

``jupyter-book build . --builder singlehtml`` writes the whole book as one page
(_build/singlehtml/book/intro.html, the root document, which index.html redirects to). This
script opens that page in the headless Chromium that the browser test uses
(tests/_support/book_layout.py: the same executable and flags), served from 127.0.0.1 so that
MathJax loads its fonts, then before printing:

* waits until MathJax has typeset every formula;
* opens every fold: the "Show code cell output" folds (their outputs print, without the bar),
  the dropdowns (proofs, checks, solutions: their titles print above their bodies) and any
  other ``details`` or sphinx-togglebutton toggle. Code inputs hidden in the HTML
  (``hide-input``) stay out of the PDF, as they stay out of sight in the HTML;
* adds print CSS: no navigation bars, sidebars, buttons or footer; a page break before each
  chapter; no break inside a figure, a table or an equation;

and prints A4 pages with their numbers in the footer and a bookmark outline from the headings.

    python scripts/make_pdf.py [--html _build/singlehtml] [--out _build/html/calibbook.pdf]
                               [--skip-without-browser]

Needs playwright (the book's test dependency) and Chromium (``CALIBBOOK_CHROMIUM``, default
/usr/bin/chromium). With ``--skip-without-browser`` (make book, make pdf, make test) a missing
Chromium, or a missing playwright outside CI (``CI=true``), skips the PDF with a message, as
the browser test skips; the old PDF is removed first in every case, so none is left stale.

The PDF goes to _build/html so that the HTML book links to it
(``../calibbook.pdf`` from book/intro.html); tests/book/test_pdf.py checks it.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import re
import shutil
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests._support.book_layout import CHROMIUM, CHROMIUM_ARGS, _QuietHandler  # noqa: E402

# Opens the folds, as described above; returns what it did (for the log line). Links to the
# page itself ("book/intro.html#x", as singlehtml writes them) become "#x": links inside the PDF.
OPEN_FOLDS_JS = """(rootdoc) => {
  const done = {hidden_inputs: 0, opened: 0, toggles: 0};
  for (const a of document.querySelectorAll('a[href]')) {
    const href = a.getAttribute('href');
    if (href.startsWith(rootdoc + '#')) a.setAttribute('href', href.slice(rootdoc.length));
  }
  // A folded code input: the details holds only the cell's input. It stays hidden.
  for (const d of document.querySelectorAll('details.hide')) {
    if (d.querySelector(':scope > .cell_input') && !d.querySelector(':scope > .cell_output')) {
      d.remove();
      done.hidden_inputs += 1;
    }
  }
  // Every other fold opens. A cell fold loses its "Show code cell ..." bar; a dropdown keeps
  // its title, without the chevron.
  for (const d of document.querySelectorAll('details')) {
    d.open = true;
    done.opened += 1;
    const summary = d.querySelector(':scope > summary');
    if (!summary) continue;
    if (d.classList.contains('hide')) summary.remove();
    else summary.querySelectorAll('.sd-summary-state-marker, svg').forEach(e => e.remove());
  }
  // sphinx-togglebutton: toggled admonitions and the buttons that open them.
  for (const t of document.querySelectorAll('.toggle-hidden')) {
    t.classList.remove('toggle-hidden');
    done.toggles += 1;
  }
  document.querySelectorAll('button.toggle-button').forEach(b => b.remove());
  return done;
}"""

PRINT_CSS = """
@page { size: A4; margin: 16mm 14mm 18mm 14mm; }
.bd-header, .bd-header-article, .bd-sidebar-primary, .bd-sidebar-secondary, .bd-footer,
.bd-footer-article, .bd-footer-content, .prev-next-area, .header-article, .headerlink,
.skip-link, #pst-back-to-top, .search-button-field, button, .toggle-button,
.sidebar-toggle { display: none !important; }
.bd-container, .bd-container__inner, .bd-page-width, .bd-main, .bd-content, .bd-article-container,
.bd-article { max-width: none !important; width: auto !important; margin: 0 !important;
  padding: 0 !important; display: block !important; }
html, body { background: white !important; }
/* each chapter (a document that the root document's toctrees include) starts a page */
.bd-article > section > .toctree-wrapper > section { break-before: page; }
figure, .cell_output img, table, .math.notranslate.nohighlight, mjx-container[display="true"],
.sd-card > summary, .admonition-title, h1, h2, h3, h4 { break-inside: avoid; }
h1, h2, h3, h4, .caption, figcaption { break-after: avoid; }
details, details > * { display: block !important; }
pre { white-space: pre-wrap !important; overflow: visible !important; }
.calibbook-lightbox { display: none !important; }
/* no scroll shadows (calibbook.css) on paper */
.cell_output .output, .pst-scrollable-table-container, mjx-container {
  background: none !important;
}
"""

FOOTER = (
    '<div style="width:100%;font-size:8px;color:#555;text-align:center;">'
    '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'
)


class _RootDocHandler(_QuietHandler):
    """Serves the single page at /book.html: singlehtml writes it as the root document
    (book/intro.html) but links its assets as if it sat at the top of the folder."""

    rootdoc = "book/intro.html"

    def translate_path(self, path):
        if path.split("?")[0] == "/book.html":
            path = "/" + self.rootdoc
        return super().translate_path(path)


def root_document(html: Path) -> str:
    """The page that singlehtml's index.html redirects to (the book's root document)."""
    index = html / "index.html"
    if not index.is_file():
        raise SystemExit(f"error: no {index}: run jupyter-book build . --builder singlehtml")
    match = re.search(r"url=([^\"']+)", index.read_text(encoding="utf-8"))
    return match.group(1) if match else "index.html"


def make_pdf(html: Path, out: Path) -> dict:
    """Print the single page under ``html`` to ``out``; returns the opened folds and the time."""
    from playwright.sync_api import sync_playwright

    rootdoc = root_document(html)
    handler = functools.partial(
        type("Handler", (_RootDocHandler,), {"rootdoc": rootdoc}), directory=str(html)
    )
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    start = time.perf_counter()
    try:
        with sync_playwright() as pw:
            chromium = pw.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
            )
            page = chromium.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(600_000)
            page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/book.html", wait_until="load")
            stages = {"load": time.perf_counter() - start}
            # MathJax 3 typesets after load: wait for its startup promise, then for any
            # typesetting still queued.
            page.wait_for_function(
                "() => window.MathJax && MathJax.startup && MathJax.startup.promise"
            )
            page.evaluate("() => MathJax.startup.promise.then(() => MathJax.typesetPromise())")
            stages["mathjax"] = time.perf_counter() - start - sum(stages.values())
            done = page.evaluate(OPEN_FOLDS_JS, rootdoc)
            page.add_style_tag(content=PRINT_CSS)
            page.emulate_media(media="print")
            out.parent.mkdir(parents=True, exist_ok=True)
            page.pdf(
                path=str(out),
                format="A4",
                print_background=True,
                prefer_css_page_size=True,
                display_header_footer=True,
                header_template="<span></span>",
                footer_template=FOOTER,
                outline=True,
                tagged=True,  # Chromium builds the outline from the tagged structure
            )
            stages["print"] = time.perf_counter() - start - sum(stages.values())
            chromium.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    done["seconds"] = round(time.perf_counter() - start, 1)
    done["stages"] = ", ".join(f"{k} {v:.0f} s" for k, v in stages.items())
    return done


def missing_browser() -> str | None:
    """Why this machine cannot print (no Chromium, or no playwright outside CI), or None."""
    if not (shutil.which(CHROMIUM) or Path(CHROMIUM).is_file()):
        return f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        if os.environ.get("CI") != "true":
            return "the playwright package is missing (pip install -e '.[test]')"
    return None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "singlehtml")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "html" / "calibbook.pdf")
    parser.add_argument(
        "--skip-without-browser",
        action="store_true",
        help="without Chromium (or playwright, outside CI) skip with a message instead of failing",
    )
    args = parser.parse_args(argv)
    args.out.unlink(missing_ok=True)
    reason = missing_browser()
    if reason and args.skip_without_browser:
        print(f"== skipped the PDF: {reason}")
        return
    done = make_pdf(args.html, args.out)
    size = args.out.stat().st_size / 2**20
    print(
        f"{args.out}: {size:.1f} MiB in {done['seconds']} s ({done['stages']}; "
        f"{done['opened']} folds opened, {done['toggles']} toggles, "
        f"{done['hidden_inputs']} hidden code inputs left out)"
    )


if __name__ == "__main__":
    main()
