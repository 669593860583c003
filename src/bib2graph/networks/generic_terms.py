"""OpenAlex's generic fields: words that name a whole discipline, never what a cluster is about.

Left out of every cluster label (docs/networks.md, "Cluster labels"): the 19 level-0 concepts (the roots
of OpenAlex's retired concept tree), and the 4 domains and 26 fields of its topic classification
(OpenAlex's topics follow Scopus's ASJC fields). Matched by concept ID or by name, case ignored.
"""

from __future__ import annotations

#: the level-0 concepts, by ID (https://api.openalex.org/concepts?filter=level:0)
LEVEL0_CONCEPTS = {
    "C41008148": "Computer science", "C71924100": "Medicine", "C86803240": "Biology",
    "C185592680": "Chemistry", "C121332964": "Physics", "C33923547": "Mathematics",
    "C15744967": "Psychology", "C127413603": "Engineering", "C142362112": "Art",
    "C144024400": "Sociology", "C144133560": "Business", "C162324750": "Economics",
    "C17744445": "Political science", "C192562407": "Materials science", "C205649164": "Geography",
    "C39432304": "Environmental science", "C95457728": "History", "C127313418": "Geology",
    "C138885662": "Philosophy",
}
TOPIC_DOMAINS = ("Life Sciences", "Social Sciences", "Physical Sciences", "Health Sciences")
TOPIC_FIELDS = (
    "Agricultural and Biological Sciences", "Arts and Humanities", "Biochemistry, Genetics and Molecular Biology",
    "Business, Management and Accounting", "Chemical Engineering", "Chemistry", "Computer Science",
    "Decision Sciences", "Dentistry", "Earth and Planetary Sciences", "Economics, Econometrics and Finance",
    "Energy", "Engineering", "Environmental Science", "Health Professions", "Immunology and Microbiology",
    "Materials Science", "Mathematics", "Medicine", "Neuroscience", "Nursing",
    "Pharmacology, Toxicology and Pharmaceutics", "Physics and Astronomy", "Psychology", "Social Sciences",
    "Veterinary",
)

GENERIC_NAMES = frozenset(name.casefold() for name in (*LEVEL0_CONCEPTS.values(), *TOPIC_DOMAINS, *TOPIC_FIELDS))


def is_generic(term_id: str | None = None, name: str | None = None) -> bool:
    """Whether a term (by its ID, else its name) is one of OpenAlex's generic fields."""
    if term_id is not None and str(term_id) in LEVEL0_CONCEPTS:
        return True
    return name is not None and " ".join(str(name).split()).casefold() in GENERIC_NAMES
