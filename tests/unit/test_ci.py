"""The CI workflow installs bib2graph from its repository: on PyPI the name is an unrelated project's."""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml
from packaging.requirements import InvalidRequirement, Requirement

WORKFLOW = Path(__file__).resolve().parents[2] / "docs" / "ci" / "regenerate-networks.yml"
_SEPARATORS = {"&&", "||", ";", "|"}


def pip_install_args(script: str) -> list[str]:
    """The package arguments of every `pip install` (or `python -m pip install`) in a shell script."""
    found = []
    for line in script.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)  # `;`, `&&`, `|` as their own words
        lexer.whitespace_split = True
        words = list(lexer)
        for i in range(len(words) - 1):
            if words[i] == "pip" and words[i + 1] == "install":
                rest = words[i + 2:]
                end = next((j for j, w in enumerate(rest) if w in _SEPARATORS), len(rest))
                found += [w for w in rest[:end] if not w.startswith("-")]
    return found


def names_bib2graph(arg: str) -> Requirement | None:
    try:
        requirement = Requirement(arg)
    except InvalidRequirement:  # a path or a bare URL: not a look-up by name
        return None
    return requirement if requirement.name.lower() == "bib2graph" else None


def test_pip_install_args_are_read_from_scripts():
    script = 'echo hi && pip install -q "bib2graph==0.1.*" rich\npython -m pip install bib2graph; b2g run'
    assert pip_install_args(script) == ["bib2graph==0.1.*", "rich", "bib2graph"]


def test_bib2graph_is_installed_by_direct_reference_only():
    steps = [step for job in yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"].values()
             for step in job["steps"]]
    installs = [arg for step in steps if "run" in step for arg in pip_install_args(step["run"])]
    requirements = [r for r in map(names_bib2graph, installs) if r is not None]
    assert requirements, "the workflow no longer installs bib2graph"
    for requirement in requirements:
        assert requirement.url and requirement.url.startswith("git+"), f"{requirement} would ask an index"
        assert "@" in requirement.url.removeprefix("git+").split("/")[-1], f"{requirement} pins no tag"
