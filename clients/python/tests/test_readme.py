"""The README's Python snippets run as written, against the live server."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[3]


def snippets(path: pathlib.Path):
    text = path.read_text()
    return [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "engram_client" in b]


def test_the_readme_snippets_run(live, capsys):
    blocks = snippets(ROOT / "README.md") + snippets(ROOT / "clients/python/README.md")
    assert len(blocks) >= 4, "the snippets are found"
    for block in blocks:
        exec(compile(block, "README snippet", "exec"), {"__name__": "__readme__"})
    out = capsys.readouterr().out
    assert "Lisbon" in out, out
