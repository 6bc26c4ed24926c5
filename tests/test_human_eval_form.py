"""The offline HTML rating form: hostile names stay text, the export round-trips (Chromium)."""

from __future__ import annotations

import csv
import html
import json
import re
import shutil

import numpy as np
import pytest
from conftest import skip_unless_ci
from headless_chromium import Chromium

from wrdscore.corpora import code_language
from wrdscore.errors import WrdscoreError
from wrdscore.human_eval import (
    load_sheet_ratings,
    parse_stratum,
    read_study,
    render_form,
    stratified_design,
    write_study,
)
from wrdscore.human_eval._form import SELF_TEST_MARK

HOSTILE = [
    "<img src=x onerror=alert(1)>",
    "</script><script>document.title='pwned'</script>",
    'say "hi", then <!-- & leave',
    "=cmd|' /C calc'!A0",
]


@pytest.fixture
def study(tmp_path):
    refs = HOSTILE
    preds = ["x</SCRIPT>y", "@SUM(A1)", "a,b", "'quoted"]
    strata = [parse_stratum("4")]
    design = stratified_design({}, np.arange(4), 1, strata, seed=0)
    return read_study(write_study(tmp_path / "study", refs, preds, design, {}, strata, raters=1))


def test_page_embeds_data_only_as_escaped_json(study):
    page = (study.path / "forms" / "set1-rater1.html").read_text()
    assert page.count("<script") == 2 and page.lower().count("</script") == 2
    assert "<img" not in page and "<!--" not in page and "<b>" not in page
    assert "innerHTML" not in page and "\\u003cimg src=x onerror=alert(1)\\u003e" in page


def test_sheets_escape_formulas_and_import_the_names_back(study, tmp_path):
    # A spreadsheet would run a cell starting with = + - @ as a formula: every CSV the
    # study writes puts an apostrophe first, and reading it back removes it.
    for csv_file in (study.path / "pairs.csv", study.path / "sheets" / "set1-rater1.csv"):
        rows = list(csv.reader(line for line in csv_file.open() if not line.startswith("#")))
        cells = {cell for row in rows[1:] for cell in row[-4:]}
        assert {"'=cmd|' /C calc'!A0", "'@SUM(A1)", "''quoted"} <= cells
        assert not [cell for cell in cells if cell.startswith(tuple("=+-@"))]
    assert sorted(p.prediction for p in study.pairs) == sorted(
        ["x</SCRIPT>y", "@SUM(A1)", "a,b", "'quoted"]
    )
    lines = (study.path / "sheets" / "set1-rater1.csv").read_text().splitlines()
    filled = tmp_path / "filled.csv"
    filled.write_text("\n".join(f"{line}7" if line.startswith("s1p") else line for line in lines))
    ratings = load_sheet_ratings(study, [filled])
    assert sorted(ratings.references) == sorted(HOSTILE)
    assert ratings.human.tolist() == [0.7] * 4


def test_format_1_studies_read_their_cells_as_they_are(study):
    # Before the escaping (format 1), a name starting with an apostrophe was written as is.
    meta = study.path / "study.json"
    meta.write_text(meta.read_text().replace("wrdscore-study/2", "wrdscore-study/1"))
    pairs = study.path / "pairs.csv"
    pairs.write_text(pairs.read_text().replace(",''quoted", ",'quoted"))
    old = read_study(study.path)
    assert "'quoted" in [p.prediction for p in old.pairs]
    assert "'=cmd|' /C calc'!A0" in [p.reference for p in old.pairs]


def test_render_form_escapes_every_markup_character():
    page = render_form("s", "<t>", ["a & b"], ["id", "reference", "prediction", "score"],
                       [("1", "<&>", "x")], 10, "f")  # fmt: skip
    data = re.search(r'id="sheet-data">(.*?)</script>', page, re.S)[1]
    assert not set("<>&") & set(data)


def test_rater_forms_have_no_self_test_hook(study):
    # The forms a study writes for raters ignore the URL's fragment: no #selftest there.
    page = (study.path / "forms" / "set1-rater1.html").read_text()
    assert "location" not in page and "selftest" not in page.lower()
    assert "selfTestMark" not in page and SELF_TEST_MARK not in page


def self_test_build(study, tmp_path):
    """The test build of the set1-rater1 form: the same sheet, with the self-test hooks."""
    page = (study.path / "forms" / "set1-rater1.html").read_text()
    data = json.loads(re.search(r'id="sheet-data">(.*?)</script>', page, re.S)[1])
    path = tmp_path / "test-build" / "set1-rater1.html"
    path.parent.mkdir()
    rows = [tuple(row) for row in data["rows"]]
    args = data["sheet"], data["title"], data["comments"], data["columns"], rows, data["scale"]
    # A study with code highlights each in the language told from it, where one can be.
    languages = [_told_language(row[3]) for row in rows] if "highlight" in data else None
    assert render_form(*args, data["fingerprint"], languages=languages) == page
    path.write_text(render_form(*args, data["fingerprint"], self_test=True, languages=languages))
    return path


def _told_language(code):
    try:
        return code_language(code)
    except WrdscoreError:
        return None  # shown as plain text


# Under CI the browser tests must run: .ci/run installs Debian's chromium or fails.
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = skip_unless_ci(
    CHROMIUM is None, "no chromium binary found (Debian package chromium)"
)


@pytest.fixture
def browser(tmp_path):
    """Headless Chromium: each test waits on the page's events, never a fixed time."""
    assert CHROMIUM is not None, "CI is set but chromium is missing (apt-get install chromium)"
    with Chromium(CHROMIUM, tmp_path / "home", tmp_path / "downloads") as chromium:
        yield chromium


def check_self_test_sheet(study, sheet):
    """The exported sheet is marked and refused; unmarked, it imports with row i (in the
    sheet's order) scored i % 11 of 10."""
    with pytest.raises(WrdscoreError, match="filled in by the rating form's self-test"):
        load_sheet_ratings(study, [sheet])
    lines = sheet.read_text().splitlines(keepends=True)
    assert lines.count(f"# {SELF_TEST_MARK}\n") == 1
    sheet.write_text("".join(line for line in lines if SELF_TEST_MARK not in line))
    blank = (study.path / "sheets" / "set1-rater1.csv").read_text().splitlines()
    order = [line.split(",")[0] for line in blank if line.startswith("s1p")]
    expected = {pair_id: i / 10 for i, pair_id in enumerate(order)}
    ratings = load_sheet_ratings(study, [sheet])
    assert ratings.human.tolist() == [expected[i] for i in ratings.ids]
    assert sorted(ratings.references) == sorted(HOSTILE)


@pytest.mark.browser
@needs_chromium
def test_form_in_headless_chromium_exports_a_valid_sheet(study, tmp_path, browser):
    dom = browser.open(self_test_build(study, tmp_path).as_uri() + "#selftest")
    assert "self-test: exported" in dom
    # Hostile names are shown as text: escaped in the DOM, no element made from them.
    assert "&lt;img src=x onerror=alert(1)&gt;" in dom
    assert "<img" not in dom and "&lt;img" in dom
    assert re.search(r"<title>[^<]*rater 1 of 1</title>", dom)
    # The title is the heading, once: not again as the first instruction.
    title = re.search(r'<h1 id="title">([^<]*)</h1>', dom)[1]
    assert "rater 1 of 1" in title
    instructions = re.search(r'<ul id="instructions">(.*?)</ul>', dom, re.S)[1]
    assert title not in instructions and instructions.count("<li>") >= 2
    exported = html.unescape(re.search(r'<pre id="export-output">(.*?)</pre>', dom, re.S)[1])
    sheet = tmp_path / "returned" / "set1-rater1.csv"
    sheet.parent.mkdir()
    sheet.write_text(exported)
    check_self_test_sheet(study, sheet)


@pytest.mark.browser
@needs_chromium
def test_export_button_downloads_the_filled_sheet(study, tmp_path, browser):
    dom = browser.open(self_test_build(study, tmp_path).as_uri() + "#selftest-download")
    assert "Exported set1-rater1.csv" in dom
    # Chromium may finish writing the download after the page loaded: wait for its report.
    download = browser.downloaded()
    assert download == tmp_path / "downloads" / "set1-rater1.csv"
    check_self_test_sheet(study, download)


@pytest.mark.browser
@needs_chromium
@pytest.mark.parametrize("fragment", ["selftest", "selftest-download"])
def test_a_rater_form_ignores_the_self_test_hooks(study, tmp_path, fragment, browser):
    dom = browser.open((study.path / "forms" / "set1-rater1.html").as_uri() + f"#{fragment}")
    # The page ran (rows built), but nothing was filled in or exported. The status line is
    # set in the same call that starts a download, so its being empty once the page has
    # loaded shows that no download was started; none was reported either.
    assert dom.count('aria-label="score for row') == 4
    assert 'id="status" role="status"></p>' in dom and "self-test" not in dom
    assert not [e for e in browser.events if "download" in e["method"].lower()]
    assert list((tmp_path / "downloads").iterdir()) == []


# --- a study with code: raters read each method's source --------------------------------

HOSTILE_CODE = [
    'void a() { String s = "</textarea><script>alert(1)</script>"; }',
    "@Override\nint b() { return x < y && y > z ? 1 : 0; } // &amp; &lt;b&gt;",
    'int c() {\n    // "quoted", with, commas\n\treturn 0; }',
    "=cmd|' /C calc'!A0 </script><!-- </pre>",
]


@pytest.fixture
def code_study(tmp_path):
    strata = [parse_stratum("4")]
    design = stratified_design({}, np.arange(4), 1, strata, seed=0)
    refs, preds = ["a", "b", "c", "d"], ["x", "y", "z", "w"]
    out = write_study(
        tmp_path / "code-study", refs, preds, design, {}, strata, raters=1, codes=HOSTILE_CODE
    )
    return read_study(out)


def test_a_study_with_code_keeps_it_in_pairs_and_sheets(code_study):
    assert code_study.has_code and code_study.info["format"] == "wrdscore-study/3"
    assert {p.reference: p.code for p in code_study.pairs} == dict(
        zip("abcd", HOSTILE_CODE, strict=True)
    )
    sheet = code_study.path / "sheets" / "set1-rater1.csv"
    rows = list(csv.reader(line for line in sheet.open(newline="") if not line.startswith("#")))
    assert rows[0] == ["id", "reference", "prediction", "code", "score"]
    codes = {row[3] for row in rows[1:]}
    # A code cell is escaped like a name: '@Override' and '=cmd' would be formulas.
    assert "'@Override\nint b() { return x < y && y > z ? 1 : 0; } // &amp; &lt;b&gt;" in codes
    assert "'=cmd|' /C calc'!A0 </script><!-- </pre>" in codes
    assert not [c for c in codes if c.startswith(tuple("=+-@"))]


def test_code_reaches_the_form_only_as_escaped_json(code_study):
    page = (code_study.path / "forms" / "set1-rater1.html").read_text()
    assert page.count("<script") == 2 and page.lower().count("</script") == 2
    assert "</textarea" not in page and "<!--" not in page and "</pre>\\" not in page
    assert "&amp;" not in page and "&lt;b" not in page  # no entity reaches the markup raw
    data = json.loads(re.search(r'id="sheet-data">(.*?)</script>', page, re.S)[1])
    assert data["columns"] == ["id", "reference", "prediction", "code", "score"]
    assert sorted(row[3] for row in data["rows"]) == sorted(HOSTILE_CODE)
    assert "pre.code" in page and "overflow: auto" in page and "monospace" in page


def test_code_sheets_import_and_refuse_an_edited_code(code_study, tmp_path):
    from wrdscore.human_eval import deduplicate

    sheet = code_study.path / "sheets" / "set1-rater1.csv"
    rows = list(csv.reader(line for line in sheet.open(newline="") if not line.startswith("#")))
    comments = [line for line in sheet.open() if line.startswith("#")]
    filled = tmp_path / "set1-rater1.csv"

    def write(body_rows, line_break="\n"):
        with filled.open("w", newline="") as fh:
            fh.writelines(comments)
            csv.writer(fh, lineterminator="\n").writerows(
                [rows[0]] + [[*r[:3], r[3].replace("\n", line_break), r[4]] for r in body_rows]
            )

    # A spreadsheet that writes a cell's line breaks as \r\n changes nothing.
    write([[*r[:4], "5"] for r in rows[1:]], "\r\n")
    ratings = load_sheet_ratings(code_study, [filled])
    assert ratings.human.tolist() == [0.5] * 4
    assert sorted(ratings.codes) == sorted(HOSTILE_CODE)
    assert deduplicate(ratings)[0].codes == ratings.codes
    edited = [[*r[:3], r[3] + " ", "5"] if r[1] == "c" else [*r[:4], "5"] for r in rows[1:]]
    write(edited)
    with pytest.raises(WrdscoreError, match=r"the code of s1p\d+ differs from pairs.csv"):
        load_sheet_ratings(code_study, [filled])
    # A sheet without the code column does not belong to a study with code.
    with filled.open("w") as fh:
        fh.write("id,reference,prediction,score\n")
    with pytest.raises(WrdscoreError, match="expected the header id,reference,prediction,code"):
        load_sheet_ratings(code_study, [filled])


def test_the_same_names_on_two_methods_are_two_pairs():
    from wrdscore.human_eval import HumanRatings, deduplicate, distinct_pairs

    refs, preds = ["getName", "get name", "getName"], ["name"] * 3
    assert distinct_pairs(refs, preds).tolist() == [0]
    assert distinct_pairs(refs, preds, ["m1", "m2", "m1"]).tolist() == [0, 1]
    r = HumanRatings(["a", "b", "c"], ["1"] * 3, refs, preds, np.array([0.2, 0.4, 0.6]), [],
                     None, ["m1", "m2", "m1"])  # fmt: skip
    dedup, kept = deduplicate(r)
    assert kept.tolist() == [0, 1] and dedup.human.tolist() == [0.4, 0.4]


@pytest.mark.browser
@needs_chromium
def test_code_form_in_headless_chromium_shows_code_as_text(code_study, tmp_path, browser):
    dom = browser.open(self_test_build(code_study, tmp_path).as_uri() + "#selftest")
    assert "self-test: exported" in dom
    assert dom.count('<pre class="code"') == 4 and "<textarea" not in dom
    assert "&lt;/textarea&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in dom
    assert "&amp;amp; &amp;lt;b&amp;gt;" in dom  # entities in code shown as written
    exported = html.unescape(re.search(r'<pre id="export-output">(.*?)</pre>', dom, re.S)[1])
    sheet = tmp_path / "returned" / "set1-rater1.csv"
    sheet.parent.mkdir()
    sheet.write_text("".join(line for line in exported.splitlines(keepends=True)
                             if SELF_TEST_MARK not in line))  # fmt: skip
    ratings = load_sheet_ratings(code_study, [sheet])
    assert sorted(ratings.codes) == sorted(HOSTILE_CODE)


def test_a_code_items_name_to_mask_is_kept_for_scoring(tmp_path):
    strata = [parse_stratum("2")]
    design = stratified_design({}, np.arange(2), 1, strata, seed=0)
    codes = ["int size() { return n; }", {"code": "return items.size();", "name": "count"}]
    out = write_study(tmp_path / "s", ["size", "count"], ["n", "items"], design, {}, strata,
                      raters=1, codes=codes)  # fmt: skip
    rows = {r["reference"]: r for r in csv.DictReader((out / "pairs.csv").open(newline=""))}
    assert (rows["size"]["code_name"], rows["count"]["code_name"]) == ("", "count")
    items = {p.reference: p.code_item for p in read_study(out).pairs}
    assert items == {"size": codes[0], "count": codes[1]}
    # The raters see the source only.
    sheet = (out / "sheets" / "set1-rater1.csv").read_text()
    assert "return items.size();" in sheet and "code_name" not in sheet
