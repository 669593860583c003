"""Affiliation addresses as WoS and Scopus write them end in a country that gets its ISO 3166 code."""

from __future__ import annotations

import pycountry
import pytest

from bib2graph.sources.exports.countries import country_code


@pytest.mark.parametrize("address, iso3", [
    ("Univ Michigan, Dept Sociol, Ann Arbor, MI 48104 USA.", "USA"),
    ("NIMH, Sect Funct Imaging Methods, Bethesda, MD 20892 USA.", "USA"),
    ("Tsinghua Univ, Beijing 100084, Peoples R China.", "CHN"),
    ("Univ Glasgow, Glasgow G12 8QQ, Lanark, Scotland.", "GBR"),
    ("Queens Univ Belfast, Belfast, Antrim, North Ireland.", "GBR"),
    ("Univ Oxford, Oxford, England.", "GBR"),
    ("Natl Taiwan Univ, Taipei 10617, Taiwan.", "TWN"),
    ("KAIST, Daejeon, South Korea.", "KOR"),
    ("Univ PNG, Port Moresby, Papua N Guinea.", "PNG"),
    ("Ontario Inst Canc Res, Toronto, ON M5G 0A3, Canada.", "CAN"),
    ("Moscow State University, Moscow, Russian Federation", "RUS"),
    ("Hanoi University, Hanoi, Viet Nam", "VNM"),
    ("Harvard University, Cambridge, United States", "USA"),
])
def test_addresses_end_in_their_country(address, iso3):
    assert country_code(address) == pycountry.countries.get(alpha_3=iso3).alpha_2


@pytest.mark.parametrize("text", ["Stanford Univ, Stanford, CA", "Dept Phys, ON", "", None, "Nowhere Land"])
def test_state_codes_and_unknown_places_are_no_country(text):
    assert country_code(text) is None
