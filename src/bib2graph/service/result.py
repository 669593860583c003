"""What every service operation returns: the envelope's `data` and its `warnings`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Result:
    data: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
