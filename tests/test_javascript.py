"""The book's JavaScript: one core, twins that name each other, and ESLint.

- ``docs/javascripts/core.js`` holds what the scripts share, on one global,
  ``window.abh``; no other script defines a global, and a script reaches the
  part another script adds (``abh.answers``, ``abh.exercise`` ...) only through
  ``abh.needs``, which says in the console when that script did not load first.
- A script's function and its Python twin name each other, in one form:
  ``// Python twin: attention_by_hand.module.function`` on the line above the
  JavaScript function, ``# JavaScript twin: file.js functionName`` above the
  Python ``def`` or ``class``. Every such comment must name a function that
  exists, and its twin must name it back; every ``.py`` file a script's
  comments name and every ``.js`` file the package's comments name must exist.
- ESLint, as tests/package-lock.json locks it, finds nothing in the book's
  JavaScript with the rules of tests/eslint.config.mjs (`make lint` runs the
  same command); without Node.js and npm the test is skipped (under CI=true it
  fails).
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from project import missing

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "docs" / "javascripts"
PACKAGE = ROOT / "src" / "attention_by_hand"
CORE = SCRIPTS / "core.js"
ESLINT = ROOT / "tests" / "node_modules" / ".bin" / "eslint"
ESLINT_CONFIG = "tests/eslint.config.mjs"
#: What ESLint reads: the book's own scripts (the vendored iframe-worker shim is not).
LINTED = ("docs/javascripts", "overrides/assets/javascripts/lazy-search.js")

PYTHON_TWIN = re.compile(r"^\s*// Python twin: (?P<target>[A-Za-z_][\w.]*)\s*$")
JAVASCRIPT_TWIN = re.compile(r"^\s*# JavaScript twin: (?P<file>[\w-]+\.js) (?P<name>\w+)\s*$")
JS_FUNCTION = re.compile(r"^\s*function (?P<name>\w+)\s*\(")

#: A pairing: (script file, JavaScript function, Python object as module.name).
Pairing = tuple[str, str, str]


def _scripts() -> list[Path]:
    return sorted(SCRIPTS.glob("*.js"))


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


# ---------------------------------------------------------------------------
# Reading the pairing comments
# ---------------------------------------------------------------------------


def js_pairings(text: str, file: str) -> tuple[list[Pairing], list[str]]:
    """The ``// Python twin:`` comments of a script, and what is wrong with any of them.

    Each comment sits in a block of such lines right above ``function name(``; any
    other line that says "Python twin:" is wrong.
    """
    found: list[Pairing] = []
    wrong: list[str] = []
    lines = text.splitlines()
    for n, line in enumerate(lines):
        if not re.search(r"Python twin\s*:", line):
            continue
        match = PYTHON_TWIN.match(line)
        if match is None:
            wrong.append(f"{file}:{n + 1}: not `// Python twin: module.function`: {line.strip()}")
            continue
        below = n + 1
        while below < len(lines) and PYTHON_TWIN.match(lines[below]):
            below += 1
        function = JS_FUNCTION.match(lines[below]) if below < len(lines) else None
        if function is None:
            wrong.append(f"{file}:{n + 1}: `// Python twin:` is not right above a `function`")
            continue
        found.append((file, function["name"], match["target"]))
    return found, wrong


def _defined_at(tree: ast.Module) -> dict[int, str]:
    """The qualified name of each ``def`` and ``class`` of a module, by its first line
    (its first decorator's, if it has any)."""
    names: dict[int, str] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                names[first] = prefix + child.name
                visit(child, prefix + child.name + ".")

    visit(tree, "")
    return names


def python_pairings(text: str, module: str) -> tuple[list[Pairing], list[str]]:
    """The ``# JavaScript twin:`` comments of a module, and what is wrong with any of them.

    Each comment sits in a block of such lines right above a ``def`` or ``class``
    (or its decorators).
    """
    found: list[Pairing] = []
    wrong: list[str] = []
    defined = _defined_at(ast.parse(text))
    lines = text.splitlines()
    for n, line in enumerate(lines):
        if not re.search(r"#.*JavaScript twin\s*:", line):
            continue
        match = JAVASCRIPT_TWIN.match(line)
        if match is None:
            wrong.append(f"{module}:{n + 1}: not `# JavaScript twin: file.js name`: {line.strip()}")
            continue
        below = n + 1
        while below < len(lines) and JAVASCRIPT_TWIN.match(lines[below]):
            below += 1
        name = defined.get(below + 1)  # ast counts lines from 1
        if name is None:
            wrong.append(
                f"{module}:{n + 1}: `# JavaScript twin:` is not right above a def or class"
            )
            continue
        found.append((match["file"], match["name"], f"{module}.{name}"))
    return found, wrong


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


def _python_object(target: str) -> object | None:
    """The object a dotted name names (``package.module.Class.method``), or None."""
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            found = getattr(found, attribute, None)
            if found is None:
                return None
        return found
    return None


def _js_functions(file: str) -> set[str]:
    path = SCRIPTS / file
    if not path.is_file():
        return set()
    return {
        m["name"]
        for line in path.read_text(encoding="utf-8").splitlines()
        if (m := JS_FUNCTION.match(line))
    }


def _all_pairings() -> tuple[set[Pairing], set[Pairing], list[str]]:
    from_js: set[Pairing] = set()
    from_python: set[Pairing] = set()
    wrong: list[str] = []
    for script in _scripts():
        found, bad = js_pairings(script.read_text(encoding="utf-8"), script.name)
        from_js.update(found)
        wrong += bad
    for module in _modules():
        found, bad = python_pairings(module.read_text(encoding="utf-8"), _module_name(module))
        from_python.update(found)
        wrong += bad
    return from_js, from_python, wrong


# ---------------------------------------------------------------------------
# The pairings
# ---------------------------------------------------------------------------


def test_every_pairing_comment_has_the_one_form_and_sits_above_its_function() -> None:
    _, _, wrong = _all_pairings()
    assert not wrong, "\n".join(wrong)


def test_every_pairing_names_functions_that_exist_on_both_sides() -> None:
    from_js, from_python, _ = _all_pairings()
    assert len(from_js) >= 40, f"only {len(from_js)} pairings found: is the form still read?"
    missing_python = sorted(
        f"{file} {name}: no Python {target}"
        for file, name, target in from_js | from_python
        if not callable(_python_object(target))
    )
    missing_js = sorted(
        f"{target}: no function {name} in docs/javascripts/{file}"
        for file, name, target in from_js | from_python
        if name not in _js_functions(file)
    )
    assert not missing_python + missing_js, "\n".join(missing_python + missing_js)


def test_twins_name_each_other() -> None:
    from_js, from_python, _ = _all_pairings()
    one_way = [
        f"{file} {name} names {target}, which does not name it back "
        f"(write `# JavaScript twin: {file} {name}` above it)"
        for file, name, target in sorted(from_js - from_python)
    ] + [
        f"{target} names {file} {name}, which does not name it back "
        f"(write `// Python twin: {target}` above it)"
        for file, name, target in sorted(from_python - from_js)
    ]
    assert not one_way, "\n".join(one_way)


def test_every_file_the_twins_comments_name_exists() -> None:
    """``demo.py`` in a script, ``cellHtml.js`` in a module: a name that is no file fails."""
    python_files = {path.name for path in ROOT.glob("*.py")} | {
        path.name
        for folder in ("src", "tests", "benchmarks", "docs")
        for path in (ROOT / folder).rglob("*.py")
    }
    scripts = {
        path.name for folder in ("docs", "overrides") for path in (ROOT / folder).rglob("*.js")
    }
    wrong = []
    for script in _scripts():
        for n, line in enumerate(script.read_text(encoding="utf-8").splitlines(), 1):
            for named in re.findall(r"\b([\w-]+\.py)\b", line):
                if named not in python_files:
                    wrong.append(f"{script.name}:{n}: names {named}, which is no file")
    for module in _modules():
        for n, line in enumerate(module.read_text(encoding="utf-8").splitlines(), 1):
            for named in re.findall(r"\b([\w-]+\.js)\b", line):
                if named not in scripts:
                    wrong.append(f"{module.relative_to(ROOT)}:{n}: names {named}, which is no file")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    ("script", "problem"),
    [
        ("  // Python twin: attention_by_hand.figures.format_number\n  function f(x) {}\n", None),
        ("  // Python twin: a.b\n  // Python twin: c.d\n  function f(x) {}\n", None),
        (
            "  // Python twin: attention_by_hand.figures.format_number\n\n  function f(x) {}\n",
            "not right above",
        ),
        ("  // Python twin: demo.py format_number\n  function f(x) {}\n", "not `// Python twin"),
        ("  /* Python twin: a.b */\n  function f(x) {}\n", "not `// Python twin"),
    ],
)
def test_the_script_reader_takes_the_one_form_only(script: str, problem: str | None) -> None:
    found, wrong = js_pairings(script, "x.js")
    if problem is None:
        assert not wrong
        assert found
        assert {name for _, name, _ in found} == {"f"}
    else:
        assert not found
        assert len(wrong) == 1, wrong
        assert problem in wrong[0], wrong


def test_the_module_reader_names_methods_and_finds_a_comment_astray() -> None:
    module = (
        "class A:\n"
        "    # JavaScript twin: a.js run\n"
        "    @staticmethod\n"
        "    def run() -> None: ...\n"
        "\n"
        "\n"
        "# JavaScript twin: a.js go\n"
        "# JavaScript twin: b.js go\n"
        "def go() -> None: ...\n"
        "\n"
        "# JavaScript twin: a.js stray\n"
        "\n"
        "X = 1\n"
        "# JavaScript twin: cellHtml\n"
    )
    found, wrong = python_pairings(module, "m")
    assert found == [("a.js", "run", "m.A.run"), ("a.js", "go", "m.go"), ("b.js", "go", "m.go")]
    assert len(wrong) == 2, wrong
    assert "m:11: `# JavaScript twin:` is not right above" in wrong[0]
    assert "m:14: not `# JavaScript twin: file.js name`" in wrong[1]


# ---------------------------------------------------------------------------
# One core, one global
# ---------------------------------------------------------------------------


def _globals_defined(text: str) -> set[str]:
    return set(re.findall(r"\bwindow\.(\w+)\s*=(?!=)", text))


def test_the_core_is_the_one_global_of_the_books_scripts() -> None:
    defined = {
        script.name: _globals_defined(script.read_text(encoding="utf-8")) for script in _scripts()
    }
    assert defined.pop("core.js") == {"abh"}
    assert not {name: found for name, found in defined.items() if found}


def _code(text: str) -> str:
    """A script without its comments (roughly: a ``//`` in a string cuts its line short)."""
    return re.sub(r"//.*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.DOTALL))


def test_a_script_reaches_another_scripts_part_only_through_abh_needs() -> None:
    """``abh.needs("answers", ...)`` says in the console when answers.js did not load first;
    a bare ``abh.answers`` would fail without a word (or with a TypeError)."""
    texts = {script.name: _code(script.read_text(encoding="utf-8")) for script in _scripts()}
    parts = {
        part: name
        for name, text in texts.items()
        for part in re.findall(r"\babh\.(\w+)\s*=(?!=)", text)
    }
    assert {"answers", "exercise", "fresh", "precision"} <= set(parts), parts
    bare = [
        f"{name} reads abh.{part} (from {owner}): use abh.needs({part!r}, ...)"
        for name, text in texts.items()
        for part, owner in parts.items()
        if owner != name and re.search(rf"\babh\.{part}\b", text)
    ]
    assert not bare, "\n".join(bare)


@pytest.mark.parametrize(
    ("what", "pattern"),
    [
        ("the minus sign U+2212 as a constant", r"=\s*\"\\u2212\""),
        ("gcd", r"\bfunction gcd\b"),
        ("the three-decimal format", r"\.toFixed\(3\)"),
        ("the figures' number format", r"\bfunction formatNumber\b"),
        ("thousands separated by commas", r"\(\?=\(\\d\{3\}\)\+"),
        ("the score reader", r"\bSCORE_TEXT\b"),
        ("the start-up on every page", r"\bdocument\$"),
        ("exact fractions", r"\bfunction rational\b"),
    ],
)
def test_each_shared_piece_is_defined_in_the_core_alone(what: str, pattern: str) -> None:
    where = [s.name for s in _scripts() if re.search(pattern, s.read_text(encoding="utf-8"))]
    assert where == ["core.js"], f"{what}: in {where}"


# ---------------------------------------------------------------------------
# ESLint
# ---------------------------------------------------------------------------


def _eslint(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    if not ESLINT.is_file() or shutil.which("node") is None:
        missing(
            f"ESLint is not installed ({ESLINT.relative_to(ROOT)} or Node.js is missing): "
            "`make test` installs it with npm (Node.js), from tests/package-lock.json"
        )
    return subprocess.run(
        [str(ESLINT), "--config", str(ROOT / ESLINT_CONFIG), "--max-warnings=0", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.tools
def test_eslint_finds_nothing_in_the_books_javascript() -> None:
    result = _eslint(*LINTED)
    assert result.returncode == 0, (
        f"ESLint (`{ESLINT.relative_to(ROOT)} --config {ESLINT_CONFIG} {' '.join(LINTED)}`):\n"
        f"{result.stdout}{result.stderr}"
    )


@pytest.mark.tools
def test_eslint_catches_what_its_rules_are_for(tmp_path: Path) -> None:
    """``var``, a ``let`` never reassigned, ``==``, an unknown name; browser globals are known;
    the vendored shim is not read."""
    (tmp_path / "bad.js").write_text(
        '"use strict";\nvar a = 1;\nlet b = 2;\nif (a == b) undefinedName();\n'
        "window.document.title = String(a + b);\n",
        encoding="utf-8",
    )
    (tmp_path / "iframe-worker-shim.js").write_text("var shim = 1 == 1;\n", encoding="utf-8")
    result = _eslint("--format", "json", ".", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    found = {
        Path(f["filePath"]).name: sorted(m["ruleId"] for m in f["messages"])
        for f in json.loads(result.stdout)
    }
    assert found == {"bad.js": ["eqeqeq", "no-undef", "no-var", "prefer-const"]}, found


def test_make_lint_runs_eslint_as_the_test_does() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    (recipe,) = re.findall(r"^lint:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert re.search(r"^ESLINT := tests/node_modules/\.bin/eslint$", makefile, re.MULTILINE)
    assert f"JAVASCRIPT := {' '.join(LINTED)}\n" in makefile
    assert f"$(ESLINT) --config {ESLINT_CONFIG} --max-warnings=0 $(JAVASCRIPT); \\" in recipe
    assert "ESLint skipped" in recipe


def test_every_script_is_strict_and_uses_no_var() -> None:
    """The rules ESLint holds the scripts to, checked without Node.js too."""
    wrong = [
        script.name
        for script in _scripts()
        if '"use strict";' not in (text := script.read_text(encoding="utf-8"))
        or re.search(r"^\s*(for \()?var\b", text, re.MULTILINE)
    ]
    assert not wrong, wrong
