"""The language of a record as an ISO 639-1 code, from the English name or the ISO code an export gives it.

Web of Science (LA), Scopus ("Language of Original Document") and Lens name languages in English
("English", "Chinese"); pycountry knows the ISO names, the table below the database spellings it does
not. "Multi-Language", "Unspecified" and unknown names give None.
"""

from __future__ import annotations

from functools import lru_cache

import pycountry

_SPECIAL = {"greek": "el", "malay": "ms", "swahili": "sw", "frisian": "fy", "gaelic": "gd",
            "irish gaelic": "ga", "scottish gaelic": "gd", "flemish": "nl", "byelorussian": "be",
            "farsi": "fa", "moldavian": "ro", "serbo-croatian": "sh", "norwegian bokmal": "nb"}


@lru_cache(maxsize=512)
def language_code(name: str | None) -> str | None:
    """ISO 639-1 for the first language named ("English" → "en"; "English; French" → "en")."""
    first = (name or "").replace(",", ";").split(";")[0].strip()
    if not first:
        return None
    if first.casefold() in _SPECIAL:
        return _SPECIAL[first.casefold()]
    if code := _from_code(first.casefold()):
        return code
    try:
        return getattr(pycountry.languages.lookup(first), "alpha_2", None)
    except LookupError:
        return None


def _from_code(value: str) -> str | None:
    """An ISO 639 code as OpenAlex ("en") and RIS ("eng", "ger") write it; looked up before names,
    since pycountry's name lookup takes "en" for the language named "En"."""
    found = None
    if len(value) == 2:
        found = pycountry.languages.get(alpha_2=value)
    elif len(value) == 3:
        found = pycountry.languages.get(alpha_3=value) or pycountry.languages.get(bibliographic=value)
    return getattr(found, "alpha_2", None)
