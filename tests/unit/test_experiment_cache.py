"""Where the experiment cache lives, and what invalidates it.

The default cache is the user's cache directory (``$CALIBBOOK_CACHE``, else
``$XDG_CACHE_HOME/calibbook/experiments``, else the platform's), never the package
tree; its key includes a SHA-256 of calibbook's own source, so changing any
calibbook ``*.py`` file makes the protocols recompute instead of reading old numbers.
"""

import shutil
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import BaseEstimator

import calibbook
from calibbook import experiments as ex
from calibbook.experiments import _cache
from tests._support.data import tiny as _tiny

PACKAGE = Path(calibbook.__file__).resolve().parent
OLD_DEFAULT = PACKAGE.parent / "data" / "cache" / "experiments"  # the default before this change
CALLS = []


class Counter(BaseEstimator):
    """A pass-through calibrator that counts its fits (a cache hit fits nothing)."""

    def __init__(self, tag="counter"):
        self.tag = tag

    def fit(self, scores, y, sample_weight=None):
        CALLS.append(len(scores))
        return self

    def predict(self, scores):
        return np.clip(np.asarray(scores, dtype=float), 0, 1)


def _run(**kw):
    """A two-fold experiment with one classifier and one calibrator: two fits when computed."""
    X, y = _tiny()
    return ex.repeated_cv_protocol(
        {"tiny": (X, y)},
        ["LR"],
        {"counter": Counter()},
        n_splits=2,
        n_repeats=1,
        disable=True,
        **kw,
    )


def _files(root):
    """Files below ``root`` (bytecode caches left out), relative to it."""
    root = Path(root)
    if not root.exists():
        return set()
    files = (p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return {p.relative_to(root) for p in files}


def _copy_package(dest):
    return Path(shutil.copytree(PACKAGE, dest, ignore=shutil.ignore_patterns("__pycache__")))


# ---------------------------------------------------------------------------
# where the cache lives
# ---------------------------------------------------------------------------
def test_default_cache_is_in_xdg_cache_home_not_in_package(tmp_path, monkeypatch):
    # set after calibbook.experiments was imported: the default is resolved per call
    monkeypatch.delenv("CALIBBOOK_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    before_package, before_old = _files(PACKAGE), _files(OLD_DEFAULT)
    CALLS.clear()
    first = _run(use_cache=True)
    assert len(CALLS) == 2
    written = sorted((tmp_path / "xdg" / "calibbook" / "experiments").glob("*.csv"))
    assert [p.name.split("-")[:2] for p in written] == [["tiny", "LR"]]
    assert _files(tmp_path) == {p.relative_to(tmp_path) for p in written}  # nothing else anywhere
    assert _files(PACKAGE) == before_package  # nothing written inside the package
    assert _files(OLD_DEFAULT) == before_old  # nor in the old data/cache/experiments
    # and the default location is really used as a cache: the second run reads it
    second = _run(use_cache=True)
    assert len(CALLS) == 2
    np.testing.assert_array_equal(first.value.to_numpy(), second.value.to_numpy())


def test_calibbook_cache_env_overrides_xdg(tmp_path, monkeypatch):
    monkeypatch.setenv("CALIBBOOK_CACHE", str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    _run(use_cache=True)
    assert len(list((tmp_path / "mine").glob("tiny-LR-*.csv"))) == 1
    assert not (tmp_path / "xdg").exists()
    # an explicit cache_dir wins over both
    _run(use_cache=True, cache_dir=tmp_path / "explicit")
    assert len(list((tmp_path / "explicit").glob("tiny-LR-*.csv"))) == 1
    assert len(list((tmp_path / "mine").glob("*.csv"))) == 1
    assert not (tmp_path / "xdg").exists()


@pytest.mark.parametrize(
    "platform, expected",
    [
        ("linux", ("home", ".cache", "calibbook", "experiments")),
        ("darwin", ("home", "Library", "Caches", "calibbook", "experiments")),
        ("win32", ("local", "calibbook", "Cache", "experiments")),
    ],
)
def test_platform_default_locations(tmp_path, monkeypatch, platform, expected):
    monkeypatch.delenv("CALIBBOOK_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "local"))
    got = _cache.user_cache_dir("calibbook", platform=platform) / "experiments"
    assert got == tmp_path.joinpath(*expected)
    if platform == "win32":  # without LOCALAPPDATA: the usual AppData\Local under the home
        monkeypatch.delenv("LOCALAPPDATA")
        local = Path.home() / "AppData" / "Local"
        got = _cache.user_cache_dir("calibbook", platform=platform)
        assert got == local / "calibbook" / "Cache"
    # XDG_CACHE_HOME, when absolute, comes first on every platform; a relative one is ignored
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _cache.user_cache_dir("calibbook", platform=platform) == tmp_path / "xdg" / "calibbook"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    assert _cache.user_cache_dir("calibbook", platform=platform) != Path("relative/cache/calibbook")


def test_default_cache_dir_is_outside_package(tmp_path, monkeypatch):
    monkeypatch.delenv("CALIBBOOK_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    default = _cache.default_cache_dir().resolve()
    assert PACKAGE not in default.parents and default != PACKAGE
    assert default.parts[-2:] == ("calibbook", "experiments")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _cache.default_cache_dir() == tmp_path / "calibbook" / "experiments"
    monkeypatch.setenv("CALIBBOOK_CACHE", str(tmp_path / "override"))
    assert _cache.default_cache_dir() == tmp_path / "override"
    monkeypatch.setenv("CALIBBOOK_CACHE", "")  # empty counts as unset
    assert _cache.default_cache_dir() == tmp_path / "calibbook" / "experiments"


# ---------------------------------------------------------------------------
# the source hash in the key
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "changed", ["platt.py", "experiments/protocols.py", "_kernels/isotonic.py"]
)
def test_source_hash_changes_when_a_source_file_changes(tmp_path, changed):
    copy = _copy_package(tmp_path / "calibbook")
    h0 = _cache.source_hash(copy)
    assert len(h0) == 64 and int(h0, 16) >= 0
    # same relative paths and bytes: same hash, wherever it lies
    assert h0 == _cache.source_hash.__wrapped__(PACKAGE)
    with open(copy / changed, "a", encoding="utf-8") as f:
        f.write("\n# a one-line change\n")
    assert _cache.source_hash(copy) == h0  # computed once per process (lru_cache) ...
    _cache.source_hash.cache_clear()
    h1 = _cache.source_hash(copy)  # ... so a fresh process sees the change
    assert h1 != h0
    # and so does the cache file the protocols would use
    config = {"dataset": "tiny", "classifier": "LR", "software": _cache.software_versions()}
    p0 = _cache.cache_path(tmp_path / "cache", {**config, "source": h0})
    p1 = _cache.cache_path(tmp_path / "cache", {**config, "source": h1})
    assert p0 != p1 and p0.parent == p1.parent


def test_source_hash_sees_new_and_renamed_files(tmp_path):
    copy = _copy_package(tmp_path / "calibbook")
    h = _cache.source_hash.__wrapped__  # uncached
    h0 = h(copy)
    (copy / "extra.py").write_text("X = 1\n", encoding="utf-8")
    h1 = h(copy)
    assert h1 != h0
    (copy / "extra.py").rename(copy / "extra2.py")
    assert h(copy) not in (h0, h1)
    (copy / "extra2.py").unlink()
    (copy / "notes.txt").write_text("not source\n", encoding="utf-8")
    assert h(copy) == h0  # only *.py files count


def test_protocol_recomputes_after_a_source_change(tmp_path, monkeypatch):
    copy = _copy_package(tmp_path / "calibbook")
    uncached = _cache.source_hash.__wrapped__
    # the protocols hash this copy instead of the installed package
    monkeypatch.setattr(_cache, "source_hash", lambda package_root=None: uncached(copy))
    cache = tmp_path / "cache"
    CALLS.clear()
    first = _run(use_cache=True, cache_dir=cache)
    assert len(CALLS) == 2
    _run(use_cache=True, cache_dir=cache)
    assert len(CALLS) == 2  # unchanged source: read from the cache
    with open(copy / "enir.py", "a", encoding="utf-8") as f:
        f.write("\n# changed\n")
    second = _run(use_cache=True, cache_dir=cache)
    assert len(CALLS) == 4  # changed source: recomputed, not read
    assert len(list(cache.glob("tiny-LR-*.csv"))) == 2  # under a new key
    q = lambda d: d[d.measure != "FitTime"].value.to_numpy()  # noqa: E731
    np.testing.assert_array_equal(q(first), q(second))
