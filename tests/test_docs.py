"""The documentation stays usable: the README is a short front door, every relative link in
it and in docs/ reaches a file (and a heading, for ``#anchor`` links), and
docs/architecture.md names every package of app/ and gridpath/. bench/ stays small."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
README_MAX_LINES = 200  # issue 21: the README is a front door, the manual is docs/
BENCH_MAX_LINES = 4500  # issue 21: bench/ had grown to 29 % of the code

# [text](target) outside code spans; images too. Targets with a scheme or mailto are external.
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)
FENCE = re.compile(r"^(```|~~~)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def prose_lines(path: Path) -> list[str]:
    """The file's lines outside fenced code blocks, inline code spans blanked."""
    lines, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(re.sub(r"`[^`]*`", "``", line))
    return lines


def github_anchor(heading: str) -> str:
    """GitHub's id for a heading: lower case, punctuation but ``-`` and ``_`` dropped, spaces
    to ``-`` (code spans keep their text)."""
    text = heading.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading id of a Markdown file, with GitHub's ``-1``, ``-2`` for repeats."""
    seen: dict[str, int] = {}
    found = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
        match = None if fenced else HEADING.match(line)
        if match:
            slug = github_anchor(match.group(1))
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def broken_links(path: Path) -> list[str]:
    problems = []
    for line in prose_lines(path):
        for target in LINK.findall(line):
            if EXTERNAL.match(target):
                continue
            file_part, _, anchor = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            if not linked.exists():
                problems.append(f"{target}: no such file")
            elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                problems.append(f"{target}: no heading #{anchor} in {linked.name}")
    return problems


def test_readme_is_a_short_front_door():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < README_MAX_LINES, f"README.md has {len(lines)} lines"


@pytest.mark.parametrize("path", [README, *DOCS], ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path):
    assert broken_links(path) == []


def test_the_link_check_sees_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Some `code` title (here)\n")
    page.write_text(
        "[ok](other.md#some-code-title-here) [gone](missing.md) [bad](other.md#nope)\n"
        "`[not a link](missing.md)`\n```\n[in code](missing.md)\n```\n[web](https://x.org)\n"
    )
    assert broken_links(page) == [
        "missing.md: no such file",
        "other.md#nope: no heading #nope in other.md",
    ]


def packages() -> list[str]:
    """Every package directory of the service and the library, as ``app/api/routes``."""
    found = []
    for top in ("app", "gridpath"):
        for init in sorted((ROOT / top).rglob("__init__.py")):
            found.append(init.parent.relative_to(ROOT).as_posix())
    return found


def test_architecture_names_every_package():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = [p for p in packages() if f"{p}/" not in text]
    assert packages() and missing == [], (
        f"docs/architecture.md does not mention {missing}: add them to its picture"
    )


def python_lines(folder: Path) -> int:
    """Lines of every ``*.py`` file under ``folder``."""
    return sum(len(p.read_text(encoding="utf-8").splitlines()) for p in folder.rglob("*.py"))


def test_bench_stays_under_its_line_budget(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    (tmp_path / "sub" / "b.py").write_text("z = 3\n")
    (tmp_path / "notes.md").write_text("not python\n")
    assert python_lines(tmp_path) == 3
    assert python_lines(ROOT / "bench") < BENCH_MAX_LINES
