"""Issue 41's attacks on code support, constructed by hand, for every metric that reads code.

Three hand-written Java methods, each scored reference-free against its own code with its
true name (or summary) beside the texts a model could game the score with: a stock
template (a verb, or "Returns the"/"Gets the", with the body's most frequent word), the
true text padded with three body words, the true text repeated, the code's identifiers
pasted together and the signature. Every metric in :data:`READERS` meets the same cases.

What holds today is asserted; what does not is pinned in :data:`GAPS` (issue 41, item 5:
the floors the new code support must reach), so that closing a gap fails the test until
its entry is removed, and a new loss fails it too.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import require

from wrdscore.errors import WrdscoreError
from wrdscore.metrics import METRICS, get_metric

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import code_adversarial as bench

READERS = sorted(name for name, cls in METRICS.items() if cls.code_key is not None)
MINILM = "sentence-transformers/all-MiniLM-L6-v2"

TOTAL = """public int computeTotal(List<Item> items) {
    int total = 0;
    for (Item item : items) {
        total += item.getPrice() * item.getCount();
    }
    return total;
}"""

FIND = """public User findUserByEmail(String email) {
    for (User user : users) {
        if (user.getEmail().equalsIgnoreCase(email)) {
            return user;
        }
    }
    return null;
}"""

CLOSE = """public void closeQuietly(Closeable stream) {
    if (stream == null) {
        return;
    }
    try {
        stream.close();
    } catch (IOException ignored) {
        // nothing to do
    }
}"""

#: Each method's code and true summary.
METHODS = {
    "computeTotal": (TOTAL, "Computes the total price of the items."),
    "findUserByEmail": (FIND, "Finds the user with the given email address."),
    "closeQuietly": (CLOSE, "Closes the stream, ignoring any exception."),
}

#: The attacks, written out. The body's most frequent words as scoring reads it (the name
#: masked for names): item (5 times) in computeTotal, user in findUserByEmail, stream in
#: closeQuietly; for summaries the name's words are read too.
ATTACKS = {
    "name": {
        "computeTotal": {
            "get": "getItem",
            "is": "isItem",
            "create": "createItem",
            "set": "setItem",
            "padded": "computeTotalItemItemsGet",
            "x2": "computeTotalComputeTotal",
            "x3": "computeTotalComputeTotalComputeTotal",
            "pasted": "ListItemItemsTotalItemGetPriceGetCount",
            "signature": "public int computeTotal(List<Item> items)",
        },
        "findUserByEmail": {
            "get": "getUser",
            "is": "isUser",
            "create": "createUser",
            "set": "setUser",
            "padded": "findUserByEmailStringUsersGet",
            "x2": "findUserByEmailFindUserByEmail",
            "x3": "findUserByEmailFindUserByEmailFindUserByEmail",
            "pasted": "UserStringEmailUserUsersGetEmailEqualsIgnoreCase",
            "signature": "public User findUserByEmail(String email)",
        },
        "closeQuietly": {
            "get": "getStream",
            "is": "isStream",
            "create": "createStream",
            "set": "setStream",
            "padded": "closeQuietlyStreamCloseableIo",
            "x2": "closeQuietlyCloseQuietly",
            "x3": "closeQuietlyCloseQuietlyCloseQuietly",
            "pasted": "CloseableStreamCloseIOExceptionIgnored",
            "signature": "public void closeQuietly(Closeable stream)",
        },
    },
    "summary": {
        "computeTotal": {
            "returns": "Returns the item.",
            "gets": "Gets the item.",
            "padded": "Computes the total price of the items. item get compute",
            "x2": "Computes the total price of the items. Computes the total price of the items.",
            "pasted": "List Item items total item getPrice getCount",
            "signature": "public int computeTotal(List<Item> items)",
        },
        "findUserByEmail": {
            "returns": "Returns the user.",
            "gets": "Gets the user.",
            "padded": "Finds the user with the given email address. find by string",
            "x2": "Finds the user with the given email address. "
            "Finds the user with the given email address.",
            "pasted": "User String email user users getEmail equalsIgnoreCase",
            "signature": "public User findUserByEmail(String email)",
        },
        "closeQuietly": {
            "returns": "Returns the stream.",
            "gets": "Gets the stream.",
            "padded": "Closes the stream, ignoring any exception. close quietly closeable",
            "x2": "Closes the stream, ignoring any exception. "
            "Closes the stream, ignoring any exception.",
            "pasted": "Closeable stream close IOException ignored",
            "signature": "public void closeQuietly(Closeable stream)",
        },
    },
}

#: Where the true text does NOT beat the attack today (loses or ties), by target, metric and
#: method: issue 41's open floors, reported to be closed by the new code support (remove
#: an entry when its attack is beaten). Why, for the bundled default's best match:
#: a template of a word the code uses ("get" of getPrice, "item") finds every token in the
#: code, where the true name's verb ("compute") is not in it; padding with body words
#: raises the share of the prediction found in the code; a repeat leaves the mean over
#: tokens unchanged, and two to six tokens cost nothing in the length prior (a tie). For
#: summaries ``wrd`` counts each distinct word once and reads what of the code a summary
#: covers (``distinct-coverage``): repeats and templates lose, padding still wins.
GAPS = {
    "name": {
        "bertscore": {
            "closeQuietly": "padded x2 x3",
            "computeTotal": "x2 x3 get",
            "findUserByEmail": "x2 get is set",
        },
        "cka": {
            "closeQuietly": "padded x3 signature create get is set",
            "computeTotal": "padded x2 x3 create get is set",
            "findUserByEmail": "x2 get",
        },
        "rouge1": {
            "closeQuietly": "padded signature create get is set",
            "computeTotal": "padded x2 x3 create get is set",
            "findUserByEmail": "x2 create get is set",
        },
        "sbert": {
            "closeQuietly": "padded x2 x3 signature create get is set",
            "computeTotal": "padded x2 x3 create get is set",
            "findUserByEmail": "x2 get",
        },
        "sentence": {
            "closeQuietly": "padded x2 x3 signature create get is set",
            "findUserByEmail": "x2",
        },
        "subtoken": {
            "closeQuietly": "padded signature create get is set",
            "computeTotal": "padded x2 x3 create get is set",
            "findUserByEmail": "x2 create get is set",
        },
        "trwmd": {
            "closeQuietly": "padded signature",
            "computeTotal": "get",
            "findUserByEmail": "get is set",
        },
        "twmd": {
            "closeQuietly": "padded x2 x3 signature create get is set",
            "computeTotal": "padded create get is set",
            "findUserByEmail": "x2 get",
        },
        "wmd": {
            "closeQuietly": "padded signature create get is set",
            "computeTotal": "padded create get is set",
            "findUserByEmail": "x2 get",
        },
        "wrd": {
            "closeQuietly": "padded x2 x3",
            "computeTotal": "x2 x3 get",
            "findUserByEmail": "x2 get is set",
        },
    },
    "summary": {
        "bertscore": {
            "closeQuietly": "padded x2",
            "computeTotal": "padded x2 gets",
            "findUserByEmail": "padded x2 gets",
        },
        "cka": {
            "closeQuietly": "padded x2",
            "computeTotal": "padded gets",
            "findUserByEmail": "padded x2 gets returns",
        },
        "rouge1": {
            "closeQuietly": "padded gets returns",
            "computeTotal": "padded",
            "findUserByEmail": "padded x2 gets returns",
        },
        "sbert": {
            "closeQuietly": "padded x2",
            "computeTotal": "padded x2",
            "findUserByEmail": "gets returns",
        },
        "sentence": {
            "closeQuietly": "padded x2",
            "computeTotal": "padded",
            "findUserByEmail": "padded x2",
        },
        "subtoken": {
            "closeQuietly": "padded gets returns",
            "computeTotal": "padded",
            "findUserByEmail": "padded x2 gets returns",
        },
        "trwmd": {
            "closeQuietly": "padded",
            "computeTotal": "padded gets",
            "findUserByEmail": "padded gets",
        },
        "twmd": {
            "closeQuietly": "padded x2",
            "computeTotal": "padded x2",
            "findUserByEmail": "padded x2",
        },
        "wmd": {
            "closeQuietly": "padded x2",
            "computeTotal": "padded x2",
            "findUserByEmail": "padded x2 gets",
        },
        "wrd": {
            "closeQuietly": "padded",
            "computeTotal": "padded",
            "findUserByEmail": "padded",
        },
    },
}

#: The benchmark's keys of the attacks it builds itself (pasted and signature are the
#: older attacks, checked in tests/test_code_adversarial_bench.py).
BENCH_KEYS = {
    "get": "template get",
    "is": "template is",
    "create": "template create",
    "set": "template set",
    "returns": "template returns",
    "gets": "template gets",
    "padded": "padded",
    "x2": "repeat x2",
    "x3": "repeat x3",
}


def _metric(name: str, target: str):
    if name == "sentence":
        require("sentence_transformers")
        return get_metric(name, encoder=MINILM, target=target)
    return get_metric(name, target=target)


@pytest.fixture(scope="module")
def metric_for():
    """Each metric built once for the module, per target: building one that needs an
    encoder loads the encoder (seconds); scoring leaves a metric as it was."""
    built = {}

    def metric(name: str, target: str):
        if (name, target) not in built:
            built[name, target] = _metric(name, target)
        return built[name, target]

    return metric


def _truth(method: str, target: str) -> str:
    return method if target == "name" else METHODS[method][1]


@pytest.mark.parametrize("target", ["name", "summary"])
def test_the_benchmark_builds_these_attacks(target):
    for method, (code, _) in METHODS.items():
        built = bench.issue41_attacks(code, method, _truth(method, target), target)
        want = {BENCH_KEYS[k]: v for k, v in ATTACKS[target][method].items() if k in BENCH_KEYS}
        assert built == want, method


def test_every_gap_names_a_metric_that_reads_code_and_an_attack_it_meets():
    for target, by_metric in GAPS.items():
        assert set(by_metric) == set(READERS), target
        for methods in by_metric.values():
            for method, attacks in methods.items():
                assert set(attacks.split()) <= set(ATTACKS[target][method]), (method, attacks)


@pytest.mark.parametrize("target", ["name", "summary"])
@pytest.mark.parametrize("name", READERS)
def test_the_true_text_against_each_attack(metric_for, name, target):
    metric = metric_for(name, target)
    lost = set()
    for method, (code, _) in METHODS.items():
        attacks = ATTACKS[target][method]
        texts = [_truth(method, target), *attacks.values()]
        values = metric.score(None, texts, code=[code] * len(texts)).values["code"]
        truth = values[0]
        lost |= {(method, a) for a, v in zip(attacks, values[1:], strict=True) if not truth > v}
    pinned = {(m, a) for m, attacks in GAPS[target][name].items() for a in attacks.split()}
    assert not lost - pinned, f"the true text no longer beats: {sorted(lost - pinned)}"
    assert not pinned - lost, f"now beaten, remove from GAPS: {sorted(pinned - lost)}"


@pytest.mark.parametrize("name", READERS)
def test_an_empty_method_supports_nothing_and_no_code_is_one_error(metric_for, name):
    # A method without a body gives every text the same support, none: no attack wins.
    metric = metric_for(name, "name")
    attacks = ATTACKS["name"]["computeTotal"]
    texts = ["computeTotal", *attacks.values()]
    res = metric.score(None, texts, code=["public int computeTotal() { }"] * len(texts))
    assert res.values["code"].tolist() == [0.0] * len(texts)
    assert res.empty_code == len(texts)
    # No code at all is the caller's mistake, not a score.
    with pytest.raises(WrdscoreError, match=r"^code 1 cannot be read: empty code"):
        metric.score(None, texts[:2], code=["", ""])
