"""Experiment (issue 13 follow-up): integer columns with a small public range one-hot.

Not a benchmark of the library as it is: it rewrites the *public* schema of
a panel table (``_panel_data.library_view``, the hand-written schema) so
that every integer numeric column without missing values whose public range
holds at most 100 integers becomes a categorical column of those integers,
fits DP-HP and DP-MERF (defaults, epsilon=1, delta=1e-5, random_state=0)
with the schema as it is ("numeric") and rewritten ("one-hot"), maps the
synthetic categories back to integers, and prints the panel's 1-way and
2-way marginal TV to the real train split and its utility on the real test
split (the panel's protocol, ``bench_panel.py``; nothing is chosen on the
test split). Usage, after the panel's one-time set-up::

    python benchmarks/experiment_integer_onehot.py adult
"""

import os
import sys
import warnings
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np, pandas as pd
import _panel_data as P
import bench_panel as B
from skdpgen import DPHPSynthesizer, DPMERFSynthesizer
from _common import machine_line
warnings.simplefilter('ignore')
name = sys.argv[1]
t = P.load_table(name, P.DEFAULT_DATA, seed=0)
X, lib = P.library_view(t.X_train, t.schema)
conv = []
for c, s in list(lib.items()):
    if s['type'] == 'numeric' and s.get('integer') and not s.get('missing'):
        lo, hi = int(np.ceil(s['bounds'][0])), int(np.floor(s['bounds'][1]))
        if hi - lo + 1 <= 100:
            conv.append(c)
            lib[c] = {'type': 'categorical', 'categories': list(range(lo, hi + 1))}
            X[c] = pd.Categorical(np.clip(np.round(X[c].astype(float)), lo, hi).astype(int), categories=list(range(lo, hi + 1)))
print(f"machine: {machine_line()}; load avg {os.getloadavg()[0]:.2f} at start")
print('one-hot:', conv)
for cls in (DPHPSynthesizer, DPMERFSynthesizer):
    for variant in ('numeric', 'one-hot'):
        if variant == 'numeric':
            Xf, sch = P.library_view(t.X_train, t.schema)
        else:
            Xf, sch = X, lib
        m = cls(schema=sch, classes=list(t.classes), random_state=0, device='cpu').fit(Xf, t.y_train)
        Xs, ys = m.sample(len(Xf), random_state=0)
        for c in conv:
            if variant == 'one-hot':
                Xs[c] = Xs[c].astype(int)
        Xs = P.from_library_view(Xs, t.schema)
        ys = np.asarray([P._norm_cat(v) for v in np.asarray(ys, dtype=object)], dtype=object)
        tv1, tv2 = B.fidelity(t, t.X_train, t.y_train, Xs, ys)
        u = B.utility(t, Xs, ys, t.X_test, t.y_test)
        print(f"{name} {cls.__name__:18s} {variant:8s} tv1 {tv1:.3f} tv2 {tv2:.3f} util {u}", flush=True)
