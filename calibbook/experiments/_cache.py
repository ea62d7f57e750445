"""Where the protocols cache their results, and under which key.

A result file is named by a SHA-256 of everything that determines its numbers: the data,
every setting, the versions of the numerical libraries and a hash of calibbook's own
source (:func:`source_hash`), so a cached file never answers for code that has changed.
The files live in the user's cache directory (:func:`default_cache_dir`), never inside
the package.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from pathlib import Path

import numpy as np

#: Root of the installed calibbook package, whose ``*.py`` files :func:`source_hash` reads.
PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def data_digest(X, y):
    """SHA-256 of the shapes and float64 bytes of ``X`` and ``y``."""
    h = hashlib.sha256()
    for a in (np.ascontiguousarray(X, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64)):
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def estimator_key(est):
    """A JSON-able description of an estimator: its class and, recursively, its parameters."""
    from sklearn.base import BaseEstimator

    if isinstance(est, BaseEstimator):
        items = {}
        for k, v in sorted(est.get_params(deep=True).items()):
            items[k] = estimator_key(v) if isinstance(v, BaseEstimator) else repr(v)
        return [type(est).__module__ + "." + type(est).__qualname__, items]
    return repr(est)


def software_versions():
    """Versions of calibbook and the numerical libraries, part of the cache key.

    A new scikit-learn or NumPy can move the numbers, and a cache written under the old
    one must not answer for the new one.
    """
    import numba
    import scipy
    import sklearn

    from calibbook import __version__

    return {
        "calibbook": __version__,
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "sklearn": sklearn.__version__,
        "numba": numba.__version__,
    }


@functools.cache
def source_hash(package_root=None):
    """SHA-256 over calibbook's source: every ``*.py`` file below ``package_root``.

    Part of the cache key, so that a change to any calibbook source file (a bug
    fix in a calibrator, a new default) invalidates the cached results even when
    ``__version__`` stays the same. The files are visited in the order of their
    relative POSIX paths; each contributes its relative path and its bytes.
    Computed once per process and root (``functools.lru_cache``).

    Parameters
    ----------
    package_root : path-like, optional
        Root of the package to hash. Default: the installed calibbook package.

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> from calibbook.experiments._cache import source_hash
    >>> h = source_hash()
    >>> len(h), h == source_hash()
    (64, True)
    """
    root = Path(package_root).resolve() if package_root is not None else PACKAGE_ROOT
    h = hashlib.sha256()
    for rel in sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py")):
        data = (root / rel).read_bytes()
        for part in (rel.encode("utf-8"), data):
            h.update(len(part).to_bytes(8, "little"))  # length-prefixed: no ambiguous joins
            h.update(part)
    return h.hexdigest()


def user_cache_dir(appname="calibbook", platform=None):
    """The per-user cache directory of ``appname`` on this platform, read from the environment now.

    ``$XDG_CACHE_HOME/<appname>`` when ``XDG_CACHE_HOME`` is set to an absolute
    path; otherwise ``~/Library/Caches/<appname>`` on macOS,
    ``%LOCALAPPDATA%\\<appname>\\Cache`` on Windows and ``~/.cache/<appname>``
    elsewhere (the locations of ``platformdirs.user_cache_dir``, without the
    dependency).

    Parameters
    ----------
    appname : str, default="calibbook"
        Name of the application's subdirectory.
    platform : str, optional
        A ``sys.platform`` value (``"linux"``, ``"darwin"``, ``"win32"``, ...).
        Default: this one.

    Returns
    -------
    pathlib.Path
        Not created here.

    Examples
    --------
    >>> from calibbook.experiments._cache import user_cache_dir
    >>> "calibbook" in user_cache_dir().parts
    True
    """
    platform = sys.platform if platform is None else platform
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):  # the XDG spec: relative paths are invalid, ignore them
        return Path(xdg) / appname
    if platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / appname / "Cache"
    if platform == "darwin":
        return Path.home() / "Library" / "Caches" / appname
    return Path.home() / ".cache" / appname


def default_cache_dir():
    """Where the protocols cache their results when ``cache_dir`` is not given.

    ``$CALIBBOOK_CACHE`` if set (and not empty), else ``experiments`` in
    :func:`user_cache_dir`. Read at every call, so setting the variable after
    import takes effect.

    Returns
    -------
    pathlib.Path
        Not created here.

    Examples
    --------
    >>> import os
    >>> from calibbook.experiments._cache import default_cache_dir
    >>> "CALIBBOOK_CACHE" in os.environ or "calibbook" in default_cache_dir().parts
    True
    """
    env = os.environ.get("CALIBBOOK_CACHE", "")
    return Path(env) if env else user_cache_dir("calibbook") / "experiments"


def cache_path(cache_dir, config):
    """The CSV file of one (data set, classifier) configuration: its names and a hash of all."""
    digest = hashlib.sha256(json.dumps(config, sort_keys=True, default=repr).encode()).hexdigest()
    return Path(cache_dir) / f"{config['dataset']}-{config['classifier']}-{digest[:16]}.csv"
