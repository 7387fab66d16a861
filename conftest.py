"""Sybil: run every Python block of every page in docs/, and every ``>>>``
example of the docstrings under src/, under pytest.

The pages' parsers are :func:`attention_by_hand.book.prose.page_parsers`
(one list, also used by the tests); a page's ```` ```output ```` fences are
checked against what its blocks print.
"""

from sybil import Sybil
from sybil.parsers.rest import DocTestParser

from attention_by_hand.book.prose import page_parsers, setup_namespace

pytest_collect_file = (
    Sybil(parsers=page_parsers(), patterns=["*.md"], path="docs", setup=setup_namespace)
    + Sybil(parsers=[DocTestParser()], patterns=["*.py"], path="src", name="docstrings")
).pytest()
