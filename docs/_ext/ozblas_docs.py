"""Generated parts of the ozblas documentation (registered in docs/conf.py).

Each directive reads the project's one source of truth at build time, so the pages cannot drift
from the code:

``ozblas-config-table``
    every OZBLAS_* variable, from config.c's table through the binding (ozblas.config.variables()).
"""

from __future__ import annotations

from docutils import nodes
from sphinx.util.docutils import SphinxDirective


def _table(header: list[str], rows: list[list[nodes.Node | str]], widths: list[int]) -> nodes.table:
    """A docutils table; a cell is a node or plain text."""
    table = nodes.table(classes=["ozblas-generated"])
    group = nodes.tgroup(cols=len(header))
    table += group
    for w in widths:
        group += nodes.colspec(colwidth=w)

    def row(cells):
        r = nodes.row()
        for c in cells:
            entry = nodes.entry()
            entry += c if isinstance(c, nodes.Node) else nodes.paragraph(text=c)
            r += entry
        return r

    head = nodes.thead()
    head += row([nodes.paragraph(text=h) for h in header])
    body = nodes.tbody()
    for cells in rows:
        body += row(cells)
    group += head
    group += body
    return table


def _literal(text: str) -> nodes.paragraph:
    p = nodes.paragraph()
    p += nodes.literal(text=text)
    return p


class ConfigTable(SphinxDirective):
    """Every OZBLAS_* variable: name, Python keyword, accepted values, default, meaning."""

    def run(self):
        from ozblas import config

        rows = []
        for v in config.variables().values():
            rows.append([_literal(v.name), _literal(v.keyword), v.accepted, v.default or "unset", v.meaning])
        return [_table(["variable", "keyword", "values", "default", "meaning"], rows, [18, 10, 24, 8, 40])]


def setup(app):
    app.add_directive("ozblas-config-table", ConfigTable)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
