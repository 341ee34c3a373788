"""Every Python code block of the README and the documentation runs as written.

Issue 63: each ``.. code-block:: python`` of ``doc/**/*.rst`` and each
```` ```python ```` block of ``README.md`` is a test (id ``file:line``), run
with :func:`exec` in a fresh namespace, in a temporary working directory,
with matplotlib's Agg backend, small synthesizer fits (``fast_python_fits``)
and a time budget. A name a block uses must be defined by the block itself,
or by a block of the same page marked as the page's shared setting: an rst
comment ``.. shared setting: ...`` just before its directive (the page's
prose says so too, e.g. "The examples below share one setting"); every later
block of that page runs after it. The console blocks of Getting started are
produced by running their commands at build time (``doc/_console.py``).
"""

import re
import signal
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]

#: Seconds one block (with its page's shared setting) may take, fits small.
BUDGET_S = 30

#: Blocks that tests/test_docs.py already runs (and checks what they print),
#: found by a piece of their code, not run twice.
RUN_IN_TEST_DOCS = {
    "plan_search(search, X)": "test_docs.py::test_the_tuning_search_of_the_privacy_page_runs",
    "private_accuracy_scorer()":
        "test_docs.py::test_the_scorer_example_of_the_evaluation_page_runs",
}


@dataclass
class Block:
    path: str
    line: int
    code: str
    setting: bool = False

    def __str__(self):
        return f"{self.path}:{self.line}"


def _rst_blocks(path):
    lines = (ROOT / path).read_text().splitlines()
    blocks = []
    for i, line in enumerate(lines):
        if line.strip() != ".. code-block:: python":
            continue
        indent = len(line) - len(line.lstrip())
        body = []
        for text in lines[i + 1:]:
            if text.strip() and len(text) - len(text.lstrip()) <= indent:
                break
            body.append(text)
        body = [text for text in body if not text.strip().startswith(":")]  # options
        before = [text for text in lines[:i] if text.strip()]
        setting = bool(before) and before[-1].strip().startswith(".. shared setting:")
        blocks.append(Block(path, i + 1, textwrap.dedent("\n".join(body)).strip("\n"), setting))
    return blocks


def _markdown_blocks(path):
    text = (ROOT / path).read_text()
    return [Block(path, text[:match.start()].count("\n") + 1, match.group(1))
            for match in re.finditer(r"^```python\n(.*?)^```", text, re.M | re.S)]


def _blocks():
    pages = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "doc").rglob("*.rst"))
    blocks = _markdown_blocks("README.md")
    for page in pages:
        blocks += _rst_blocks(page)
    return blocks


BLOCKS = _blocks()


def _settings(block):
    """The shared settings of ``block``'s page that come before it."""
    return [b for b in BLOCKS if b.path == block.path and b.setting and b.line < block.line]


def _params():
    for block in BLOCKS:
        already = [test for piece, test in RUN_IN_TEST_DOCS.items() if piece in block.code]
        marks = [pytest.mark.skip(reason=f"run by {already[0]}")] if already else []
        yield pytest.param(block, id=str(block), marks=marks)


def test_the_blocks_are_found():
    """Every page with a python block is read (issue 63 counted 27 blocks)."""
    assert len(BLOCKS) >= 27
    assert {b.path for b in BLOCKS} >= {"README.md", "doc/architecture.rst", "doc/evaluation.rst",
                                         "doc/getting_started.rst", "doc/release.rst",
                                         "doc/user_guide/privacy.rst", "doc/user_guide/scale.rst",
                                         "doc/user_guide/synthesizers.rst"}
    assert all(block.code.strip() for block in BLOCKS)
    for piece in RUN_IN_TEST_DOCS:
        assert sum(piece in block.code for block in BLOCKS) == 1, piece


def _out_of_time(signum, frame):
    raise TimeoutError(f"the block took more than {BUDGET_S} s")


@pytest.fixture
def doc_block_run(tmp_path, monkeypatch, fast_python_fits):
    """Temporary working directory, Agg backend, registries restored, time budget."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from skdpgen import registry
    from skdpgen.schema.kinds import _registry as kinds

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(registry, "_METHODS", dict(registry._METHODS))  # @register in a block
    saved = [(table, dict(table)) for table in (kinds.KINDS, kinds._DECLARABLE)]
    previous = signal.signal(signal.SIGALRM, _out_of_time)
    signal.setitimer(signal.ITIMER_REAL, BUDGET_S)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        plt.close("all")
        for table, before in saved:  # register_kind in a block (shared, not replaced)
            table.clear()
            table.update(before)


def _exec(block, namespace):
    exec(compile(block.code, str(block), "exec"), namespace)  # noqa: S102 - our own docs
    return namespace


#: The namespace each shared setting leaves (run once; blocks get a copy).
_SETTINGS = {}


def run_block(block):
    """Execute ``block`` in a fresh namespace: a copy of what its page's shared
    settings define (each run once, by its own test or the first block after it)."""
    namespace = {"__name__": "__doc_block__"}
    for setting in _settings(block):
        if str(setting) not in _SETTINGS:
            _SETTINGS[str(setting)] = _exec(setting, dict(namespace))
        namespace = dict(_SETTINGS[str(setting)])
    namespace = _exec(block, namespace)
    if block.setting:
        _SETTINGS[str(block)] = dict(namespace)
    return namespace


@pytest.mark.parametrize("block", _params())
def test_block_runs(block, doc_block_run):
    start = time.perf_counter()
    run_block(block)
    assert time.perf_counter() - start < BUDGET_S
