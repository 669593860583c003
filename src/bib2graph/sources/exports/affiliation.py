"""An affiliation address ("School of X, Wuhan Institute of Technology, Wuhan, 430205, China") as an
Institution: the comma part that names the organisation, and the country of the last part.

Addresses list departments before the organisation and towns after it, so the organisation is the
part with the strongest organisation word (a university over an institute over a laboratory or a
school); an address without one is named by its first part.
"""

from __future__ import annotations

import re

from .countries import country_code
from .record import Institution

# Strongest first: "School of Physics, Wuhan University" is Wuhan University; "Key Laboratory of X,
# Wuhan Institute of Technology" is the institute.
_RANKS = [re.compile(p, re.IGNORECASE) for p in (
    r"\b[uü]niv|\bhochschule\b|\bpolytechn|\bpolitecnic|\bpolitechnika\b",
    r"\binstitut|\bistituto\b|\bcollege\b|\bacadem|\bakadem|\bhospital|\bclinic|\bklinik|\bcnrs\b|"
    r"\binserm\b|\bcsic\b|\bnational lab",
    r"\bcent(?:re|er|ro)\b|\blaborator|\blab\b|\bschool\b|\bfacult|\bfoundation\b|\bagency\b|"
    r"\bministry\b|\bcouncil\b|\bcorporation\b|\bcompany\b|\bcorp\b|\binc\b|\bltd\b|\bllc\b|\bgmbh\b|"
    r"\bco\.|\bs\.a\.|\bag\b",
)]


def institution(address: str) -> Institution:
    """The Institution an address names; its country is the last comma part's, when recognised."""
    address = " ".join(address.split())
    parts = [p.strip() for p in address.split(",") if p.strip()]
    country = country_code(parts[-1].rstrip(".")) if len(parts) > 1 else None
    candidates = parts[:-1] if country and len(parts) > 1 else parts
    return Institution(name=_organisation(candidates) or address, address=address, country=country)


def _organisation(parts: list[str]) -> str | None:
    for rank in _RANKS:
        for part in parts:
            if rank.search(part):
                return part
    return parts[0] if parts else None
