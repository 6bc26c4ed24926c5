"""`--clean-predictions`: what a chat model's reply is reduced to, as docs/scoring.md lists it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from wrdscore.corpora import clean_prediction
from wrdscore.metrics import get_metric

DOCS = Path(__file__).resolve().parents[1] / "docs" / "scoring.md"
# A row of the table: reply and scored prediction, each a JSON string in a `` span.
ROW = re.compile(r'^\| `` (".*") `` \| `` (".*") `` \| (.+) \|$')


def documented_cases() -> list[tuple[str, str]]:
    rows = [ROW.match(line) for line in DOCS.read_text(encoding="utf-8").splitlines()]
    return [(json.loads(m[1]), json.loads(m[2])) for m in rows if m is not None]


def test_the_docs_table_has_the_cases_of_issue_35():
    replies = [reply for reply, _ in documented_cases()]
    assert len(replies) >= 12
    for needed in ("The method name is `writeUsersAsCsv`", "**getUserName**",
                   "String getUserName(int id)", "@return the name"):  # fmt: skip
        assert any(needed in r for r in replies), needed


@pytest.mark.parametrize(("reply", "scored"), documented_cases())
def test_every_documented_reply_is_cleaned_as_the_docs_say(reply, scored):
    assert clean_prediction(reply) == scored
    # Cleaning what is already clean changes nothing.
    assert clean_prediction(scored) == scored


@pytest.mark.parametrize(
    ("reply", "scored"),
    [
        ("The method name is `writeUsersAsCsv`", "writeUsersAsCsv"),
        ("The name of the method is `getUser()`.", "getUser"),
        ("Method name: writeCsv", "writeCsv"),
        ("**getUserName**", "getUserName"),
        ("*getUserName*", "getUserName"),
        ("Returns the **user** name.", "Returns the user name."),
        ("public String getUserName(int id)", "getUserName"),
        ("String getUserName()", "getUserName"),
        ("public static <T> List<T> copyOf(Collection<? extends T> items);", "copyOf"),
        ("private final int[] counts(final String... names) {", "counts"),
        ("```java\npublic void run() {\n}\n```", "run"),
        ("export async function loadUsers(url) {", "loadUsers"),
        ("fun getUserName(id: Int): String", "getUserName"),
        ("@return the name", "the name"),
        ("@param id the user id", "the user id"),
        ("@throws IOException if the file is missing", "if the file is missing"),
        ("/**\n * @return the user's name\n */", "the user's name"),
        # Kept as they are: summaries and prose.
        ("Returns the name of the user.", "Returns the name of the user."),
        ("The name is valid.", "The name is valid."),
        ("String name", "String name"),
        ("__init__", "__init__"),
        ("List<String> names", "List<String> names"),
    ],
)
def test_replies_models_give(reply, scored):
    assert clean_prediction(reply) == scored


def test_a_reply_that_is_only_a_return_tag_no_longer_scores_0():
    rouge = get_metric("rouge1", clean=True)
    assert rouge.score(["name"], ["@return the name"]).f1[0] == pytest.approx(2 / 3)
    assert get_metric("rouge1").score(["name"], ["@return the name"]).f1[0] < 2 / 3


@pytest.mark.parametrize(
    ("piece", "times"),
    [("name is ", 25_000), ("name: ", 30_000), ("*\n", 100_000), ("'", 200_000), ("x(", 100_000)],
)
def test_a_huge_reply_is_cleaned_without_backtracking_blowups(piece, times):
    # 200,000 characters of each pattern's worst input: each took seconds to minutes
    # (quadratic), and would here, where the run stays well under a second.
    reply = piece * times
    cleaned = clean_prediction(reply)
    assert len(cleaned) <= len(reply)


def test_a_long_prose_reply_is_not_read_as_a_lead_in():
    reply = "Some thoughts first. " * 20 + "The method name is `getUser`"
    assert clean_prediction(reply) == " ".join(reply.split())
    assert clean_prediction(reply[-30:]) == "getUser"
