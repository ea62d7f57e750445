"""How a built chapter reads at 1280 px: the layout measures that tests/book/test_browser.py
enforces.

One JavaScript function measures a loaded page:

* ``screens``: the page height in 900-pixel screens;
* ``code_share``: the height of the visible code cells over the height of the article, both
  without the cells tagged ``reference-implementation`` (the implementations the chapters
  exist to show);
* ``wide_code``: code boxes with a line wider than the box, and ``wide_code_lines`` those lines;
* ``wide_tables``: tables and printed text outputs wider than the text column or cut off;
  (both with every folded block opened, as a reader may);
* ``unnumbered``: figures (images) and tables without a numbered caption;
* ``nbval_marks``: visible text that names an nbval marker;
* ``progress_bars``: outputs that show a progress bar.

``python -m tests._support.book_layout [--html DIR] [pages...]`` prints the measures of the built
chapters (default: _build/html; the book must be built and Chromium installed, as for the browser
test). The page list, server and browser settings are the browser test's.
"""

from __future__ import annotations

import http.server
import os
import re
import sys
from pathlib import Path

# The browser test's setting, shared with main(): the build, the browser, the window, the pages.
ROOT = Path(__file__).resolve().parents[2]
HTML = Path(os.environ.get("CALIBBOOK_HTML", ROOT / "_build" / "html"))
CHROMIUM = os.environ.get("CALIBBOOK_CHROMIUM", "/usr/bin/chromium")
# The flags this machine needs: no sandbox as root, and no background connections
# (the network is closed, and Chromium would otherwise retry them many times).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# A desktop window: display equations must fit the text column at this width.
VIEWPORT = {"width": 1280, "height": 900}


def toc_pages() -> list[str]:
    """Docnames listed in _toc.yml, in order; ``glob:`` entries expand against the build."""
    pages = []
    for line in (ROOT / "_toc.yml").read_text(encoding="utf-8").splitlines():
        match = re.match(r"\s*(?:root|- file|- glob):\s*(\S+)", line)
        if not match:
            continue
        entry = match.group(1)
        if "- glob" in line:
            pattern = entry + ".html"
            pages += sorted(
                p.relative_to(HTML).with_suffix("").as_posix() for p in HTML.glob(pattern)
            )
        else:
            pages.append(entry)
    return pages


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


# The limits the browser test enforces on every chapter.
MAX_CODE_SHARE = 0.15
# Chapters 2 and 5, the two longest, must read in this many screens with their proofs folded.
MAX_SCREENS = {"book/02_histogram_binning": 25, "book/05_near_isotonic_enir_bbq": 25}
SCREEN_HEIGHT = 900

LAYOUT_JS = """() => {
  const article = document.querySelector('article.bd-article') || document.querySelector('main');
  const column = article.getBoundingClientRect();
  const visible = (el) => el.getClientRects().length > 0 && el.getBoundingClientRect().height > 0
    && !el.closest('details:not([open])');
  const isReference = (el) => !!el.closest('.tag_reference-implementation');
  let code = 0, reference = 0;
  for (const el of article.querySelectorAll('div.cell_input')) {
    if (!visible(el)) continue;
    const h = el.getBoundingClientRect().height;
    if (isReference(el)) reference += h; else code += h;
  }
  const height = article.getBoundingClientRect().height;
  // widths are checked with every fold open: a reader may open any of them
  const closed = Array.from(article.querySelectorAll('details:not([open])'));
  closed.forEach((d) => { d.open = true; });
  // code boxes (cell inputs and code blocks in the prose) with lines wider than the box
  const wideCode = [];
  let wideLines = 0;
  for (const pre of article.querySelectorAll('div.cell_input pre, div.highlight pre')) {
    if (!visible(pre) || pre.closest('div.cell_output')) continue;
    if (pre.scrollWidth <= pre.clientWidth + 1) continue;
    const style = getComputedStyle(pre);
    const probe = document.createElement('span');  // inside the box: its own font
    probe.textContent = 'M'.repeat(100);
    pre.appendChild(probe);
    const charWidth = probe.getBoundingClientRect().width / 100;
    probe.remove();
    const room = pre.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const lines = pre.textContent.split('\\n').filter((l) => l.length * charWidth > room + 1);
    wideLines += lines.length;
    wideCode.push(lines[0] ? lines[0].trim().slice(0, 60) : pre.textContent.slice(0, 60));
  }
  // tables and printed outputs wider than the text column, or cut off by their box
  const wideTables = [];
  for (const el of article.querySelectorAll('table, div.cell_output pre')) {
    if (!visible(el)) continue;
    const rect = el.getBoundingClientRect();
    const width = el.tagName === 'PRE' ? el.scrollWidth : rect.width;
    const box = el.parentElement;
    const clipped = rect.right > column.right + 1 || (box && box.scrollWidth > box.clientWidth + 1)
      || (el.tagName === 'PRE' && el.scrollWidth > el.clientWidth + 1);
    if (width > column.width + 1 || clipped)
      wideTables.push(`${el.tagName.toLowerCase()} ${Math.round(width)}px: `
        + el.textContent.trim().slice(0, 50));
  }
  closed.forEach((d) => { d.open = false; });
  // every image and every table carries a numbered caption
  const numbered = (el) => {
    const holder = el.closest('figure, table');
    if (holder && holder.querySelector(
      ':scope > figcaption .caption-number, :scope > caption .caption-number'))
      return true;
    const fig = el.closest('figure');
    return !!(fig && fig.querySelector(':scope > figcaption .caption-number'));
  };
  const unnumbered = [];
  for (const el of article.querySelectorAll('img, table')) {
    if (el.closest('.bd-header, .bd-sidebar-primary, .bd-sidebar-secondary')) continue;
    if (el.tagName === 'TABLE' && el.closest('table') !== el
      && el.parentElement.closest('table')) continue;
    if (!numbered(el)) unnumbered.push(`${el.tagName.toLowerCase()}: `
      + (el.getAttribute('alt') || el.textContent || '').trim().slice(0, 50));
  }
  // progress bars (tqdm's text or widget) left in the outputs
  const bars = Array.from(article.querySelectorAll('div.cell_output'))
    .filter((el) => /\\d+%\\|.*\\||it\\/s\\]/.test(el.innerText)
      || el.querySelector('.widget-hprogress, progress'))
    .length;
  const text = article.innerText;
  const marks = (text.match(/NBVAL_[A-Z_]+/g) || []);
  return {
    screens: document.documentElement.scrollHeight / SCREEN_HEIGHT,
    code_share: code / Math.max(1, height - reference),
    wide_code: wideCode, wide_code_lines: wideLines,
    wide_tables: wideTables, unnumbered: unnumbered, nbval_marks: marks, progress_bars: bars,
  };
}""".replace("SCREEN_HEIGHT", str(SCREEN_HEIGHT))


def layout_problems(docname: str, m: dict) -> list[str]:
    """What the measures ``m`` of chapter ``docname`` break, in words."""
    problems = []
    if m["code_share"] > MAX_CODE_SHARE:
        problems.append(
            f"code takes {m['code_share']:.0%} of the page (at most {MAX_CODE_SHARE:.0%})"
        )
    if docname in MAX_SCREENS and m["screens"] > MAX_SCREENS[docname]:
        problems.append(f"{m['screens']:.1f} screens long (at most {MAX_SCREENS[docname]})")
    if m["wide_code"]:
        problems.append(
            f"{m['wide_code_lines']} code lines wider than their box, e.g. {m['wide_code'][:3]}"
        )
    if m["wide_tables"]:
        problems.append(
            f"{len(m['wide_tables'])} tables or outputs wider than the column: "
            f"{m['wide_tables'][:3]}"
        )
    if m["unnumbered"]:
        problems.append(
            f"{len(m['unnumbered'])} figures or tables without a numbered caption: "
            f"{m['unnumbered'][:3]}"
        )
    if m["progress_bars"]:
        problems.append(f"{m['progress_bars']} outputs show a progress bar")
    if m["nbval_marks"]:
        problems.append(f"nbval markers visible: {sorted(set(m['nbval_marks']))}")
    return problems


def chapters(pages: list[str], root) -> list[str]:
    """The pages that are notebooks (the chapters and the guide)."""
    return [d for d in pages if (root / (d + ".ipynb")).is_file()]


def main(argv: list[str]) -> None:
    import functools
    import threading
    from urllib.parse import urljoin

    from playwright.sync_api import sync_playwright

    html = HTML
    if argv[:1] == ["--html"]:
        html, argv = Path(argv[1]), argv[2:]
    pages = argv or chapters(toc_pages(), ROOT)
    handler = functools.partial(_QuietHandler, directory=str(html))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    print(
        f"{'page':36s} {'screens':>7s} {'code':>5s} {'wide code':>9s} {'wide tables':>11s} "
        f"{'uncaptioned':>11s} {'NBVAL':>5s} {'bars':>4s}"
    )
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        context = chromium.new_context(viewport=VIEWPORT)
        for docname in pages:
            page = context.new_page()
            page.goto(urljoin(base, docname + ".html"), wait_until="load")
            m = page.evaluate(LAYOUT_JS)
            page.close()
            print(
                f"{docname.removeprefix('book/'):36s} {m['screens']:7.1f} {m['code_share']:5.0%} "
                f"{m['wide_code_lines']:9d} {len(m['wide_tables']):11d} {len(m['unnumbered']):11d} "
                f"{len(m['nbval_marks']):5d} {m['progress_bars']:4d}"
            )
        chromium.close()
    httpd.shutdown()


if __name__ == "__main__":
    main(sys.argv[1:])
