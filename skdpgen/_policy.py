"""What a policy is: a frozen dataclass whose every field states its rule.

The tuned choices of the library live in two policies, each in one frozen
instance, ``POLICY``: the schema estimate's (``EstimationPolicy``, in
:mod:`skdpgen.schema._policy`) and the synthesizers' (``SynthesisPolicy``,
in :mod:`skdpgen.synthesizers._policy`). Both are built from :func:`rule`
and :class:`Policy`, and their documentation tables from :func:`rst_table`.
"""

# Authors: the skdpgen developers
# License: BSD 3-Clause

from dataclasses import field, fields

__all__ = ["Policy", "rst_table", "rule"]


def rule(value, reason):
    """A policy's field: its ``value``, and its rule in one line (``reason``).

    Parameters
    ----------
    value : object
        The field's default (the policy's value).
    reason : str
        Its rule, in one line (the documentation's table shows it).

    Returns
    -------
    field : dataclasses.Field
    """
    return field(default=value, metadata={"reason": reason})


class Policy:
    """Base of a frozen policy dataclass whose every field is a ``rule``."""

    def table(self):
        """``(name, value, reason)`` of every field, in declaration order.

        Returns
        -------
        rows : list of tuple
            The documentation's table of the policy is generated from it.
        """
        return [(f.name, getattr(self, f.name), f.metadata["reason"]) for f in fields(self)]

    def rst(self, widths=(60, 6)):
        """The policy's table (field, rule, value) as reStructuredText.

        Parameters
        ----------
        widths : tuple of (int, int), default=(60, 6)
            Widths of the rule and value columns.

        Returns
        -------
        text : str
            The table the documentation shows.
        """
        return rst_table([(name, reason, value) for name, value, reason in self.table()],
                         head=("field", "rule", "value"), widths=widths)


def rst_table(rows, head, widths):
    """A table of ``(name, text, short)`` rows as reStructuredText (the
    module docstrings' generated tables).

    Parameters
    ----------
    rows : list of tuple
        ``(name, text, short)``: ``name`` is set as code, ``text`` wrapped.
    head : tuple of str
        The three column titles.
    widths : tuple of (int, int)
        Widths of the text and short columns.

    Returns
    -------
    text : str
    """
    import textwrap

    w0 = max(len(f"``{name}``") for name, _, _ in rows + [(head[0], "", "")])
    w1, w2 = widths
    lines = []
    border = f"{'=' * w0}  {'=' * w1}  {'=' * w2}"
    lines += [border, f"{head[0]:<{w0}}  {head[1]:<{w1}}  {head[2]}", border]
    for name, what, s in rows:
        wrapped = textwrap.wrap(str(what), w1) or [""]
        lines.append(f"{'``' + name + '``':<{w0}}  {wrapped[0]:<{w1}}  {s}")
        lines += [f"{'':<{w0}}  {part}" for part in wrapped[1:]]
    lines.append(border)
    return "\n".join(lines)
