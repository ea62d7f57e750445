"""Run a command and report whether it compiled any numba kernel into the shared cache.

numba writes a kernel's compiled code to NUMBA_CACHE_DIR when it compiles it (cache=True
everywhere in calibbook) and only reads when it loads it. So a command that leaves every file
of the cache as it found it compiled nothing. ``make nbval`` runs nbval under this watch after
``make env`` has warmed the cache: the notebooks' kernels must load, not compile.

Run: python scripts/numba_cache_watch.py [--allow-compiles] -- COMMAND [ARGS...]
Exit status: the command's, or 1 when it passed but compiled kernels (unless --allow-compiles).
"""

import argparse
import os
import subprocess
import sys
from pathlib import Path


def snapshot(cache_dir):
    """(size, mtime_ns) of every file under the cache folder, by relative path."""
    root = Path(cache_dir)
    if not root.is_dir():
        return {}
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file()
    }


def compiled_kernels(before, after):
    """Kernels whose compiled code appeared or changed: names from numba's data files."""
    changed = [path for path, stamp in after.items() if before.get(path) != stamp]
    # data files are "<module>.<function>-<line>.<python tag>.<index>.nbc"
    return sorted({Path(p).name.split("-")[0] for p in changed if p.endswith(".nbc")})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--allow-compiles", action="store_true", help="report, do not fail")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    cache_dir = os.environ.get("NUMBA_CACHE_DIR")
    if not cache_dir:
        parser.error("NUMBA_CACHE_DIR is not set: there is no shared cache to watch")
    before = snapshot(cache_dir)
    status = subprocess.call(command)
    kernels = compiled_kernels(before, snapshot(cache_dir))
    if kernels:
        print(
            f"numba cache watch: the command compiled {len(kernels)} kernel(s) the warmed cache "
            f"lacked: {', '.join(kernels)} (add what reaches them to calibbook/warmup.py)",
            file=sys.stderr,
        )
    else:
        print(f"numba cache watch: the command compiled no kernel ({cache_dir})", file=sys.stderr)
    if status == 0 and kernels and not args.allow_compiles:
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
