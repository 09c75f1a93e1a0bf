"""Build hooks of the backyard-ls wheels.

The wheel holds the Python package backyard_ls (src/) and the server binary
built by scripts/build-dist.sh for one platform, named by
$BACKYARD_LS_PLATFORM (GOOS/GOARCH, a line of
packaging/platforms.txt). The version comes from cmd/backyard-ls/VERSION
(what `backyard-ls version` prints) and the worker pin from monty/doc.go
(what the server speaks to), so neither is written here.
"""

import os
import re
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.metadata.plugin.interface import MetadataHookInterface

REPO = Path(__file__).resolve().parents[2]


def release() -> str:
    return (REPO / "cmd" / "backyard-ls" / "VERSION").read_text().strip()


def runtime_pin() -> str:
    doc = (REPO / "monty" / "doc.go").read_text()
    m = re.search(r'^\s*RuntimeVersion = "([^"]+)"', doc, re.M)
    if not m:
        raise RuntimeError("monty/doc.go: no RuntimeVersion")
    return f"pydantic-monty-runtime=={m.group(1)}"


def platform_tag(platform: str) -> str:
    for line in (REPO / "packaging" / "platforms.txt").read_text().splitlines():
        fields = line.split()
        if fields and not fields[0].startswith("#") and fields[0] == platform:
            return fields[1]
    raise RuntimeError(f"BACKYARD_LS_PLATFORM={platform!r} is not in packaging/platforms.txt")


class CustomMetadataHook(MetadataHookInterface):
    def update(self, metadata: dict) -> None:
        metadata["version"] = release()
        metadata["dependencies"] = [runtime_pin()]


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel":
            raise RuntimeError("backyard-ls is built as platform wheels only (scripts/build-wheels.sh)")
        platform = os.environ.get("BACKYARD_LS_PLATFORM", "")
        tag = platform_tag(platform)
        goos, goarch = platform.split("/")
        exe = "backyard-ls.exe" if goos == "windows" else "backyard-ls"
        binary = REPO / "dist" / "bin" / f"{goos}-{goarch}" / exe
        if not binary.is_file():
            raise RuntimeError(f"{binary} is missing: run scripts/build-dist.sh {platform}")
        build_data["tag"] = f"py3-none-{tag}"
        build_data["pure_python"] = False
        build_data["shared_scripts"][str(binary)] = exe
