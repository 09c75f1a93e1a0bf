"""The exceptions of backyard_ls.

They are for faults of the request or of the machinery, never for the
user's code: a Python exception, a timeout or a crash of the code is an
Execution whose status says so.
"""

from __future__ import annotations


class BackyardError(Exception):
    """Base class of every exception backyard_ls raises."""


class BadArgument(BackyardError, ValueError):
    """A parameter is missing, of the wrong type or out of range; the message says which."""


class RequestTooLarge(BadArgument):
    """A request (code, inputs, snippets) is larger than the server reads; nothing of it was done."""


class BackendUnavailable(BackyardError):
    """The backend cannot run anything: no Monty worker, no container engine, an image that cannot be pulled."""


class SandboxClosed(BackyardError):
    """The sandbox or batch was closed (or the server closed it)."""


class ServerDied(BackyardError):
    """The ``backyard-ls`` process exited or could not be started; its sandboxes are gone."""


class BinaryNotFound(ServerDied, FileNotFoundError):
    """No ``backyard-ls`` binary was found (see backyard_ls.find_binary)."""
