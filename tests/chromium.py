"""Debian's chromium, headless, driven over the DevTools protocol on a pipe
(``--remote-debugging-pipe``: JSON messages ended by a NUL byte on file descriptors 3 and
4 of the browser). One browser loads many pages, each in a tab of its own with the cache
off, so every page asks for everything it needs; starting a browser per page cost about
1 CPU-s each.

`make test` installs chromium (Debian package) when it is missing."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
]
# a page has settled when the document is loaded and each of its charts is drawn
SETTLED = """(() => document.readyState === "complete" &&
  document.querySelectorAll('[data-rendered="true"]').length >=
  document.querySelectorAll(".iop-chart").length)()"""
DOM = "document.documentElement.outerHTML"


class BrowserError(AssertionError):
    pass


def _high(fd: int) -> int:
    """``fd`` moved to a number above 10 (so the two moves to 3 and 4 cannot collide)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


def _environment(profile: Path, scratch: Path) -> dict[str, str]:
    """The test's environment with a home of its own inside the profile and ``scratch`` as
    TMPDIR: chromium keeps its crash reporter's settings and dconf its database there, not
    in the user's home, and its singleton socket's folder (left in /tmp when chromium is
    killed) in ``scratch``, a short path: a socket's path has at most 107 bytes."""
    own = {"HOME": "home", "XDG_CONFIG_HOME": "config", "XDG_CACHE_HOME": "cache"}
    return (
        os.environ
        | {key: str(profile / sub) for key, sub in own.items()}
        | {"TMPDIR": str(scratch)}
    )


class Browser:
    """A running chromium: ``load(url)`` gives the settled page's DOM and every URL the page
    asked for; ``dialogs`` lists the JavaScript dialogs (alert, confirm) pages opened."""

    def __init__(self, profile: Path, scratch: Path, netlog: Path | None = None) -> None:
        assert CHROMIUM, "chromium must be installed (make test installs it)"
        to_browser, self._send = map(_high, os.pipe())
        self._receive, from_browser = map(_high, os.pipe())
        logging = [f"--log-net-log={netlog}"] if netlog else []
        args = [CHROMIUM, *FLAGS, "--remote-debugging-pipe", f"--user-data-dir={profile}"]
        actions = [
            (os.POSIX_SPAWN_DUP2, to_browser, 3),
            (os.POSIX_SPAWN_DUP2, from_browser, 4),
            *[(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_WRONLY, 0) for fd in (1, 2)],
        ]
        self.pid = os.posix_spawn(
            CHROMIUM,
            [*args, *logging, "about:blank"],
            _environment(profile, scratch),
            file_actions=actions,
            setsid=True,
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer, self._next = b"", 0
        self._events: list[dict[str, Any]] = []
        self._unanswered = 1 << 30  # ids of commands whose answers nobody waits for
        self.dialogs: list[str] = []

    def _message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            ready, _, _ = select.select(
                [self._receive], [], [], max(0, deadline - time.monotonic())
            )
            if not ready:
                raise BrowserError("chromium did not answer in time")
            chunk = os.read(self._receive, 1 << 16)
            if not chunk:
                raise BrowserError("chromium closed its pipe (crashed?)")
            self._buffer += chunk
        text, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(text)
        if message.get("method") == "Page.javascriptDialogOpening":  # noted and dismissed
            self.dialogs.append(message["params"]["message"])
            self._unanswered += 1
            self._write(
                self._unanswered,
                "Page.handleJavaScriptDialog",
                {"accept": False},
                message["sessionId"],
            )
        return message

    def _write(self, number: int, method: str, params: dict[str, Any], session: str) -> None:
        command = {"id": number, "method": method, "params": params}
        os.write(
            self._send,
            json.dumps(command | ({"sessionId": session} if session else {})).encode() + b"\0",
        )

    def call(self, method: str, params: dict[str, Any] | None = None, session: str = "") -> Any:
        """Send one command and wait (30 s at most) for its answer; events that come
        before it are kept."""
        self._next += 1
        self._write(self._next, method, params or {}, session)
        deadline = time.monotonic() + 30
        while (message := self._message(deadline)).get("id") != self._next:
            self._events.append(message)
        if "error" in message:
            raise BrowserError(f"{method}: {message['error']}")
        return message.get("result", {})

    def _evaluate(self, expression: str, session: str) -> Any:
        found = self.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session
        )
        return found["result"].get("value")

    def load(self, url: str, timeout: float = 30) -> tuple[str, set[str]]:
        """The page's DOM once it settled (or at ``timeout``), and the URLs it asked for."""
        dom, urls = self.probe(url, DOM, timeout=timeout)
        return str(dom), urls

    def _settle(self, session: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(BrowserError):  # a page being replaced answers nothing
                if self._evaluate(SETTLED, session):
                    return
            time.sleep(0.05)

    def probe(
        self, url: str, expression: str, click: str = "", timeout: float = 30
    ) -> tuple[Any, set[str]]:
        """``expression`` evaluated in the page at ``url`` once it settled (or at
        ``timeout``), and the URLs the page asked for. With ``click`` (a CSS selector), the
        element it selects is clicked first, and ``expression`` is evaluated in the page
        the click leads to, once that settled."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        steps: list[tuple[str, dict[str, Any]]] = [
            ("Page.enable", {}),
            ("Network.enable", {}),
            ("Network.setCacheDisabled", {"cacheDisabled": True}),
            ("Page.navigate", {"url": url}),
        ]
        for method, params in steps:
            self.call(method, params, session)
        self._settle(session, timeout)
        if click:
            self._evaluate(
                f"window.iopBefore = true; document.querySelector({json.dumps(click)}).click()",
                session,
            )
            deadline = time.monotonic() + timeout
            while self._still(session):  # the old page stays until the new one replaces it
                if time.monotonic() > deadline:
                    raise BrowserError(f"clicking {click} on {url} led nowhere")
                time.sleep(0.05)
            self._settle(session, timeout)
        found = self._evaluate(expression, session)
        urls = {
            e["params"]["request"]["url"]
            for e in self._events
            if e.get("sessionId") == session and e.get("method") == "Network.requestWillBeSent"
        }
        self._events = [e for e in self._events if e.get("sessionId") != session]
        self.call("Target.closeTarget", {"targetId": target})
        return found, urls

    def _still(self, session: str) -> bool:
        """Whether the page marked before a click is still there."""
        try:
            return bool(self._evaluate("window.iopBefore === true", session))
        except BrowserError:
            return True

    def close(self) -> None:
        """Close the browser (its net log written), killed if it does not end in 10 s."""
        with contextlib.suppress(BrowserError, OSError):
            self.call("Browser.close")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and os.waitpid(self.pid, os.WNOHANG) == (0, 0):
            time.sleep(0.05)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        os.close(self._send)
        os.close(self._receive)


@contextlib.contextmanager
def browser(profile: Path, netlog: Path | None = None) -> Iterator[Browser]:
    """A chromium for the block, closed (and its process group gone) after it, and its
    temporary files with it."""
    with tempfile.TemporaryDirectory(prefix="chromium-") as scratch:
        running = Browser(profile, Path(scratch), netlog)
        try:
            yield running
        finally:
            running.close()
