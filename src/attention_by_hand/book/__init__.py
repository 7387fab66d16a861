"""Build-time machinery of the Attention by Hand site (needs the ``docs`` extra).

:mod:`attention_by_hand.book.plugin` is the MkDocs plugin ``mkdocs.yml``
lists as ``book``; it calls the feature libraries beside it (figures, demos,
quizzes, sources, lesson checks, the notebook page, maths), which know
nothing of the plugin and can be used and tested without MkDocs running.
Nothing in this subpackage is needed to use the maths.
"""
