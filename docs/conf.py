"""Sphinx configuration of the ozblas documentation.

Built by `python -m sphinx -W --keep-going -b html docs build/docs` (.ci/run does so): every
warning is an error, so a stale reference fails CI. Nothing here reaches the network (no
intersphinx): CI may have none. The configuration table, the shim's routine list and the C API
page are generated at build time (docs/_ext/ozblas_docs.py) from the library itself, so the
package must be installed (`pip install -e '.[test,docs]'`).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "_ext"))

project = "ozblas"
author = "the ozblas developers"
copyright = "the ozblas developers"

import ozblas  # noqa: E402  (the installed package: its version and docstrings)

release = version = ozblas.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "ozblas_docs",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 4  # `[text](page.md#a-heading)` links to headings

# numpydoc renders the docstrings; autosummary writes no stub pages (python.md lists members
# with autofunction/autoclass), so the build writes nothing into the source tree.
autosummary_generate = False
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
autodoc_member_order = "bysource"

html_theme = "pydata_sphinx_theme"
html_title = f"ozblas {release}"
html_theme_options = {
    "navigation_depth": 2,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
# The user guide's pages stand alone: no empty section navigation beside them.
html_sidebars = {page: [] for page in (
    "index", "getting-started", "activation", "configuration", "accuracy", "exact", "gpu", "fp4",
    "policy", "lapack", "lapack-eigen", "lapack-svd", "distributed", "testing", "api/python", "api/c")}
html_static_path = []
