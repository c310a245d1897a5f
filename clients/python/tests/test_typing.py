"""What a type checker sees of the client: mypy over the package, and over
a program that uses both clients as the README does (an async method
awaited, a blocking one not)."""

import pathlib
import subprocess
import sys

import pytest

PKG = pathlib.Path(__file__).resolve().parents[1] / "src" / "engram_client"

USE = '''
import asyncio
from engram_client import AsyncEngram, Engram, models

def blocking(c: Engram) -> str:
    hits: models.SearchResponse = c.memories.search(query="q", user_id="u")
    return hits.results[0].memory

async def concurrent(c: AsyncEngram) -> str:
    hits: models.SearchResponse = await c.memories.search(query="q", user_id="u")
    job: models.Job = await c.jobs.wait("id")
    return hits.results[0].memory + job.status
'''


def test_mypy_accepts_the_package_and_its_use(tmp_path):
    pytest.importorskip("mypy")
    use = tmp_path / "use.py"
    use.write_text(USE)
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", str(PKG), str(use)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert out.returncode == 0, out.stdout + out.stderr
