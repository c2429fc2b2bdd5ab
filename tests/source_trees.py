"""The project's Python files as syntax trees, each parsed once per test process: the checks of
the code's shape (its imports and layers, its functions' lengths, its conventions) each walk
every module, and none of them changes a tree."""

from __future__ import annotations

import ast
import functools
from pathlib import Path


@functools.cache
def parsed(source: str) -> ast.Module:
    """The syntax tree of ``source`` (shared: read it, never change it)."""
    return ast.parse(source)


def syntax_tree(path: Path) -> ast.Module:
    """The syntax tree of the file at ``path`` as it is now."""
    return parsed(path.read_text(encoding="utf-8"))
