"""The built book, opened in a real browser (headless Chromium driven by Playwright).

For every page of the book (_toc.yml, the API pages included) the test checks that the page logs no
console errors, that no request fails or leaves this machine (the book must read offline: MathJax
and every other asset come from _build/html), that MathJax has typeset every formula without a TeX
error and left no raw ``$$``, that no display equation is wider than the text column of a 1280-pixel
window, that every image has loaded, and that every internal link (the notebook downloads included)
reaches a file and an existing anchor. On the chapters it enforces the layout of
tests/_support/book_layout.py (code share, widths, numbered captions, no nbval markers or progress
bars). A full-page screenshot of each page goes to _build/screenshots/.

``CALIBBOOK_HTML`` names another build folder to test (default: _build/html).

These tests need the built book, so ``make test`` runs them after ``jupyter-book build``
(marker ``built_book``; the first pytest run deselects them). They skip when the book is
not built or Debian's Chromium is missing: ``apt-get install chromium`` (see README.md).
"""

from __future__ import annotations

import functools
import http.server
import re
import shutil
import threading
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

import pytest

from tests._support import book_layout
from tests._support.book_layout import (
    CHROMIUM,
    CHROMIUM_ARGS,
    HTML,
    ROOT,
    VIEWPORT,
    _QuietHandler,
    toc_pages,
)

SCREENSHOTS = ROOT / "_build" / "screenshots"

pytestmark = pytest.mark.built_book


# ---------------------------------------------------------------------------
# the pages: every file of _toc.yml, and the API pages its glob stands for
# ---------------------------------------------------------------------------
PAGES = toc_pages() if HTML.is_dir() else []
# every section title of the book, to find references that print one bare
TITLES = book_layout.section_titles(PAGES) if PAGES else set()


def _skip_reason() -> str | None:
    if not (HTML / "index.html").is_file():
        return "the book is not built: run `make book` (or jupyter-book build .) first"
    if not (shutil.which(CHROMIUM) or Path(CHROMIUM).is_file()):
        return f"no Chromium at {CHROMIUM}: install it with `apt-get install chromium` (Debian)"
    return None  # playwright: the browser fixture imports it with importorskip (CI=true: fails)


SKIP = _skip_reason()


# ---------------------------------------------------------------------------
# fixtures: a local web server for _build/html and one browser for the session
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def server():
    handler = functools.partial(_QuietHandler, directory=str(HTML))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)  # port 0: any free port
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def browser():
    """One browser context for all pages, so MathJax and the theme's assets are cached."""
    sync_playwright = pytest.importorskip(
        "playwright.sync_api", reason="the playwright package is missing: pip install -e '.[test]'"
    ).sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        context = chromium.new_context(viewport=VIEWPORT)
        yield context
        context.close()
        chromium.close()


# ---------------------------------------------------------------------------
# link checking (on the served files, shared across pages)
# ---------------------------------------------------------------------------
class _Anchors(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)


@functools.cache
def _fetch(url: str) -> tuple[int, frozenset[str]]:
    """HTTP status of ``url`` and, for an HTML page, the ids its anchors can point at."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            body = response.read()
            status = response.status
            kind = response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as err:
        return err.code, frozenset()
    if "html" not in kind:
        return status, frozenset()
    parser = _Anchors()
    parser.feed(body.decode("utf-8", errors="replace"))
    return status, frozenset(parser.ids)


def broken_links(base: str, page_url: str, hrefs: list[str]) -> list[str]:
    problems = []
    for href in sorted(set(hrefs)):
        target = urljoin(page_url, href)
        if not target.startswith(base):
            continue  # external links are the reader's business; the page must not *load* them
        url, fragment = urldefrag(target)
        status, ids = _fetch(url)
        if status != 200:
            problems.append(f"{href} -> HTTP {status}")
        elif fragment and unquote(fragment) not in ids and url.endswith(".html"):
            problems.append(f"{href} -> no anchor #{fragment} in {url[len(base) :]}")
    return problems


# ---------------------------------------------------------------------------
# the test
# ---------------------------------------------------------------------------
# Text nodes outside code: raw TeX left there means MathJax did not typeset it.
_VISIBLE_TEXT_JS = """() => {
  const root = document.querySelector('main') || document.body;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => n.parentElement
      .closest('pre, code, script, style, mjx-container, .highlight')
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  const parts = [];
  while (walker.nextNode()) parts.push(walker.currentNode.nodeValue);
  return parts.join(' ');
}"""

_WIDE_DISPLAYS_JS = """() => Array.from(document.querySelectorAll('mjx-container[display="true"]'))
  .map((c, i) => {
    const box = c.closest('div.math');
    const label = box && box.id ? box.id : `#${i}`;
    return [label, c.scrollWidth, c.clientWidth];
  })
  .filter(([, wide, box]) => wide > box + 1)"""

_IMAGES_JS = """async () => {
  const imgs = Array.from(document.images);
  imgs.forEach((img) => { img.loading = 'eager'; });
  await Promise.all(imgs.map((img) => img.complete ? null : new Promise((done) => {
    img.addEventListener('load', done); img.addEventListener('error', done); })));
  return imgs.map((img) => [img.getAttribute('src'), img.naturalWidth]);
}"""


@pytest.mark.skipif(SKIP is not None, reason=SKIP or "")
@pytest.mark.parametrize("docname", PAGES)
def test_page_in_browser(docname, server, browser):
    url = urljoin(server, docname + ".html")
    problems: list[str] = []
    page = browser.new_page()

    def on_console(msg):
        if msg.type == "error":
            problems.append(f"console error: {msg.text}")

    def on_request(request):
        if not request.url.startswith(server) and urlsplit(request.url).scheme in (
            "http",
            "https",
            "ws",
            "wss",
        ):
            problems.append(f"request leaves the machine: {request.url}")

    def on_response(response):
        if response.status >= 400:
            problems.append(f"HTTP {response.status}: {response.url}")

    page.on("console", on_console)
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.on("request", on_request)
    page.on(
        "requestfailed", lambda req: problems.append(f"request failed: {req.url} ({req.failure})")
    )
    page.on("response", on_response)
    try:
        response = page.goto(url, wait_until="load")
        assert response is not None and response.status == 200, f"{url} did not load"

        # math: every formula Sphinx emitted is typeset by the bundled MathJax
        n_math = page.locator(".math").count()
        if n_math:
            page.wait_for_function(
                "() => window.MathJax && MathJax.startup && MathJax.startup.promise"
            )
            page.evaluate("() => MathJax.startup.promise")
            untypeset = page.locator(".math:not(:has(mjx-container))").count()
            if untypeset:
                problems.append(f"{untypeset} of {n_math} formulas not typeset by MathJax")
            errors = page.locator("mjx-merror").all_inner_texts()
            if errors:
                problems.append(f"MathJax TeX errors: {errors[:5]}")
            for label, wide, box in page.evaluate(_WIDE_DISPLAYS_JS):
                problems.append(f"display equation {label} is {wide}px wide in a {box}px column")
        text = page.evaluate(_VISIBLE_TEXT_JS)
        for raw in ("$$", "\\(", "\\["):
            if raw in text:
                at = text.index(raw)
                problems.append(
                    f"raw TeX {raw!r} left in the text: ...{text[max(0, at - 60) : at + 60]}..."
                )

        # figures: every image has loaded
        for src, width in page.evaluate(_IMAGES_JS):
            if not width:
                problems.append(f"image did not load: {src}")

        # links: every internal target exists, anchors included
        hrefs = page.eval_on_selector_all(
            "a[href]", "els => els.map((a) => a.getAttribute('href'))"
        )
        problems += broken_links(server, url, hrefs)

        # chapters are notebooks: the download button offers the .ipynb, and the page reads as a
        # book (tests/_support/book_layout.py): little code, nothing wider than the column, every
        # figure and table numbered and captioned, no nbval markers or progress bars
        if (ROOT / (docname + ".ipynb")).is_file():
            measures = page.evaluate(book_layout.LAYOUT_JS) | book_layout.typography(
                docname, TITLES
            )
            problems += book_layout.layout_problems(docname, measures)
            download = [h for h in hrefs if h.endswith(f"_sources/{docname}.ipynb")]
            if not download:
                problems.append("no download link to the chapter's .ipynb")
        elif docname.startswith("book/api/generated/"):
            # an API page: its title and every line of its example fit the column
            measures = page.evaluate(book_layout.LAYOUT_JS)
            if measures["wide_code"]:
                problems.append(
                    f"{measures['wide_code_lines']} example lines wider than their box, "
                    f"e.g. {measures['wide_code'][:2]}"
                )
            if page.evaluate(book_layout.TITLE_OVERFLOW_JS):
                problems.append("the page title is wider than the text column")

        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        # a long chapter is a tall PNG: allow a slow machine more than the default 30 s
        page.screenshot(
            path=str(SCREENSHOTS / (docname.replace("/", "__") + ".png")),
            full_page=True,
            timeout=180_000,
        )
    finally:
        page.close()
    assert not problems, f"{docname}:\n  " + "\n  ".join(problems)


def test_pages_found():
    """The toc resolves to pages that exist in the build (so the test above checks something)."""
    if not (HTML / "index.html").is_file():
        pytest.skip("the book is not built")
    assert len(PAGES) > 10
    missing = [d for d in PAGES if not (HTML / (d + ".html")).is_file()]
    assert not missing, f"pages of _toc.yml missing from _build/html: {missing}"
    assert any(d.startswith("book/api/generated/") for d in PAGES), "no API pages were built"


def test_no_cdn_assets():
    """No page loads a script, stylesheet or font from the network (the book must read offline)."""
    if not (HTML / "index.html").is_file():
        pytest.skip("the book is not built")
    remote = re.compile(r"<(?:script|link)\b[^>]*\b(?:src|href)=\"(?:https?:)?//[^\"]+\"[^>]*>")
    offenders = {}
    for path in sorted(HTML.rglob("*.html")):
        tags = [
            m.group(0)[:160]
            for m in remote.finditer(path.read_text(encoding="utf-8", errors="replace"))
        ]
        if tags:
            offenders[path.relative_to(HTML).as_posix()] = tags
    assert not offenders, (
        f"{len(offenders)} pages load remote assets, e.g. {list(offenders.items())[:3]}"
    )


@pytest.mark.skipif(SKIP is not None, reason=SKIP or "")
def test_a_click_enlarges_a_figure(server, browser):
    """book/_static/enlarge.js: a figure drawn for the text column opens at window size, and
    Escape closes it."""
    page = browser.new_page()
    try:
        page.goto(urljoin(server, "book/04_isotonic_regression.html"), wait_until="load")
        figure = page.locator("article .cell_output img").first
        inline_width = figure.bounding_box()["width"]
        figure.click()
        big = page.locator(".calibbook-lightbox img")
        assert big.count() == 1, "a click on a figure opened no enlarged view"
        natural_w, natural_h = page.evaluate(
            "() => { const i = document.querySelector('.calibbook-lightbox img');"
            " return [i.naturalWidth, i.naturalHeight]; }"
        )
        box = big.bounding_box()
        # 2x figures: the window, not the picture, bounds the view, in width or in height
        assert box["width"] >= inline_width - 1
        assert (
            box["width"] >= min(natural_w, VIEWPORT["width"] * 0.9) - 1
            or box["height"] >= min(natural_h, VIEWPORT["height"] * 0.9) - 1
        ), (box, natural_w, natural_h)
        page.keyboard.press("Escape")
        assert page.locator(".calibbook-lightbox").count() == 0
    finally:
        page.close()
