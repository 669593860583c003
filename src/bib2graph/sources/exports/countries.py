"""The country of an affiliation address as an ISO 3166-1 alpha-2 code.

Web of Science and Scopus end an address with its country, but not always in ISO spelling: WoS writes
"MI 48104 USA", "Peoples R China", "England", "North Ireland", "U Arab Emirates"; Scopus "United
States", "Russian Federation", "South Korea". pycountry knows the ISO names; the table below adds the
database spellings it does not. Codes alone ("CA") are not accepted: in an address they are as often a
US state or Canadian province as a country.
"""

from __future__ import annotations

import re
from functools import cache

import pycountry

from .names import ascii_text

# Spellings of Web of Science, Scopus and Lens that pycountry's names do not match.
_SPECIAL = {
    "usa": "US", "united states of america": "US", "u.s.a.": "US",
    "uk": "GB", "england": "GB", "scotland": "GB", "wales": "GB", "north ireland": "GB",
    "northern ireland": "GB", "great britain": "GB", "britain": "GB",
    "peoples r china": "CN", "people's republic of china": "CN", "pr china": "CN", "p.r. china": "CN",
    "china mainland": "CN",
    "taiwan": "TW", "republic of china": "TW",
    "south korea": "KR", "korea": "KR", "republic of korea": "KR", "korea, republic of": "KR",
    "north korea": "KP", "dem people's rep korea": "KP",
    "russia": "RU", "ussr": "RU",
    "iran": "IR", "vietnam": "VN", "syria": "SY", "laos": "LA", "moldova": "MD", "tanzania": "TZ",
    "venezuela": "VE", "bolivia": "BO", "brunei": "BN", "macedonia": "MK", "north macedonia": "MK",
    "turkey": "TR", "turkiye": "TR", "czech republic": "CZ", "czechia": "CZ", "slovak republic": "SK",
    "byelarus": "BY", "belarus": "BY", "palestine": "PS", "vatican": "VA", "micronesia": "FM",
    "swaziland": "SZ", "cape verde": "CV", "east timor": "TL", "e timor": "TL", "timor leste": "TL",
    "u arab emirates": "AE", "uae": "AE", "bosnia & herceg": "BA", "bosnia and herzegovina": "BA",
    "trinid & tobago": "TT", "papua n guinea": "PG", "cent afr republ": "CF",
    "dem rep congo": "CD", "democratic republic congo": "CD", "rep congo": "CG", "congo": "CG",
    "cote ivoire": "CI", "ivory coast": "CI", "guinea bissau": "GW", "equat guinea": "GQ",
    "st kitts & nevi": "KN", "st vincent": "VC", "st lucia": "LC", "antigua & barbu": "AG",
    "sao tome & prin": "ST", "turks & caicos": "TC", "fr polynesia": "PF", "marshall isl": "MH",
    "falkland isl": "FK", "solomon isl": "SB", "cayman isl": "KY", "faroe isl": "FO",
    "br virgin isl": "VG", "us virgin isl": "VI", "neth antilles": "CW", "curacao": "CW",
    "bonaire": "BQ", "fed rep ger": "DE", "ger dem rep": "DE", "west germany": "DE",
    "hong kong": "HK", "macau": "MO", "macao": "MO", "kosovo": "XK", "libya": "LY",
    "the netherlands": "NL", "holland": "NL",
}
_CODE_ONLY = re.compile(r"^[A-Za-z]{2,3}$")


def country_code(text: str | None) -> str | None:
    """The ISO alpha-2 code of the country an address ends with ("Univ Michigan, Ann Arbor, MI 48104
    USA." -> "US"), or of a bare country name; None when no country is recognised."""
    if not text:
        return None
    parts = [p.strip() for p in text.strip().rstrip(".").split(",")]
    candidates = [parts[-1]] + ([", ".join(parts[-2:])] if len(parts) > 1 else [])
    for part in candidates:
        words = part.split()
        for start in range(len(words)):  # the longest tail first: "Papua N Guinea" before "Guinea"
            code = _by_name().get(_key(" ".join(words[start:])))
            if code:
                return code
    return None


def _key(name: str) -> str:
    """Case, accents and surrounding punctuation do not tell countries apart."""
    plain = ascii_text(name)
    return " ".join(plain.casefold().strip(" .;()").split())


@cache
def _by_name() -> dict[str, str]:
    """Every ISO name pycountry knows (name, official and common name), then the special spellings."""
    names: dict[str, str] = {}
    for country in pycountry.countries:
        for attr in ("name", "official_name", "common_name"):
            value = getattr(country, attr, None)
            if value:
                names[_key(value)] = country.alpha_2
                if value.lower().startswith("the "):
                    names[_key(value[4:])] = country.alpha_2
    names.update({_key(k): v for k, v in _SPECIAL.items()})
    return {k: v for k, v in names.items() if k and not (_CODE_ONLY.match(k) and k not in _SPECIAL)}
