"""Studies in any language (issue 34): predictions decoded and cleaned as `score` reads
them, and code highlighted in its language in the forms, as text (never markup)."""

from __future__ import annotations

import csv
import html
import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import skip_unless_ci
from headless_chromium import Chromium

from wrdscore.errors import WrdscoreError
from wrdscore.human_eval import parse_stratum, sample_study
from wrdscore.human_eval._form import highlight_code, render_form
from wrdscore.human_eval._study import read_names

PY_CODE = [
    'def get_user_name(self, user_id):\n    """The name."""\n    return "</script><b>x"\n',
    "def count_rows(table):\n    # rows\n    return len(table.rows) + 1\n",
    "def is_empty(items):\n    return not items\n",
]


def _payload(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="sheet-data">(.*?)</script>', page, re.S)
    assert match is not None
    return json.loads(match.group(1))


def test_jsonl_predictions_are_decoded_and_cleaned(tmp_path: Path) -> None:
    preds = tmp_path / "preds.jsonl"
    preds.write_text('"findUserByEmail"\n["get", "name"]\n"```java\\ngetUserById()\\n```"\n')
    assert read_names(preds) == ["findUserByEmail", "get name", "```java\ngetUserById()\n```"]
    assert read_names(preds, clean=True) == ["findUserByEmail", "get name", "getUserById"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('"a"\n{"x": 1}\n')
    with pytest.raises(WrdscoreError, match=r"bad.jsonl:2: expected"):
        read_names(bad)


@pytest.mark.parametrize(
    "language",
    ["java", "python", "javascript", "typescript", "go", "php", "ruby", "c_sharp", "c", "cpp"],
)
def test_highlighting_keeps_the_code_exactly(language: str) -> None:
    code = 'f("<b>&amp;</b>")  // x\n/* y */ # z\n\n'
    pieces = highlight_code(code, language)
    assert "".join(text for _, text in pieces) == code
    assert {kind for kind, _ in pieces} <= {"", "k", "s", "c", "n", "f"}
    # Pygments reads every line end as LF and drops a byte-order mark: the CRs of a
    # CRLF file were lost.
    for own in ("\r\n", "\r", "\ufeff"):
        other = own + code.replace("\n", "\r\n") if own == "\ufeff" else code.replace("\n", own)
        assert "".join(text for _, text in highlight_code(other, language)) == other


def test_form_highlights_python_code_as_text(tmp_path: Path) -> None:
    refs, preds, code = tmp_path / "refs.txt", tmp_path / "preds.jsonl", tmp_path / "code.jsonl"
    refs.write_text("get_user_name\ncount_rows\nis_empty\n")
    preds.write_text('"`getUserName`"\n"count"\n"empty"\n')
    code.write_text("".join(json.dumps(c) + "\n" for c in PY_CODE))
    sample_study(
        refs, preds, tmp_path / "study", code=code, n_sets=1, strata=[parse_stratum("3")],
        raters=1, clean_predictions=True, language="python",
    )  # fmt: skip
    study = tmp_path / "study"
    assert json.loads((study / "study.json").read_text())["language"] == "python"
    assert "getUserName" in (study / "pairs.csv").read_text()
    assert "`getUserName`" not in (study / "pairs.csv").read_text()
    (form,) = (study / "forms").iterdir()
    page = form.read_text()
    data = _payload(page)
    # One list of pieces per row, in the rows' order, each the row's code exactly.
    assert len(data["highlight"]) == len(data["rows"]) == 3
    for row, pieces in zip(data["rows"], data["highlight"], strict=True):
        assert "".join(t for _, t in pieces) == row[3]
    kinds = {kind for pieces in data["highlight"] for kind, _ in pieces}
    assert {"k", "f"} <= kinds
    # The code's own "</script>" never ends the data block: escaped in the JSON.
    assert page.count("</script>") == 2 and "\\u003c/script\\u003e" in page


def test_detected_language_is_highlighted_and_undecidable_code_is_refused(
    tmp_path: Path,
) -> None:
    refs, preds, code = tmp_path / "refs.txt", tmp_path / "preds.txt", tmp_path / "code.jsonl"
    refs.write_text("count_rows\nis_empty\n")
    preds.write_text("count\nempty\n")
    code.write_text("".join(json.dumps(c) + "\n" for c in PY_CODE[1:]))
    sample_study(refs, preds, tmp_path / "s", code=code, n_sets=1, strata=[parse_stratum("2")],
                 raters=1)  # fmt: skip
    (form,) = (tmp_path / "s" / "forms").iterdir()
    assert any(p == ["k", "def"] for p in _payload(form.read_text())["highlight"][0])
    code.write_text(json.dumps("print(x)") + "\n" + json.dumps(PY_CODE[2]) + "\n")
    with pytest.raises(WrdscoreError, match=r"code.jsonl:1: cannot tell the code's language"):
        sample_study(refs, preds, tmp_path / "t", code=code, n_sets=1,
                     strata=[parse_stratum("2")], raters=1)  # fmt: skip


def test_a_form_without_languages_shows_plain_code() -> None:
    columns = ["id", "reference", "prediction", "code", "score"]
    page = render_form("s", "t", [], columns, [("1", "a", "b", "int f() {}")], 10, "f")
    assert "highlight" not in _payload(page)


# Under CI the browser test must run (as tests/test_human_eval_form.py's do).
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.browser
@skip_unless_ci(CHROMIUM is None, "no chromium binary found (Debian package chromium)")
def test_highlighted_code_in_headless_chromium_is_text_in_spans(tmp_path: Path) -> None:
    # The page builds the highlighted code as spans whose text is the code's: in the
    # rendered page the code reads as written (markup in it escaped), coloured by kind.
    assert CHROMIUM is not None, "CI is set but chromium is missing (apt-get install chromium)"
    code = PY_CODE[0]
    columns = ["id", "reference", "prediction", "code", "score"]
    page = render_form("s", "t", [], columns, [("1", "a", "b", code)], 10, "f",
                       languages=["python"])  # fmt: skip
    path = tmp_path / "form.html"
    path.write_text(page)
    with Chromium(CHROMIUM, tmp_path / "home", tmp_path / "downloads") as browser:
        dom = browser.open(path.as_uri())
    pre = re.search(r'<pre class="code"[^>]*>(.*?)</pre>', dom, re.S)
    assert pre is not None
    assert '<span class="k">def</span>' in pre[1]
    assert '<span class="f">get_user_name</span>' in pre[1]
    text = re.sub(r"</?span[^>]*>", "", pre[1])
    assert html.unescape(text) == code
    assert "&lt;/script&gt;&lt;b&gt;x" in text  # the code's markup is text


def _ambiguous_inputs(tmp_path: Path) -> tuple[Path, Path, Path]:
    """refs, preds and code of three PHP functions, the first of which
    (``function get_name($user) { return $user; }``) no grammar can be told apart from:
    JavaScript and TypeScript read it as well. (A function, not a fragment such as
    ``print(get_name(user))``: a name is masked only where the code declares it.)"""
    refs, preds, code = tmp_path / "refs.txt", tmp_path / "preds.txt", tmp_path / "code.jsonl"
    refs.write_text("get_name\ncount_rows\nis_empty\n")
    preds.write_text("name\ncount\nempty\n")
    sources = [
        "function get_name($user) { return $user; }\n",
        "function count_rows($table) { return count($table->rows) + 1; }\n",
        "function is_empty($items) { return $items->count() == 0; }\n",
    ]
    code.write_text("".join(json.dumps(c) + "\n" for c in sources))
    return refs, preds, code


def test_a_study_is_analysed_in_the_language_it_was_sampled_in(tmp_path: Path) -> None:
    # get_name cannot be told apart; sampled with --language php, the analysis scores it
    # in PHP too instead of refusing it.
    from test_study_cli import fill_code_sheets

    from wrdscore.human_eval import analyze_study

    refs, preds, code = _ambiguous_inputs(tmp_path)
    study = tmp_path / "study"
    sample_study(refs, preds, study, code=code, n_sets=1, strata=[parse_stratum("3")],
                 raters=2, language="php")  # fmt: skip
    fill_code_sheets(study, tmp_path / "rated")
    analysis = analyze_study(tmp_path / "report", study=study,
                             ratings=[str(tmp_path / "rated" / "*.csv")],
                             metrics=["rouge1"], baseline=None, resamples=40)  # fmt: skip
    assert "rouge1.code" in [m.metric.name for m in analysis.metrics]


def test_a_language_without_code_is_refused(tmp_path: Path) -> None:
    # It was written to study.json unchecked (language "klingon") and never used.
    refs, preds = tmp_path / "refs.txt", tmp_path / "preds.txt"
    refs.write_text("count_rows\nis_empty\n")
    preds.write_text("count\nempty\n")
    with pytest.raises(WrdscoreError, match=r"--language applies to --code snippets"):
        sample_study(refs, preds, tmp_path / "s", n_sets=1, strata=[parse_stratum("2")],
                     raters=1, language="klingon")  # fmt: skip
    assert not (tmp_path / "s").exists()


def test_strata_on_code_are_scored_in_the_language_given(tmp_path: Path) -> None:
    # get_name cannot be told apart: with --language php a stratum on a code value told
    # it again and refused it ("cannot tell the code's language").
    refs, preds, code = _ambiguous_inputs(tmp_path)
    design = sample_study(refs, preds, tmp_path / "s", code=code, n_sets=1,
                          strata=[parse_stratum("3:rouge1.code>=0")], raters=1,
                          language="php")  # fmt: skip
    assert [len(s) for s in design.sets] == [3]


def test_a_method_over_the_cap_is_cut_as_score_cuts_it(tmp_path: Path) -> None:
    # score --code cuts a long method at a line (issue 35); study sample refused it
    # ("code of 60,790 characters is over the cap of 16,384").
    from wrdscore.human_eval._study import read_code_file

    body = "".join(f"    v{i} = x + {i}\n" for i in range(3000))
    code = tmp_path / "code.jsonl"
    code.write_text(json.dumps("def f(x):\n" + body) + "\n")
    (item,) = read_code_file(code, "python")
    assert isinstance(item, dict) and item["language"] == "python"
    assert len(item["code"]) > 16_384  # the form shows the whole method


@pytest.mark.browser
@skip_unless_ci(CHROMIUM is None, "no chromium binary found (Debian package chromium)")
def test_code_shows_its_lines_whatever_its_line_ends(tmp_path: Path) -> None:
    # A CRLF method highlighted kept its lines only because its CRs were dropped; a
    # browser shows a lone CR (an old Mac's line end) as a space, all on one line.
    assert CHROMIUM is not None, "CI is set but chromium is missing (apt-get install chromium)"
    code = "int f() {\n  return 1; // one\n}"
    rows = [(str(i), "a", "b", code.replace("\n", end)) for i, end in enumerate(["\r\n", "\r"] * 2)]
    columns = ["id", "reference", "prediction", "code", "score"]
    page = render_form("s", "t", [], columns, rows, 10, "f",
                       languages=["java", "java", None, None])  # fmt: skip
    path = tmp_path / "form.html"
    path.write_text(page, newline="")
    # Lines on screen: the distinct tops of each code box's line boxes.
    count = """Array.from(document.querySelectorAll("pre.code")).map(function (pre) {
        const range = document.createRange();
        range.selectNodeContents(pre);
        return new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top))).size;
    })"""
    with Chromium(CHROMIUM, tmp_path / "home", tmp_path / "downloads") as browser:
        assert browser.evaluate(path.as_uri(), count) == [3, 3, 3, 3]


# --- instructions that follow the target and the code's language (issue 43) ----------


def _instructions(study: Path) -> list[str]:
    """The instruction lines of each sheet and form of a study (they must agree)."""
    lines = set()
    for sheet in (study / "sheets").iterdir():
        lines.add(tuple(x[2:] for x in sheet.read_text().splitlines() if x.startswith("# ")))
    for form in (study / "forms").iterdir():
        lines.add(tuple(_payload(form.read_text())["comments"]))
    assert len({rows[1:] for rows in lines}) == 1  # all but the title line are the same
    return list(next(iter(lines))[1:])


def test_the_instructions_name_the_target_and_the_codes_language(tmp_path: Path) -> None:
    refs, preds, code = tmp_path / "refs.txt", tmp_path / "preds.txt", tmp_path / "code.jsonl"
    refs.write_text("Return the user's name.\nCount the rows.\nWhether it is empty.\n")
    preds.write_text("the name of a user\nthe number of rows\ntrue if empty\n")
    code.write_text("".join(json.dumps(c) + "\n" for c in PY_CODE))
    strata = [parse_stratum("3")]
    sample_study(refs, preds, tmp_path / "s", code=code, n_sets=1, strata=strata, raters=2,
                 target="summary")  # fmt: skip
    assert _instructions(tmp_path / "s")[:2] == [
        "Each row pairs the true summary of a Python function (reference) with a predicted "
        "summary, and shows the function's source code.",
        "Read the code, then rate how well the prediction summarises what the function does, "
        "from 0 (unrelated) to 10 (as good a summary as the reference or better); fractions "
        "are allowed.",
    ]
    assert json.loads((tmp_path / "s" / "study.json").read_text())["target"] == "summary"
    # Names of Go code; and of code in several languages, or none shown: no language.
    code.write_text(
        "".join(json.dumps(f"func F{i}() int {{ return {i} }}") + "\n" for i in range(3))
    )
    sample_study(refs, preds, tmp_path / "go", code=code, n_sets=1, strata=strata, raters=1)
    assert _instructions(tmp_path / "go")[0] == (
        "Each row pairs the true name of a Go function (reference) with a predicted name, "
        "and shows the function's source code."
    )
    mixed = [PY_CODE[0], "public int size() { return count; }", PY_CODE[2]]
    code.write_text("".join(json.dumps(c) + "\n" for c in mixed))
    sample_study(refs, preds, tmp_path / "mixed", code=code, n_sets=1, strata=strata, raters=1)
    assert _instructions(tmp_path / "mixed")[0].startswith(
        "Each row pairs the true name of a method or function (reference)"
    )
    sample_study(refs, preds, tmp_path / "none", n_sets=1, strata=strata, raters=1)
    assert _instructions(tmp_path / "none")[0] == (
        "Each row pairs the true name of a method or function (reference) with a predicted name."
    )
    for study in ("s", "go", "mixed", "none"):
        assert not any("Java" in line for line in _instructions(tmp_path / study))


def test_a_summary_study_reads_the_code_for_summaries(tmp_path: Path) -> None:
    # Target name masks the declared name in the code; a summary is rated against the
    # whole code, name included, as score --target summary reads it.
    from wrdscore.metrics import get_metric

    refs, preds, code = tmp_path / "refs.txt", tmp_path / "preds.txt", tmp_path / "code.jsonl"
    refs.write_text("Return the user name.\nCount the rows.\nWhether it is empty.\n")
    preds.write_text("get user name\ncount rows\nis empty\n")
    code.write_text("".join(json.dumps(c) + "\n" for c in PY_CODE))
    strata = [parse_stratum("3:rouge1.code>=0")]
    for target in ("name", "summary"):
        sample_study(refs, preds, tmp_path / target, code=code, n_sets=1, strata=strata,
                     raters=1, target=target, language="python")  # fmt: skip
    differ = 0
    for target in ("name", "summary"):
        metric = get_metric("rouge1", target=target, language="python")
        other = get_metric("rouge1", target="summary" if target == "name" else "name",
                           language="python")  # fmt: skip
        for row in csv.DictReader((tmp_path / target / "pairs.csv").open()):
            args = ([row["reference"]], [row["prediction"]])
            want = float(metric.score(*args, code=[row["code"]]).values["code"][0])
            assert float(row["rouge1.code"]) == pytest.approx(want, abs=1e-6)
            differ += abs(want - float(other.score(*args, code=[row["code"]]).values["code"][0]))
    assert differ > 0.1  # the target changed how the code was read


def test_options_are_checked_before_any_file_is_read_or_scored(tmp_path: Path) -> None:
    # --raters 0 was refused only after the pairs were scored and drawn (the model
    # loaded, the references read): here neither file nor model exists.
    missing = tmp_path / "missing.txt"
    for options, message in (
        ({"raters": 0}, "the number of raters must be at least 1, got 0"),
        ({"n_sets": 0}, "the number of sets must be at least 1, got 0"),
        ({"scale": 0}, "the rating scale must be at least 1, got 0"),
        ({"strata": []}, "a study needs at least one stratum"),
        ({"target": "docstring"}, "unknown target 'docstring'; choose one of name, summary"),
    ):
        with pytest.raises(WrdscoreError, match=re.escape(message)):
            sample_study(missing, missing, tmp_path / "s", embeddings=tmp_path / "no-model",
                         **options)  # fmt: skip
    assert not (tmp_path / "s").exists()


def test_alternative_references_are_shown_without_tabs_and_score_as_the_best(
    tmp_path: Path,
) -> None:
    from test_study_cli import fill_code_sheets

    from wrdscore.human_eval import analyze_study
    from wrdscore.metrics import get_metric

    refs, preds = tmp_path / "refs.txt", tmp_path / "preds.txt"
    refs.write_text("getSize\tsize\tgetCount\nget name\nisEmpty\trunFast\n")
    preds.write_text("count\nname\nempty\n")
    study = tmp_path / "study"
    sample_study(refs, preds, study, n_sets=1, strata=[parse_stratum("3:rouge1>=0")], raters=3)
    for path in (study / "sheets").iterdir():
        assert "\t" not in path.read_text()
    for path in (study / "forms").iterdir():
        assert not any("\t" in cell for row in _payload(path.read_text())["rows"] for cell in row)
    sheet = (study / "sheets" / "set1-rater1.csv").read_text()
    assert ",getSize | size | getCount,count," in sheet
    assert "lists them separated by '|': rate against the best of them." in sheet
    (form,) = [f for f in (study / "forms").iterdir() if f.name == "set1-rater1.html"]
    assert ["getSize | size | getCount", "count"] in [
        r[1:3] for r in _payload(form.read_text())["rows"]
    ]
    # pairs.csv keeps the alternatives, and the strata scored the best of them.
    rows = {r["prediction"]: r for r in csv.DictReader((study / "pairs.csv").open())}
    assert rows["count"]["reference"] == "getSize\tsize\tgetCount"
    best = get_metric("rouge1").score([[["getSize"], ["size"], ["getCount"]]], ["count"])
    assert best.f1[0] > 0.6  # getCount; the three read as one reference gave .333
    assert float(rows["count"]["rouge1"]) == pytest.approx(float(best.f1[0]), abs=1e-6)
    # Sheets showing them import; two of the three raters: a note names the third.
    fill_code_sheets(study, tmp_path / "rated")
    (tmp_path / "rated" / "set1-rater3.csv").unlink()
    analysis = analyze_study(tmp_path / "report", study=study,
                             ratings=[str(tmp_path / "rated" / "*.csv")], metrics=["rouge1"],
                             baseline=None, resamples=40)  # fmt: skip
    assert analysis.ratings.notes == (
        "set 1 has 2 of the 3 raters' sheets of the design (set1-rater3 missing): it is "
        "analysed with the raters it has",
    )
    scored = dict(zip(analysis.ratings.predictions, analysis.metrics[0].metric.scores, strict=True))
    assert scored["count"] == pytest.approx(float(best.f1[0]))
