"""A mechanism and a generator each take two files: a module in its folder and a line.

The architecture page promises (issue 64) that a new mechanism is its module in
``skdpgen/synthesizers/mechanisms/`` plus one import line in that folder's
``__init__.py``, and a new generator its module in
``skdpgen/synthesizers/generators/`` plus one line in that folder's ``__init__.py``.
These tests make exactly those two edits to a copy of the package (the page's own
two-scale sketch, with its preset, for the mechanism) and use the result from a
fresh interpreter: exported by :mod:`skdpgen.synthesizers`, registered for the
command line, fitted.
"""

import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import skdpgen

PACKAGE = Path(skdpgen.__file__).parent
DOC = PACKAGE.parent / "doc" / "architecture.rst"


def _sketch():
    """The code block of the page's "A sketch of .../twoscale.py" paragraph."""
    text = DOC.read_text()
    start = text.index("A sketch of ``skdpgen/synthesizers/mechanisms/twoscale.py``")
    block = text[text.index(".. code-block:: python", start):]
    body = block.split("\n\n", 1)[1]
    lines = []
    for line in body.splitlines():
        if line and not line.startswith("    "):
            break
        lines.append(line[4:])
    return "\n".join(lines)


def _copy(tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(PACKAGE, root / "skdpgen",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _register(init, line, name):
    """One import line in a folder's ``__init__.py``, and the name in its ``__all__``."""
    text = init.read_text()
    text = re.sub(r"(\n__all__ = \[\n)", f"\n{line}\n\\1", text, count=1)
    text = text.replace("__all__ = [\n", f'__all__ = [\n    "{name}",\n', 1)
    init.write_text(text)


def _run(root, code):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=root,
                          capture_output=True, text=True, timeout=300)


def test_a_mechanism_with_its_preset_is_its_module_and_one_line(tmp_path):
    root = _copy(tmp_path)
    folder = root / "skdpgen" / "synthesizers" / "mechanisms"
    (folder / "twoscale.py").write_text(_sketch())
    _register(folder / "__init__.py", "from .twoscale import TwoScaleMechanism",
              "TwoScaleMechanism")
    done = _run(root, """
        import numpy as np
        import skdpgen
        from skdpgen.registry import methods
        from skdpgen.synthesizers import GeneratorSpec, Synthesizer, TwoScaleMechanism
        assert skdpgen.__file__.startswith(%r)
        assert "twoscale" in methods()
        X = np.random.default_rng(0).uniform(size=(200, 2))
        schema = {0: {'type': 'numeric', 'bounds': [0, 1]}, 1: {'type': 'numeric', 'bounds': [0, 1]}}
        model = Synthesizer(mechanism=TwoScaleMechanism(short=0.3),
                            generator=GeneratorSpec(batch_size=50), epochs=2, schema=schema,
                            steps_per_epoch=2, random_state=0).fit(X)
        names = sorted(set(model.privacy_report_.to_frame()['release']) & {'short', 'long'})
        print(names, model.sample(3)[0].shape)
    """ % str(root))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "['long', 'short']" in done.stdout and "(3, 2)" in done.stdout


def test_a_generator_is_its_module_and_one_line(tmp_path):
    root = _copy(tmp_path)
    folder = root / "skdpgen" / "synthesizers" / "generators"
    (folder / "linear.py").write_text(textwrap.dedent('''
        """A linear generator: one layer from the latent rows to the encoded rows."""

        import torch
        from torch import nn

        from ._base import GeneratorSpec


        class Linear(nn.Module):
            def __init__(self, noise_dim, n_numeric, category_sizes):
                super().__init__()
                self.sizes = [n_numeric, *category_sizes]
                self.layer = nn.Linear(noise_dim, sum(self.sizes))

            def reset_parameters(self, generator):
                nn.init.uniform_(self.layer.weight, -0.1, 0.1, generator=generator)

            def forward(self, z, labels=None):
                numeric, *blocks = torch.split(self.layer(z), self.sizes, dim=1)
                return torch.cat([torch.tanh(numeric)]
                                 + [torch.softmax(b, dim=1) for b in blocks], dim=1)


        class LinearSpec(GeneratorSpec):
            """A one-layer generator."""

            def build(self, n_classes, encoder, generator):
                net = Linear(self.noise_dim, encoder.n_numeric_, encoder.category_sizes_)
                net.reset_parameters(generator)
                return net
    '''))
    _register(folder / "__init__.py", "from .linear import LinearSpec", "LinearSpec")
    done = _run(root, """
        import numpy as np
        import skdpgen
        from skdpgen.synthesizers import LinearSpec, Synthesizer
        assert skdpgen.__file__.startswith(%r)
        X = np.random.default_rng(0).uniform(size=(200, 2))
        schema = {0: {'type': 'numeric', 'bounds': [0, 1]}, 1: {'type': 'numeric', 'bounds': [0, 1]}}
        model = Synthesizer(generator=LinearSpec(batch_size=50), epochs=2, schema=schema,
                            steps_per_epoch=2, random_state=0).fit(X)
        print(type(model.network_).__name__, model.sample(3)[0].shape)
    """ % str(root))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Linear (3, 2)" in done.stdout
