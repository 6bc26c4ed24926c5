"""Headless Chromium driven over the DevTools protocol, for the browser tests.

A page is opened, and the test waits for what it needs to happen: the page's load event,
then (for a download) Chromium's own report that the download completed. Nothing waits a
fixed time, so a loaded machine makes a test slower, never failing: one generous deadline
(``conftest.HUNG``) only stops a browser that hangs. ``--dump-dom`` could not do this: it
dumps the page after loading and exits, whether or not a download it started was written,
and its caller could only sleep and look.

The protocol runs over ``--remote-debugging-pipe``: Chromium reads commands from its file
descriptor 3 and writes replies and events to 4, each a JSON message ended by a NUL byte.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from pathlib import Path
from types import TracebackType
from typing import Any, NoReturn

from conftest import HUNG


class Chromium:
    """One headless Chromium with its own profile; downloads go to ``downloads``.

    Use as a context manager: leaving it closes the browser and waits for it to exit.
    """

    def __init__(self, binary: str, home: Path, downloads: Path) -> None:
        self.deadline = time.monotonic() + HUNG
        self.downloads = downloads
        self.events: list[dict[str, Any]] = []
        self._buffer = b""
        self._next_id = 0
        # Chromium reads commands from fd 3 and writes to fd 4 (its end of two pipes).
        commands_in, self._commands = os.pipe()
        self._replies, replies_out = os.pipe()

        def place_pipes() -> None:
            import fcntl  # POSIX, as the pipe is

            # Through descriptors above 4 first, so neither end overwrites the other.
            ends = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (commands_in, replies_out)]
            for target, fd in zip((3, 4), ends, strict=True):
                os.dup2(fd, target)

        self.log = home / "chromium.log"
        home.mkdir(parents=True, exist_ok=True)
        with self.log.open("w") as log:  # Chromium's own messages, for a failure
            self.process = subprocess.Popen(
                [
                    binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", f"--user-data-dir={home / 'profile'}",
                    "--remote-debugging-pipe", "about:blank",
                ],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                pass_fds=(3, 4), preexec_fn=place_pipes,
                env={**os.environ, "HOME": str(home)},
            )  # fmt: skip
        os.close(commands_in)
        os.close(replies_out)
        downloads.mkdir(parents=True, exist_ok=True)
        try:
            self.call(
                "Browser.setDownloadBehavior",
                behavior="allow",
                downloadPath=str(downloads),
                eventsEnabled=True,
            )
        except BaseException:
            self._stop()
            raise

    def __enter__(self) -> Chromium:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        try:
            if kind is None:
                # No reply to wait for: Chromium may exit before it sends one.
                self._send("Browser.close", None, {})
                self.process.wait(timeout=max(self.deadline - time.monotonic(), 1))
        finally:
            self._stop()

    def _stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self._commands)
        os.close(self._replies)

    def open(self, url: str) -> str:
        """Load ``url`` in a new tab; once its load event fired, the page's DOM as HTML.

        The page's own scripts, which run while it loads, have run by then.
        """
        return str(self.evaluate(url, "document.documentElement.outerHTML"))

    def evaluate(self, url: str, expression: str) -> Any:
        """Load ``url`` as :meth:`open` does, then the value of the JavaScript
        ``expression`` evaluated in the page (what it renders: sizes, line boxes)."""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable", session=session)
        self.call("Page.setLifecycleEventsEnabled", session=session, enabled=True)
        loader = self.call("Page.navigate", session=session, url=url)["loaderId"]
        # The load event of this navigation's document (about:blank had one too).
        self.wait_for(
            "Page.lifecycleEvent",
            lambda p: p["name"] == "load" and p["loaderId"] == loader,
            session=session,
        )
        found = self.call(
            "Runtime.evaluate",
            session=session,
            expression=expression,
            returnByValue=True,
        )
        return found["result"]["value"]

    def downloaded(self) -> Path:
        """The file of the first download, once Chromium reports it completed."""
        begun = self.wait_for("Browser.downloadWillBegin")
        done = self.wait_for(
            "Browser.downloadProgress",
            lambda p: p["guid"] == begun["guid"] and p["state"] != "inProgress",
        )
        assert done["state"] == "completed", done
        return self.downloads / begun["suggestedFilename"]

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send one command and return its result (events that come first are kept)."""
        sent = self._send(method, session, params)
        while True:
            reply = self._read()
            if reply.get("id") == sent:
                assert "error" not in reply, f"{method}: {reply['error']}"
                return dict(reply.get("result", {}))
            if "method" in reply:
                self.events.append(reply)

    def _send(self, method: str, session: str | None, params: dict[str, Any]) -> int:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        try:
            os.write(self._commands, json.dumps(message).encode() + b"\0")
        except BrokenPipeError:
            self._exited()
        return self._next_id

    def _exited(self) -> NoReturn:
        # Chromium is gone: fail with its own last words.
        self.process.wait()
        last = self.log.read_text(errors="replace")[-2000:]
        raise AssertionError(f"Chromium exited ({self.process.returncode}): {last}")

    def wait_for(
        self, method: str, accept: Any = None, session: str | None = None
    ) -> dict[str, Any]:
        """The params of the first event ``method`` (that ``accept`` takes), waiting for it."""

        def matches(event: dict[str, Any]) -> bool:
            return (
                event.get("method") == method
                and (session is None or event.get("sessionId") == session)
                and (accept is None or accept(event.get("params", {})))
            )

        seen = 0
        while True:
            for event in self.events[seen:]:
                if matches(event):
                    return dict(event.get("params", {}))
            seen = len(self.events)
            message = self._read()
            if "method" in message:
                self.events.append(message)

    def _read(self) -> dict[str, Any]:
        # One message from Chromium; a browser that exits or hangs fails the test.
        while b"\0" not in self._buffer:
            left = self.deadline - time.monotonic()
            ready, _, _ = select.select([self._replies], [], [], max(left, 0))
            assert ready, f"Chromium did not answer within {HUNG} s"
            chunk = os.read(self._replies, 1 << 16)
            if not chunk:
                self._exited()
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return dict(json.loads(message))
