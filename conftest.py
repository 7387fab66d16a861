"""Sybil: run every Python block of every page in docs/ under pytest."""

from sybil import Sybil
from sybil.parsers.markdown import ClearNamespaceParser, SkipParser

from attention_by_hand.book.prose import PythonBlockParser, setup_namespace

pytest_collect_file = Sybil(
    parsers=[PythonBlockParser(), SkipParser(), ClearNamespaceParser()],
    patterns=["*.md"],
    path="docs",
    setup=setup_namespace,
).pytest()
