"""The one exception hierarchy of bib2graph. Each class carries the exit code of the CLI contract.

    B2GError                      exit 70 base; an exception outside the tree is reported as INTERNAL
    ├── UsageError                exit 1  a command used wrongly (bad combination of options)
    ├── DataError                 exit 2  bad spec, unknown ID, corrupt artifact, empty criterion
    │   └── SpecError             exit 2  the research spec breaks its schema (names key and place)
    ├── DependencyError           exit 3  a missing optional extra or capability
    ├── NetworkError              exit 4  OpenAlex unreachable or throttled past the retries (retryable)
    │   └── UpstreamRefused       exit 4  OpenAlex refused or answered so that a retry cannot help
    └── WorkspaceError            exit 5  workspace missing, locked, unreadable or unwritable
        ├── WorkspaceLockedError  exit 5  another process holds the workspace (retryable)
        └── RunInterrupted        exit 5  SIGINT/SIGTERM stopped the call; a new run resumes (retryable)

`retryable` belongs to the class (docs/contract.md lists every code with its class): a code that a
retry may cure and one it cannot are never the same code.

The core raises these; the service layer turns them into envelopes (an OSError becomes a
WorkspaceError naming the file, a KeyboardInterrupt a RunInterrupted); the CLI only prints and exits.
"""

from __future__ import annotations

from typing import Any


INTERNAL_EXIT = 70  # an unexpected exception: a bug, reported as code INTERNAL


class B2GError(Exception):
    exit_code = INTERNAL_EXIT
    code = "INTERNAL"
    retryable = False

    def __init__(self, message: str, *, code: str | None = None, subcode: str | None = None,
                 details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.subcode = subcode
        self.details = details or {}


class UsageError(B2GError):
    exit_code = 1
    code = "USAGE_ERROR"


class DataError(B2GError):
    exit_code = 2
    code = "DATA_ERROR"


class SpecError(DataError):
    code = "SPEC_INVALID"


class DependencyError(B2GError):
    exit_code = 3
    code = "DEPENDENCY_MISSING"


class NetworkError(B2GError):
    exit_code = 4
    code = "NETWORK_ERROR"
    retryable = True


class UpstreamRefused(NetworkError):
    """Out of budget, access denied, a request rejected or an answer unusable: the same call fails again."""
    code = "UPSTREAM_REFUSED"
    retryable = False


class WorkspaceError(B2GError):
    exit_code = 5
    code = "WORKSPACE_ERROR"


class WorkspaceLockedError(WorkspaceError):
    code = "WORKSPACE_LOCKED"
    retryable = True


class RunInterrupted(WorkspaceError):
    code = "INTERRUPTED"
    retryable = True
