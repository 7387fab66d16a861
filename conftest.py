"""pytest for the book: each page of docs/ is checked completely, with its Python blocks,
and each docstring example under src/ runs (:mod:`attention_by_hand.book.pytest_pages`)."""

from pathlib import Path

from attention_by_hand.book.pytest_pages import book_collector

pytest_collect_file = book_collector(Path(__file__).resolve().parent)
