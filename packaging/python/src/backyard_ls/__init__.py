"""backyard_ls: run Python that a person or a model wrote, fast and safely.

    from backyard_ls import Sandbox

    with Sandbox() as sandbox:
        sandbox.run("prices = [3.5, 2.25, 4.0]")
        result = sandbox.run("sum(prices)")
        print(result.value)       # 9.75

Sandbox keeps names between runs like a notebook (AsyncSandbox for
asyncio); run_batch runs many independent snippets in parallel and yields
their results. Everything runs in the ``backyard-ls`` binary this wheel
ships (Monty, or a container when the code needs full CPython), one process
per program.
"""

from __future__ import annotations

from ._async import AsyncSandbox
from ._binary import ENV_BINARY, find_binary
from ._common import FileEntry, Progress, Variable
from ._errors import (
    BackendUnavailable,
    BackyardError,
    BadArgument,
    BinaryNotFound,
    RequestTooLarge,
    SandboxClosed,
    ServerDied,
)
from ._execution import ExecutionError, Execution, FileChange, Frame, Routing
from ._sandbox import Sandbox
from .batch import AsyncBatchResults, BatchProgress, BatchResults, run_batch, run_batch_async

__all__ = [
    "ENV_BINARY",
    "AsyncBatchResults",
    "AsyncSandbox",
    "BatchProgress",
    "BatchResults",
    "BackendUnavailable",
    "BackyardError",
    "BadArgument",
    "BinaryNotFound",
    "Execution",
    "ExecutionError",
    "FileChange",
    "FileEntry",
    "Frame",
    "Progress",
    "RequestTooLarge",
    "Routing",
    "Sandbox",
    "SandboxClosed",
    "ServerDied",
    "Variable",
    "find_binary",
    "run_batch",
    "run_batch_async",
]
