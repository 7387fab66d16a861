"""A fork server for the ``python -m mkdocs`` and ``python -m pytest`` runs in copies of the book.

Each such run used to start a fresh interpreter that spent most of its CPU
importing the toolchain (MkDocs, Material, mkdocs-jupyter, jupytext,
nbconvert, NumPy, matplotlib, pytest, Sybil...) before stopping at the first
error of a broken copy. Here the toolchain is imported once, by a *zygote*
process, and each run is a child forked from it: the child takes the run's
working folder, environment, ``sys.path`` (the copy's ``src`` first) and
arguments, runs the module as ``python -m`` does
(``runpy._run_module_as_main``), with its standard output and error written
to files the caller reads and its standard input ``/dev/null``, and exits
with the status a fresh interpreter would have: 0, the code of
``SystemExit`` (its message on standard error when it is not a number), 1
after an uncaught exception's traceback, ``-N`` when killed by signal N.
Before it exits it does what a fresh interpreter does at exit: join the
threads that are not daemons, run the ``atexit`` functions, flush.

Three processes take part, all started from this file:

- the *router*, started by the session fixture of tests/conftest.py
  (:func:`started`) and named to the tests by :data:`VARIABLE`. It imports
  nothing but the standard library. For each module run (``mkdocs``,
  ``pytest``) and environment it starts one zygote, a fresh interpreter
  with exactly that environment (less :data:`PER_RUN`, which the child sets
  itself), so that whatever the interpreter and the toolchain read from the
  environment when they start (``PYTHONHASHSEED``,
  ``PYTHONDONTWRITEBYTECODE``, ``MPLBACKEND``...) is what a fresh
  ``python -m`` in that environment would read;
- a *zygote* per module and environment: imports that module's
  :data:`PRELOAD`, then, for each run, checks that it is the only thread of
  its process and forks a child; one run at a time;
- the *child*, which runs the module and exits. A child that cannot start
  (its folder is gone...) exits with status 70 and says why on standard error.

Never imported by a zygote: the book's own package (each copy must import
its own, from its ``src``), what reads ``sys.argv`` when imported
(:data:`NEVER_PRELOADED`) and, in pytest's, the modules of pytest's plugins.
A zygote that imported one of them stops at its start, and a child stops with
an error if a folder of its ``PYTHONPATH`` holds a module the zygote
imported. Linux only (``os.pidfd_open``, ``/proc``); elsewhere the runs are
subprocesses.

Known differences from a fresh interpreter, none of which a test reads: the
runs of one environment share one hash seed (a test that needs another seed
sets ``PYTHONHASHSEED``, which gets it its own zygote); NumPy's BLAS runs on
one thread (``OPENBLAS_NUM_THREADS=1`` in the zygote, so that it has no
thread when it forks); ``sys.orig_argv`` is the zygote's.

The zygote and router quit when their parent does (their standard input is a
pipe from it). A run that outlives its timeout is killed (SIGKILL) and
raises :class:`subprocess.TimeoutExpired`, as :func:`subprocess.run` does.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import io
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import traceback
import types
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

#: Where tests/conftest.py puts the router's socket for the session.
VARIABLE = "ABH_FORK_SERVER"
#: Variables that differ from run to run but that no module of a zygote reads
#: when it is imported: runs that differ only in these share a zygote (the child
#: gets them). ``ABH_CACHE_DIR`` is read by the book's package only, which no
#: zygote imports.
PER_RUN = frozenset({"PYTHONPATH", "PYTEST_CURRENT_TEST", "ABH_CACHE_DIR"})
#: What a zygote imports, by the module run (``python -m mkdocs``, ``python -m
#: pytest``): the toolchain as far as a broken copy's run gets, and what draws
#: figures. Not ``mkdocs.__main__`` nor ``pytest.__main__``, which ``python -m``
#: runs as ``__main__`` only. A zygote for another module imports nothing.
PRELOAD = {
    "mkdocs": (
        "click",
        "mkdocs.commands.build",
        "mkdocs.config.defaults",
        "mkdocs.structure.pages",
        "mkdocs.utils",
        "material.plugins.search.plugin",
        "material.plugins.offline.plugin",
        "mkdocs_jupyter.plugin",
        "jupytext",
        "nbconvert",
        "IPython",
        "markdown",
        "markdown.extensions.abbr",
        "markdown.extensions.admonition",
        "markdown.extensions.attr_list",
        "markdown.extensions.def_list",
        "markdown.extensions.footnotes",
        "markdown.extensions.md_in_html",
        "markdown.extensions.tables",
        "markdown.extensions.toc",
        "pymdownx.arithmatex",
        "pymdownx.details",
        "pymdownx.highlight",
        "pymdownx.inlinehilite",
        "pymdownx.superfences",
        "latex2mathml.converter",
        "yaml",
        "numpy",
        "matplotlib.figure",
        "matplotlib.backends.backend_svg",
        "sybil",
        "sybil.parsers.markdown",
    ),
    # never a module of a pytest plugin's distribution (pytest-xdist,
    # Hypothesis, platformdirs...): pytest must import those itself, to rewrite
    # their asserts (:func:`_pytest_plugin_modules`)
    "pytest": (
        "pytest",
        "_pytest.main",
        "_pytest.python",
        "_pytest.terminal",
        "_pytest.unittest",
        "pluggy",
        "iniconfig",
        "pygments.lexers.python",
        "execnet",
        "sysconfig",
        "numpy",
        "sybil",
        "sybil.parsers.markdown",
        "sybil.parsers.rest",
        "sybil.evaluators.python",
        # what the tests of every lesson import (a lesson added as CONTRIBUTING.md says)
        "jinja2",
        "click",
        "yaml",
        "markdown",
        "mkdocs.config.defaults",
        "mkdocs.structure.pages",
    ),
}
#: Modules no zygote may hold: the book's package (each copy imports its own)
#: and Material's templates (they read ``sys.argv`` when imported).
NEVER_PRELOADED = ("attention_by_hand", "material.templates")
#: How long the router waits for a new zygote to import :data:`PRELOAD`.
ZYGOTE_START_SECONDS = 300


# ---------------------------------------------------------------------------
# The caller's side
# ---------------------------------------------------------------------------


def run(
    args: Sequence[str], *, cwd: Path, env: Mapping[str, str], timeout: float
) -> subprocess.CompletedProcess[str] | None:
    """``python -m <args>`` in `cwd` with environment `env`, forked from a zygote.

    None when no fork server runs (:data:`VARIABLE` unset): the caller runs
    a subprocess instead. Raises :class:`RuntimeError` if the server fails.
    """
    router = os.environ.get(VARIABLE)
    if not router:
        return None
    command = [sys.executable, "-m", *args]
    zygote = _ask(router, {"module": args[0], "env": _shared(env)})["socket"]
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection,
    ):
        connection.connect(zygote)
        request = {"args": list(args), "cwd": str(cwd), "env": dict(env)}
        socket.send_fds(connection, [_line(request)], [out.fileno(), err.fileno()])
        replies = _Replies(connection, zygote)
        pid = replies.next()["pid"]
        connection.settimeout(timeout)
        try:
            status = replies.next()
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            connection.settimeout(None)
            replies.next()  # the zygote has reaped it
            raise subprocess.TimeoutExpired(
                command, timeout, output=_text(out), stderr=_text(err)
            ) from None
        return subprocess.CompletedProcess(
            command, status["returncode"], stdout=_text(out), stderr=_text(err)
        )


def _shared(env: Mapping[str, str]) -> dict[str, str]:
    """The part of `env` that chooses the zygote."""
    return {key: value for key, value in env.items() if key not in PER_RUN}


def _ask(address: str, request: dict[str, Any]) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(address)
        connection.sendall(_line(request))
        return _Replies(connection, address).next()


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


class _Replies:
    """The messages a server sends on `connection`: a line of JSON each."""

    def __init__(self, connection: socket.socket, address: str) -> None:
        self.connection, self.address, self.buffer = connection, address, b""

    def next(self) -> dict[str, Any]:
        """The next message; TimeoutError past the connection's timeout (then call again)."""
        while b"\n" not in self.buffer:
            received = self.connection.recv(4096)
            if not received:
                raise RuntimeError(f"the fork server at {self.address} closed the connection")
            self.buffer += received
        line, _, self.buffer = self.buffer.partition(b"\n")
        reply: dict[str, Any] = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"the fork server at {self.address}: {reply['error']}")
        return reply


def _text(stream: Any) -> str:
    """What a run wrote to `stream`, decoded as ``subprocess.run(text=True)`` decodes it."""
    stream.seek(0)
    # the default encoding and universal newlines, as subprocess's text mode
    return io.TextIOWrapper(io.BytesIO(stream.read())).read()


@contextlib.contextmanager
def started(folder: Path) -> Iterator[str]:
    """Run a router (its socket in `folder`) until the block ends; yield its address."""
    address = str(folder / "router.sock")
    with (folder / "router.log").open("wb") as log:
        router = subprocess.Popen(
            [sys.executable, __file__, "router", address],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            cwd=folder,
        )
    try:
        assert router.stdout is not None
        if router.stdout.readline() != b"ready\n":
            log = (folder / "router.log").read_text(encoding="utf-8", errors="replace")
            raise RuntimeError(f"the fork server did not start: {log[-3000:]}")
        yield address
    finally:
        assert router.stdin is not None
        router.stdin.close()  # the router stops its zygotes and quits
        try:
            router.wait(timeout=30)
        except subprocess.TimeoutExpired:
            router.kill()
            router.wait()
        if router.stdout is not None:
            router.stdout.close()


# ---------------------------------------------------------------------------
# The router
# ---------------------------------------------------------------------------


def _serve_router(address: str) -> None:
    """Hand each caller the zygote of its environment, starting it if need be."""
    zygotes: dict[str, tuple[subprocess.Popen[bytes], str]] = {}
    folder = Path(address).parent
    with _listening(address) as listener:
        _say_ready()
        try:
            while _next_caller(listener):
                connection, _ = listener.accept()
                with connection:
                    try:
                        with connection.makefile("rb") as reader:
                            request = json.loads(reader.readline())
                        module, env = request["module"], request["env"]
                        chosen = json.dumps([module, sorted(env.items())]).encode()
                        key = hashlib.sha256(chosen).hexdigest()[:16]
                        zygote = zygotes.get(key)
                        if zygote is None or zygote[0].poll() is not None:
                            address = str(folder / f"{key}.sock")
                            zygote = zygotes[key] = _start_zygote(module, env, address)
                        connection.sendall(_line({"socket": zygote[1]}))
                    except Exception as error:  # noqa: BLE001 (told to the caller, which fails)
                        with contextlib.suppress(OSError):
                            connection.sendall(_line({"error": f"{type(error).__name__}: {error}"}))
        finally:
            for process, _ in zygotes.values():
                assert process.stdin is not None
                process.stdin.close()
            for process, _ in zygotes.values():
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def _start_zygote(
    module: str, env: dict[str, str], address: str
) -> tuple[subprocess.Popen[bytes], str]:
    # one BLAS thread: NumPy's BLAS starts its threads when loaded, and a process
    # with more than one thread must not fork
    environment = {**env, "OPENBLAS_NUM_THREADS": env.get("OPENBLAS_NUM_THREADS", "1")}
    log = Path(address).with_suffix(".log")
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, __file__, "zygote", address, module],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=environment,
            cwd=Path(address).parent,
        )
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], ZYGOTE_START_SECONDS)
    if not ready or process.stdout.readline() != b"ready\n":
        process.kill()
        process.wait()
        problem = log.read_text(encoding="utf-8", errors="replace")
        raise RuntimeError(f"a zygote did not start: {problem[-3000:]}")
    process.stdout.close()
    return process, address


@contextlib.contextmanager
def _listening(address: str) -> Iterator[socket.socket]:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(address)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(address)
        listener.listen(8)
        yield listener
    finally:
        listener.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(address)


def _say_ready() -> None:
    os.write(1, b"ready\n")


def _next_caller(listener: socket.socket) -> bool:
    """Wait for a caller; False once the parent has gone (standard input at its end)."""
    while True:
        ready, _, _ = select.select([listener, 0], [], [])
        if 0 in ready and not os.read(0, 4096):
            return False
        if listener in ready:
            return True


# ---------------------------------------------------------------------------
# The zygote
# ---------------------------------------------------------------------------


def _serve_zygote(address: str, module: str) -> None:
    """Import `module`'s toolchain, then fork a child for each run, one at a time."""
    base_path = sys.path[1:]  # sys.path[0] is this file's folder
    os.close(os.pidfd_open(os.getpid()))  # fails here, not after a fork, without pidfd (Linux 5.3)
    for name in PRELOAD.get(module, ()):
        importlib.import_module(name)
    forbidden = {name.split(".")[0] for name in NEVER_PRELOADED if "." not in name}
    if module == "pytest":
        forbidden |= _pytest_plugin_modules()
    held = sorted(name for name in sys.modules if name.split(".")[0] in forbidden)
    held += [name for name in NEVER_PRELOADED if name in sys.modules and name not in held]
    if held:
        raise SystemExit(f"the zygote for {module} must not import {held}")
    with _listening(address) as listener:
        _say_ready()
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)  # the router reads no more
        os.close(quiet)
        while _next_caller(listener):
            connection, _ = listener.accept()
            with connection:
                _fork_one(connection, listener, base_path)


def _pytest_plugin_modules() -> set[str]:
    """The top-level modules of every distribution that gives pytest a plugin.

    pytest rewrites their asserts when it loads the plugin, which it cannot
    do (and warns, an error here) if they are imported already.
    """
    from importlib.metadata import entry_points

    names = set()
    for plugin in entry_points(group="pytest11"):
        for file in (plugin.dist.files or []) if plugin.dist else []:
            if file.suffix == ".py" and not file.parts[0].endswith((".dist-info", ".data")):
                names.add(file.parts[0].removesuffix(".py"))
    return names


def _fork_one(connection: socket.socket, listener: socket.socket, base_path: list[str]) -> None:
    message, fds, _, _ = socket.recv_fds(connection, 1 << 16, 2)
    while not message.endswith(b"\n"):
        more = connection.recv(1 << 16)
        if not more:
            break
        message += more
    request = json.loads(message)
    threads = len(os.listdir("/proc/self/task"))
    if threads != 1:
        connection.sendall(_line({"error": f"the zygote has {threads} threads; it cannot fork"}))
        for fd in fds:
            os.close(fd)
        return
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            listener.close()
            connection.close()
            os.close(0)  # the pipe from the router
            _child(request, fds, base_path)
        except BaseException:  # noqa: BLE001 (a run that could not start: say why)
            traceback.print_exc()
        finally:
            os._exit(70)  # reached only if the run could not start
    for fd in fds:
        os.close(fd)
    connection.sendall(_line({"pid": pid}))
    child = os.pidfd_open(pid)
    try:
        watched: list[Any] = [child, connection]
        while child not in select.select(watched, [], [])[0]:
            if not connection.recv(1):  # the caller has gone: so goes its run
                os.kill(pid, signal.SIGKILL)
                watched = [child]
    finally:
        os.close(child)
    _, status = os.waitpid(pid, 0)
    with contextlib.suppress(OSError):
        connection.sendall(_line({"returncode": os.waitstatus_to_exitcode(status)}))


# ---------------------------------------------------------------------------
# The child
# ---------------------------------------------------------------------------


def _child(request: dict[str, Any], fds: list[int], base_path: list[str]) -> None:
    """Become ``python -m <args>`` in the request's folder and environment; exit."""
    stdin = os.open(os.devnull, os.O_RDONLY)
    if stdin != 0:
        os.dup2(stdin, 0)
        os.close(stdin)
    os.dup2(fds[0], 1)
    os.dup2(fds[1], 2)
    for fd in fds:
        os.close(fd)
    cwd, env = request["cwd"], request["env"]
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    extra = [entry for entry in env.get("PYTHONPATH", "").split(os.pathsep) if entry]
    sys.path[:] = [cwd, *extra, *base_path]
    sys.path_importer_cache.clear()
    importlib.invalidate_caches()
    shadowed = sorted(
        name
        for folder in extra
        if os.path.isdir(folder)
        for name in (Path(entry).stem for entry in os.listdir(folder))
        if name in sys.modules
    )
    if shadowed:
        sys.stderr.write(f"fork server: {shadowed} in PYTHONPATH were imported before the fork\n")
        _exit(1)
    main = types.ModuleType("__main__")
    sys.modules["__main__"] = main
    sys.argv = ["-m", *request["args"][1:]]
    _exit(_run_as_main(request["args"][0]))


def _run_as_main(module: str) -> int:
    """Run `module` as ``python -m`` does; the exit status, as the interpreter would give it."""
    import runpy

    try:
        runpy._run_module_as_main(module, alter_argv=True)  # type: ignore[attr-defined]
    except SystemExit as stop:
        return _exit_status(stop.code)
    except BaseException as error:  # noqa: BLE001 (as the interpreter: any uncaught exception)
        # the traceback from runpy on, as `python -m` prints it
        trace = error.__traceback__.tb_next if error.__traceback__ else None
        sys.excepthook(type(error), error.with_traceback(trace), trace)
        return 1
    return 0


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    sys.stderr.write(f"{code}\n")
    return 1


def _exit(status: int) -> None:
    """What the interpreter does at exit: join the threads, run atexit, flush; then exit."""
    import atexit
    import threading

    try:
        threading._shutdown()  # type: ignore[attr-defined]
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(status)


if __name__ == "__main__":
    if sys.argv[1] == "router":
        _serve_router(sys.argv[2])
    else:
        _serve_zygote(sys.argv[2], sys.argv[3])
