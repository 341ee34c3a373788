"""The command line's synthetic table, sampled and written a chunk of rows at a time,
and the progress lines of a command on standard error (:func:`progress_lines`).

``skdpgen synthesize`` writes as many rows as the input had (or
``--n-samples``): they are drawn ``OUTPUT_ROWS`` at a time, each chunk with its
own seed spawned from ``--random-state`` (:class:`numpy.random.SeedSequence`:
public, the same seeds for the same option), decoded, appended to the file
and dropped, so that the memory of writing does not grow with the number of
rows. The output is the same for the same ``--random-state`` and number of
rows; it is not the same as one call of the estimator's ``sample`` with that
seed.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

import sys
import time
from pathlib import Path

from ._cli_files import UsageError

__all__ = ["OUTPUT_ROWS", "chunk_sizes", "progress_lines", "synthetic_chunks",
           "write_chunks"]

#: Rows sampled, decoded and written at a time.
OUTPUT_ROWS = 100_000


def chunk_sizes(n, rows=None):
    """The sizes of the chunks of ``n`` rows: as few as hold at most ``rows``
    (default ``OUTPUT_ROWS``) each, as equal as can be (none much smaller than the
    others)."""
    rows = OUTPUT_ROWS if rows is None else rows
    count = max(1, -(-n // rows))
    return [n // count + (i < n % count) for i in range(count)]


def round_integer_columns(frame, schema):
    """Declared integer columns rounded to int64 (the public output type)."""
    import numpy as np

    from .schema import kind_of

    for col, spec in schema.items():
        if col in frame and kind_of(spec).is_numeric and spec.get("integer"):
            frame[col] = np.round(frame[col].to_numpy(dtype=float)).astype(np.int64)
    return frame


def synthetic_chunks(model, n, random_state, *, target, columns, feature_columns,
                     feature_schema):
    """``n`` synthetic rows of the fitted ``model`` as tables of at most
    ``OUTPUT_ROWS`` rows, in the columns written (``columns``, the ``target``'s
    included), each sampled with its own seed spawned from ``random_state`` (an
    int or None); a releaser's arrays as tables, its declared integer columns
    rounded."""
    import numpy as np
    import pandas as pd

    sizes = chunk_sizes(n)
    seeds = np.random.SeedSequence(random_state).spawn(len(sizes))
    for size, seed in zip(sizes, seeds):
        out = model.sample(size, random_state=np.random.default_rng(seed))
        Xs, ys = out if isinstance(out, tuple) else (out, None)  # a releaser samples rows only
        if target is not None:
            yield Xs.assign(**{target: ys})[columns]
        elif not hasattr(Xs, "columns"):
            yield round_integer_columns(pd.DataFrame(Xs, columns=feature_columns), feature_schema)
        else:
            yield Xs


def write_chunks(chunks, path):
    """Write the tables ``chunks`` one after another as one CSV file (the header once)
    or one Parquet file (a row group each, the first chunk's types), holding one at a
    time."""
    path = Path(path)
    if path.suffix.lower() not in {".parquet", ".pq"}:
        with open(path, "w", newline="") as fh:
            for i, frame in enumerate(chunks):
                # pandas formats a datetime column of midnights as dates, per chunk:
                # chunks of tens of thousands of rows agree but on a degenerate column
                frame.to_csv(fh, index=False, header=i == 0)
        return
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise UsageError(f"writing Parquet needs pyarrow ({exc})") from None
    writer = None
    try:
        for frame in chunks:
            if writer is None:
                table = pa.Table.from_pandas(frame, preserve_index=False)
                writer = pq.ParquetWriter(path, table.schema)
            else:
                table = pa.Table.from_pandas(frame, schema=writer.schema, preserve_index=False)
            writer.write_table(table)
    finally:
        if writer is not None:
            writer.close()


def progress_lines(command, quiet=False):
    """A function that says on standard error what ``command`` is doing, with the
    seconds since this call (nothing when ``quiet``), one line a step, so that a
    command is never silent for long: ``demo: fitting ... (at 4 s)``."""
    start = time.perf_counter()

    def step(what):
        if not quiet:
            print(f"{command}: {what} (at {time.perf_counter() - start:.0f} s)",
                  file=sys.stderr, flush=True)

    return step
