"""Shown output: what a page's Python block prints, written under it.

A lesson shows a block's output in a fence with the info string ``output``
directly after the block (only blank lines between)::

    ```python
    print(0.75 * 2 + 0.25 * 10)
    ```

    ```output
    4.0
    ```

The tests run the block and compare what it prints with the fence
(:func:`output_mismatch`, called by the page's Sybil evaluator in
:mod:`attention_by_hand.book.prose`); the build only displays the fence
(:func:`render_output`), it never runs the code. This module is a plain
library: no MkDocs, no Sybil, no state.
"""

from __future__ import annotations

import html

__all__ = ["OUTPUT_LANGUAGE", "normalise_output", "output_mismatch", "render_output"]

#: The info string of a shown-output fence.
OUTPUT_LANGUAGE = "output"


def normalise_output(text: str) -> str:
    """`text` without white space at the ends of its lines and without trailing blank lines.

    Editors strip trailing white space and a fence cannot show it, so the
    comparison ignores it; everything else must be equal.

    Examples
    --------
    >>> normalise_output("[0.75 0.25]  \\n4.0\\n\\n")
    '[0.75 0.25]\\n4.0'
    """
    return "\n".join(line.rstrip() for line in text.splitlines()).rstrip("\n")


def output_mismatch(
    printed: str, shown: str | None, *, where: str, shown_line: int | None = None
) -> str | None:
    """The message for a block whose shown output is not what it prints, else None.

    Parameters
    ----------
    printed : str
        What the block wrote to standard output when it ran.
    shown : str or None
        The text of the ```` ```output ```` fence under the block, or None
        when there is no such fence.
    where : str
        The page and the line of the block, e.g.
        ``"docs/lessons/x.md, block at line 12"``.
    shown_line : int, optional
        The line of the output fence.

    Examples
    --------
    >>> output_mismatch("4.0\\n", "4.0", where="page.md, block at line 3") is None
    True
    >>> print(output_mismatch("4.0\\n", None, where="page.md, block at line 3"))
    page.md, block at line 3 prints but shows no output; add an ```output fence right after the block with:
    4.0
    """
    if not isinstance(printed, str) or not (shown is None or isinstance(shown, str)):
        raise TypeError(
            f"output_mismatch() compares text; got printed={printed!r}, shown={shown!r}"
        )
    got = normalise_output(printed)
    if shown is None:
        if not got:
            return None
        return (
            f"{where} prints but shows no output; add an ```{OUTPUT_LANGUAGE} fence right "
            f"after the block with:\n{got}"
        )
    if got == normalise_output(shown):
        return None
    fence = f"the ```{OUTPUT_LANGUAGE} fence" + (f" at line {shown_line}" if shown_line else "")
    if not got:
        return f"{where} prints nothing, but {fence} shows:\n{normalise_output(shown)}"
    return (
        f"{where}: {fence} does not show what the block prints. It shows:\n"
        f"{normalise_output(shown)}\nThe block prints:\n{got}\n"
        f"Fix the code or copy what it prints into the fence"
    )


def render_output(text: str) -> str:
    """The HTML of a shown-output fence: labelled, styled apart from code, no script.

    Styled by ``docs/stylesheets/output.css`` (class ``abh-output``). The
    signature is plain, so a build step can call it with the fence's text.

    Examples
    --------
    >>> print(render_output("[0.75 0.25] 4.0 <ok>\\n"))
    <div class="abh-output" role="group" aria-label="Output"><p class="abh-output__label" aria-hidden="true">Output</p><pre><samp>[0.75 0.25] 4.0 &lt;ok&gt;</samp></pre></div>
    """
    if not isinstance(text, str):
        raise TypeError(f"render_output() needs the fence's text; got {type(text).__name__}")
    return (
        '<div class="abh-output" role="group" aria-label="Output">'
        '<p class="abh-output__label" aria-hidden="true">Output</p>'
        f"<pre><samp>{html.escape(normalise_output(text), quote=False)}</samp></pre></div>"
    )


def superfence_format(
    source: str, language: str, css_class: str, options: object, md: object, **kwargs: object
) -> str:
    """:func:`render_output` with the signature of a ``pymdownx.superfences`` custom fence.

    One way to wire it without a plugin, in ``mkdocs.yml``::

        - pymdownx.superfences:
            custom_fences:
              - name: output
                class: abh-output
                format: !!python/name:attention_by_hand.book.output.superfence_format
    """
    return render_output(source)
