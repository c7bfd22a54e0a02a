"""Generated parts of the ozblas documentation (registered in docs/conf.py).

Each directive reads the project's one source of truth at build time, so the pages cannot drift
from the code:

``ozblas-config-table``
    every OZBLAS_* variable, from config.c's table through the binding (ozblas.config.variables()).
``ozblas-shim-table`` (argument ``blas``, ``lapack`` or ``cublas``)
    the names the preload shim exports: the host lists and their forms from the one table of
    names, native/src/shim/shim_names.h (its routine lists read by ozblas.shim_stats, the
    forms expanded here as shim.c expands them); the cuBLAS entries from the ``*_ENTRY(name``
    lines that define them in native/src/shim/shim_cublas.c.
``ozblas-c-api``
    the public C API: every declaration between OZBLAS_CDEF_BEGIN and OZBLAS_CDEF_END of
    native/include/ozblas.h (the block the Python binding reads) with the comment before it,
    one section per ``/* ---- Title ----`` marker.
A list these cannot read (a header changed shape) raises, so the build fails instead of
printing an empty table.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]


def _table(header: list[str], rows: list[list[nodes.Node | str]], widths: list[int]) -> nodes.table:
    """A docutils table; a cell is a node or plain text."""
    table = nodes.table(classes=["ozblas-generated", "colwidths-given"])
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
    """Every OZBLAS_* variable: name and Python keyword, accepted values, default, meaning."""

    def run(self):
        from ozblas import config

        rows = []
        for v in config.variables().values():
            name = _literal(v.name)
            name += nodes.Text(" (keyword ")
            name += nodes.literal(text=v.keyword)
            name += nodes.Text(")")
            rows.append([name, v.accepted, v.default or "unset", v.meaning])
        return [_table(["variable", "values", "default", "meaning"], rows, [24, 26, 10, 40])]


def _shim_forms(macro: str) -> list[tuple[str, str, str]]:
    """The forms of one routine r in a ``#define macro(V, r)`` of shim_names.h, as
    (symbol pattern with r, api, integer type): V(r, scipy_##r##_64_, F77, int64_t) gives
    ("scipy_{r}_64_", "F77", "int64_t")."""
    text = (ROOT / "native/src/shim/shim_names.h").read_text().replace("\\\n", " ")
    m = re.search(r"^#define\s+" + macro + r"\(\s*V\s*,\s*r\s*\)([^\n]*)", text, re.M)
    if not m:
        raise RuntimeError(f"shim_names.h: no #define {macro}(V, r)")
    forms = []
    for sym, api, integer in re.findall(r"\bV\(\s*r\s*,\s*([\w#]+)\s*,\s*(\w+)\s*,\s*(\w+)\s*\)", m.group(1)):
        forms.append(("".join("{r}" if part == "r" else part for part in sym.split("##")), api, integer))
    if not forms:
        raise RuntimeError(f"shim_names.h: {macro} lists no form")
    return forms


def _names(names: list[str]) -> nodes.paragraph:
    p = nodes.paragraph()
    for i, n in enumerate(names):
        if i:
            p += nodes.Text(" ")
        p += nodes.literal(text=n)
    return p


class ShimTable(SphinxDirective):
    """The routines the preload shim exports, each with every exported name."""

    required_arguments = 1

    def run(self):
        from ozblas.shim_stats import _shim_lists

        which = self.arguments[0]
        lists = _shim_lists()
        if which == "blas":
            forms = _shim_forms("OZ_SHIM_VARIANTS")
            routines = lists["OZ_SHIM_ROUTINES"] + lists["OZ_SHIM_BLAS3_ROUTINES"]
        elif which == "lapack":
            forms = _shim_forms("OZ_SHIM_LAPACK_VARIANTS")
            routines = lists["OZ_SHIM_LAPACK_ROUTINES"] + lists["OZ_SHIM_QR_ROUTINES"]
        elif which == "cublas":
            src = (ROOT / "native/src/shim/shim_cublas.c").read_text()
            entries = re.findall(r"^[A-Z0-9_]+_ENTRY\((cublas\w+)[,)]", src, re.M)
            if not entries:
                raise RuntimeError("shim_cublas.c: no *_ENTRY(cublas...) line")
            groups: dict[str, list[str]] = {}
            for e in entries:  # the _64 form beside its 32-bit one
                groups.setdefault(e.removesuffix("_64"), []).append(e)
            rows = [[_literal(base), _names(names)] for base, names in groups.items()]
            return [_table(["entry", "exported names"], rows, [20, 60])]
        else:
            raise self.error(f"ozblas-shim-table: unknown list {which!r} (blas, lapack, cublas)")
        if not routines:
            raise RuntimeError(f"shim_names.h: no routine in the {which} lists")
        rows = [[_literal(r), _names([f.format(r=r) for f, _, _ in forms])] for r in routines]
        legend = nodes.paragraph(text="Forms, in order: " + "; ".join(
            f"{f.format(r='r')} ({api}, {'ILP64' if integer == 'int64_t' else 'LP64'})"
            for f, api, integer in forms) + ".")
        return [legend, _table(["routine", "exported names"], rows, [12, 68])]


_CDEF = re.compile(r"/\* OZBLAS_CDEF_BEGIN \*/\n(.*)/\* OZBLAS_CDEF_END \*/", re.S)
_SECTION = re.compile(r"^-{2,}\s*(.*?)\s*-{2,}$")


def _comment_lines(text: str) -> list[str]:
    """A /* ... */ comment's lines without the comment marks and the leading ' * '."""
    body = text.strip()[2:-2]
    out = []
    for line in body.split("\n"):
        line = line.rstrip()
        s = line.lstrip()
        out.append(s[1:] if s.startswith("*") else line)
    while out and not out[0].strip():
        out.pop(0)
    return out


def _header_items(text: str):
    """The CDEF block as items: ("section", title, intro lines), or ("decl", comment lines,
    code). A top-level comment (at brace depth 0, starting its line) documents the code after
    it up to the next top-level comment or blank line."""
    m = _CDEF.search(text)
    if not m:
        raise RuntimeError("ozblas.h: no OZBLAS_CDEF_BEGIN ... OZBLAS_CDEF_END block")
    lines = m.group(1).split("\n")
    items, doc, code, depth, i = [], None, [], 0, 0

    def flush():
        nonlocal doc, code
        if code:
            items.append(("decl", doc or [], "\n".join(code)))
        elif doc:
            items.append(("decl", doc, ""))
        doc, code = None, []

    while i < len(lines):
        line = lines[i]
        if depth == 0 and line.lstrip().startswith("/*"):
            flush()
            j = i
            while "*/" not in lines[j]:
                j += 1
            comment = _comment_lines("\n".join(lines[i:j + 1]))
            i = j + 1
            head = _SECTION.match(comment[0].strip()) if comment else None
            if head:
                items.append(("section", head.group(1), comment[1:]))
            else:
                doc = comment
            continue
        if not line.strip():
            flush()
        else:
            code.append(line)
            depth += line.count("{") - line.count("}")
        i += 1
    flush()
    return items


def _prose(lines: list[str]) -> list[nodes.Node]:
    """Comment lines as paragraphs, with lines indented deeper than the text as a literal block."""
    out, para, lit = [], [], []
    for line in lines + [""]:
        if line.startswith("   ") and line.strip():
            if para:
                out.append(nodes.paragraph(text=" ".join(para)))
                para = []
            lit.append(line.strip())
            continue
        if lit:
            out.append(nodes.literal_block(text="\n".join(lit)))
            lit = []
        if line.strip():
            para.append(line.strip())
        elif para:
            out.append(nodes.paragraph(text=" ".join(para)))
            para = []
    return out


class CApi(SphinxDirective):
    """The C API page's body, from ozblas.h."""

    def run(self):
        path = ROOT / "native/include/ozblas.h"
        self.env.note_dependency(str(path))
        out, section = [], None

        def new_section(title):
            s = nodes.section(ids=[nodes.make_id("c-api-" + title)], names=[nodes.fully_normalize_name(title)])
            s += nodes.title(text=title)
            self.state.document.note_implicit_target(s)
            out.append(s)
            return s

        section = new_section("Types, options and the products")
        for kind, a, b in _header_items(path.read_text()):
            if kind == "section":  # "Title (file): what it is" -> the title, then the rest
                title, _, rest = a.partition(": ")
                section = new_section(title)
                section += _prose(([rest] if rest else []) + b)
            else:
                section += _prose(a)
                if b:
                    block = nodes.literal_block(text=b, language="c")
                    section += block
        return out


def setup(app):
    app.add_directive("ozblas-config-table", ConfigTable)
    app.add_directive("ozblas-shim-table", ShimTable)
    app.add_directive("ozblas-c-api", CApi)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
