"""Where the ``backyard-ls`` binary is."""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

from ._errors import BinaryNotFound

ENV_BINARY = "BACKYARD_LS_BIN"
"""The environment variable that names the binary, ahead of every other place."""

_EXE = "backyard-ls.exe" if sys.platform == "win32" else "backyard-ls"


def _executable(p: Path) -> bool:
    return p.is_file() and os.access(p, os.X_OK)


def find_binary(explicit: str | os.PathLike[str] | None = None) -> str:
    """Return the path of the ``backyard-ls`` binary this package drives.

    In order: ``explicit`` (the ``binary=`` argument), ``$BACKYARD_LS_BIN``,
    the scripts folder of the wheel that installed this package (a venv's
    ``bin/``, a ``--user`` or ``--target`` install's), the running
    interpreter's scripts folder, then ``PATH``. An explicit path or
    variable that names no executable is an error, not skipped.

    Raises:
        BinaryNotFound: nothing was found.
    """
    for name, value in (("binary", explicit), (ENV_BINARY, os.environ.get(ENV_BINARY))):
        if value:
            p = Path(value).expanduser()
            if _executable(p):
                return str(p.resolve())
            found = shutil.which(str(value))
            if found:
                return found
            raise BinaryNotFound(f"{name} {str(value)!r} is not an executable file")
    for p in _candidates():
        if _executable(p):
            return str(p)
    found = shutil.which("backyard-ls")
    if found:
        return found
    raise BinaryNotFound(
        "no backyard-ls binary: install the backyard-ls wheel for this platform "
        f"(pip install backyard-ls), or set {ENV_BINARY} or binary= to its path"
    )


def _candidates() -> list[Path]:
    out: list[Path] = []
    try:
        dist = metadata.distribution("backyard-ls")
        for f in dist.files or []:
            if f.name == _EXE and f.parent.name in ("bin", "Scripts"):
                out.append(Path(str(dist.locate_file(f))).resolve())
    except metadata.PackageNotFoundError:
        pass
    scripts = sysconfig.get_path("scripts")
    if scripts:
        out.append(Path(scripts) / _EXE)
    out.append(Path(sys.executable).parent / _EXE)
    return out
