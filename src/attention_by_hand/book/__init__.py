"""Build-time machinery of the Attention by Hand site (needs the ``docs`` extra).

The MkDocs hooks listed in ``mkdocs.yml`` live here, beside the registry of
figures they draw. Nothing in this subpackage is needed to use the maths.
"""
