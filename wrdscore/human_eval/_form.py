"""A self-contained offline HTML rating form for one sheet.

The page needs no network and no server: open it from disk, rate the pairs, press
*Export CSV* to download the filled-in sheet (the same format as the CSV sheet). The
names come from untrusted code, so the data travels as JSON in a non-executed
``<script type="application/json">`` block with ``<``, ``>`` and ``&`` escaped, and the
page script only ever sets ``textContent``, ``value`` and ``className``, never markup.
Code is highlighted in its language by Pygments's lexer (:func:`highlight_code`): the
data holds each piece of code with the class of its kind (keyword, string...), and the
page sets each piece as the text of a ``<span>`` of that class.

A *test build* of the form (``render_form(..., self_test=True)``, never written into a
study) has two hooks for a headless browser: opening it at ``#selftest`` fills every
score with ``row % (scale + 1)`` and writes the export into the page instead of
downloading it, so the whole round trip can be checked; ``#selftest-download`` fills
the same scores and downloads the export as a rater's *Export CSV* does. The forms
handed to raters ignore the URL's fragment, so no rater can produce such a sheet; and
a test build marks every sheet it exports (:data:`SELF_TEST_MARK`), which the import
refuses, should one be handed out by mistake.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

#: The comment line a test build of the form adds to every sheet it exports; a sheet
#: with it is refused on import (it holds no rater's scores).
SELF_TEST_MARK = "SELF-TEST EXPORT of a test build of the form: no rater filled this in"

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<title>wrdscore rating sheet</title>
<style>
body { font-family: sans-serif; margin: 2em auto; max-width: 60em; }
table { border-collapse: collapse; width: 100%; }
td, th { border-bottom: 1px solid #ccc; padding: 0.3em 0.5em; text-align: left; }
td.name { font-family: monospace; white-space: pre-wrap; word-break: break-all; }
input { width: 5em; }
tr.bad input { background: #fdd; }
#status { font-weight: bold; margin: 1em 0; }
pre { background: #f4f4f4; padding: 0.5em; white-space: pre-wrap; }
tr.code td { border-bottom: 2px solid #888; }
pre.code { font-family: monospace; white-space: pre; overflow: auto; max-height: 24em;
  margin: 0; }
pre.code .k { color: #0000b0; font-weight: bold; }
pre.code .s { color: #a31515; }
pre.code .c { color: #6a737d; font-style: italic; }
pre.code .n { color: #098658; }
pre.code .f { color: #795e26; }
</style>
</head>
<body>
<h1 id="title">wrdscore rating sheet</h1>
<noscript><p>This form needs JavaScript. Without it, fill in the CSV sheet instead.</p></noscript>
<ul id="instructions"></ul>
<table>
<thead>
<tr><th>#</th><th>reference</th><th>prediction</th><th id="score-head">score</th></tr>
</thead>
<tbody id="rows"></tbody>
</table>
<p><button id="export" type="button">Export CSV</button></p>
<p id="status" role="status"></p>
<pre id="export-output" hidden></pre>
<script type="application/json" id="sheet-data">__DATA__</script>
<script>
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("sheet-data").textContent);
  const storageKey = "wrdscore-form:" + data.sheet + ":" + data.fingerprint;
  const inputs = [];

  function el(tag, text) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function lines(code) {
    // A browser shows a lone CR (an old Mac's line end) as a space, so every line
    // break is shown as LF; the data keeps the code's own (a piece never splits a CRLF).
    return code.replace(/\\r\\n?/g, "\\n");
  }
  function loadSaved() {
    try { return JSON.parse(window.localStorage.getItem(storageKey) || "{}"); }
    catch (e) { return {}; }
  }
  function save() {
    const values = {};
    inputs.forEach(function (input, i) { values[data.rows[i][0]] = input.value; });
    try { window.localStorage.setItem(storageKey, JSON.stringify(values)); } catch (e) {}
  }
  function csvField(value) {
    return /[",\\r\\n]|^\\s|\\s$/.test(value) ? '"' + value.replace(/"/g, '""') + '"' : value;
  }
  // The same escaping as the CSV sheets (wrdscore.human_eval.sheet_cell): a name that
  // starts like a spreadsheet formula gets an apostrophe, which the import removes.
  function sheetCell(value) {
    return /^[=+@\\t\\r'-]/.test(value) ? "'" + value : value;
  }
  function problems() {
    const bad = [];
    inputs.forEach(function (input, i) {
      const text = input.value.trim();
      const number = Number(text);
      const ok = text !== "" && Number.isFinite(number) && number >= 0 && number <= data.scale;
      input.parentNode.parentNode.className = ok || text === "" ? "" : "bad";
      if (!ok) bad.push(i + 1);
    });
    return bad;
  }
  function buildCsv(marks) {
    const lines = data.comments.concat(marks).map(function (c) { return "# " + c; });
    lines.push(data.columns.join(","));
    data.rows.forEach(function (row, i) {
      // id, the texts (reference, prediction and, in a study with code, the code), score.
      const cells = [row[0]].concat(row.slice(1).map(sheetCell), [inputs[i].value.trim()]);
      lines.push(cells.map(csvField).join(","));
    });
    return lines.join("\\n") + "\\n";
  }
  function download(csv) {
    const link = el("a");
    link.href = URL.createObjectURL(new Blob([csv], { type: "text/csv" }));
    link.download = data.sheet + ".csv";
    document.body.appendChild(link);
    link.click();
    link.remove();
    document.getElementById("status").textContent =
      "Exported " + data.sheet + ".csv: hand this file back.";
  }
  function exportCsv(deliver, marks) {
    const bad = problems();
    if (bad.length) {
      document.getElementById("status").textContent =
        bad.length + (bad.length === 1 ? " row needs" : " rows need") +
        " a score from 0 to " + data.scale + ": " +
        bad.slice(0, 10).join(", ") + (bad.length > 10 ? ", ..." : "");
      return;
    }
    deliver(buildCsv(marks));
  }

  document.title = data.title;
  document.getElementById("title").textContent = data.title;
  document.getElementById("score-head").textContent = "score (0-" + data.scale + ")";
  // The title is the sheets' first comment (the CSV export keeps it, to tell the sheet
  // on import); the page shows it once, as its heading.
  data.comments.forEach(function (c) {
    if (c !== data.title) document.getElementById("instructions").appendChild(el("li", c));
  });
  const saved = loadSaved();
  const body = document.getElementById("rows");
  data.rows.forEach(function (row, i) {
    const tr = el("tr");
    tr.appendChild(el("td", String(i + 1)));
    const ref = el("td", row[1]);
    ref.className = "name";
    const pred = el("td", row[2]);
    pred.className = "name";
    tr.appendChild(ref);
    tr.appendChild(pred);
    const cell = el("td");
    const input = el("input");
    input.type = "number";
    input.min = "0";
    input.max = String(data.scale);
    input.step = "any";
    input.setAttribute("aria-label", "score for row " + (i + 1));
    input.value = saved[row[0]] || "";
    input.addEventListener("input", save);
    cell.appendChild(input);
    tr.appendChild(cell);
    body.appendChild(tr);
    inputs.push(input);
    if (row.length > 3) {
      // The method's code, in a row of its own under the pair: monospaced, scrollable,
      // and set as text like everything else.
      const codeRow = el("tr");
      codeRow.className = "code";
      const codeCell = el("td");
      codeCell.colSpan = 4;
      const pieces = data.highlight ? data.highlight[i] : null;
      const pre = el("pre", pieces ? "" : lines(row[3]));
      if (pieces) {
        // [kind, text] pairs from the Python side: text set as text, kind a class.
        pieces.forEach(function (piece) {
          const span = el("span", lines(piece[1]));
          if (piece[0]) span.className = piece[0];
          pre.appendChild(span);
        });
      }
      pre.className = "code";
      pre.tabIndex = 0;
      pre.setAttribute("aria-label", "code of row " + (i + 1));
      codeCell.appendChild(pre);
      codeRow.appendChild(codeCell);
      body.appendChild(codeRow);
    }
  });
  document.getElementById("export").addEventListener("click", function () {
    exportCsv(download, []);
  });
__SELF_TEST_HOOKS__})();
</script>
</body>
</html>
"""


# Appended to the page script of a test build only (see the module docstring).
_SELF_TEST_HOOKS = """\
  // Test build only: render_form(self_test=True). Never in a form handed to raters.
  const mode = window.location.hash;
  if (mode === "#selftest" || mode === "#selftest-download") {
    inputs.forEach(function (input, i) { input.value = String(i % (data.scale + 1)); });
    exportCsv(mode === "#selftest-download" ? download : function (csv) {
      const out = document.getElementById("export-output");
      out.textContent = csv;
      out.hidden = false;
      document.getElementById("status").textContent = "self-test: exported";
    }, [data.selfTestMark]);
  }
"""


def _script_safe_json(value: object) -> str:
    # Inside <script> the HTML parser only looks for "</script" and "<!--"; escaping
    # every <, > and & keeps any text from ending or commenting out the block.
    text = json.dumps(value, ensure_ascii=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


# Pygments's name of each language's lexer (PHP's reads code without ``<?php``).
_LEXERS = {
    "java": "java",
    "python": "python",
    "javascript": "javascript",
    "typescript": "typescript",
    "go": "go",
    "php": "php",
    "ruby": "ruby",
    "c_sharp": "csharp",
    "c": "c",
    "cpp": "cpp",
}
# A line end as Pygments reads it (CRLF before CR), and as it gives it back.
_LINE_END = re.compile(r"\r\n|\r|\n")
_LF = re.compile("\n")
# The kinds of token the form colours (a class of one letter); the rest is plain text.
_KINDS = (("Comment", "c"), ("Literal.String", "s"), ("Literal.Number", "n"),
          ("Keyword", "k"), ("Name.Function", "f"))  # fmt: skip


def highlight_code(code: str, language: str) -> list[list[str]]:
    """``code`` as ``[kind, text]`` pieces in order, by Pygments's lexer of ``language``.

    ``kind`` is ``"k"`` (keyword), ``"s"`` (string), ``"c"`` (comment), ``"n"``
    (number), ``"f"`` (a declared function's name) or ``""``; the texts joined are
    ``code`` exactly, its line ends (LF, CRLF or CR) and a byte-order mark included.

    Examples
    --------
    >>> highlight_code("def f(): return '<b>'", "python")[:3]
    [['k', 'def'], ['', ' '], ['f', 'f']]
    >>> "".join(t for _, t in highlight_code("int f() {\\r\\n  return 1;\\r\\n}", "java"))
    'int f() {\\r\\n  return 1;\\r\\n}'
    """
    from pygments.lexers import get_lexer_by_name
    from pygments.token import string_to_tokentype

    options = {"startinline": True} if language == "php" else {}
    # Pygments's lexers drop a final newline unless told to keep the text as it is.
    lexer = get_lexer_by_name(_LEXERS[language], stripnl=False, ensurenl=False, **options)
    kinds = [(string_to_tokentype(name), kind) for name, kind in _KINDS]
    # Pygments reads every line end as LF and drops a leading byte-order mark: the
    # code's own line ends are put back, in order, so no CRLF is lost.
    ends = iter(_LINE_END.findall(code))
    pieces: list[list[str]] = [["", "\ufeff"]] if code.startswith("\ufeff") else []
    for token, lf_text in lexer.get_tokens(code):
        text = _LF.sub(lambda _: next(ends), lf_text)
        kind = next((k for t, k in kinds if token in t), "")
        if pieces and pieces[-1][0] == kind:
            pieces[-1][1] += text
        else:
            pieces.append([kind, text])
    return pieces


def render_form(
    sheet: str,
    title: str,
    comments: Sequence[str],
    columns: Sequence[str],
    rows: Sequence[tuple[str, ...]],
    scale: int,
    fingerprint: str,
    *,
    self_test: bool = False,
    languages: Sequence[str | None] | None = None,
) -> str:
    """The HTML page of one rating sheet.

    Parameters
    ----------
    sheet : str
        Sheet name; the export downloads as ``<sheet>.csv``.
    title : str
        Heading of the page.
    comments : sequence of str
        Instructions, shown as a list and written as ``# `` lines atop the exported CSV.
    columns : sequence of str
        The CSV header (``id, reference, prediction, score``, or with ``code`` before
        ``score`` in a study with code).
    rows : sequence of (id, reference, prediction) or (id, reference, prediction, code)
        The pairs in the order the rater sees them; a code is shown under its pair,
        monospaced and scrollable.
    scale : int
        Highest score; scores run from 0 to ``scale``.
    fingerprint : str
        Identifies the study, so saved in-browser progress of one study never fills
        another's form.
    self_test : bool
        A test build, for headless-browser tests only: the ``#selftest`` hooks work,
        and their exports carry :data:`SELF_TEST_MARK`. Never hand it to a rater.
    languages : sequence of str or None, optional
        The language of each row's code (:data:`~wrdscore.corpora.LANGUAGES`): the
        form highlights it (:func:`highlight_code`); ``None`` shows it as plain text.

    Examples
    --------
    >>> page = render_form("s", "t", [], ["id", "reference", "prediction", "score"],
    ...                    [("1", "</script>", "x")], 10, "f")
    >>> "</script>\\"" in page, "\\\\u003c/script\\\\u003e" in page
    (False, True)
    """
    payload = {
        "sheet": sheet,
        "title": title,
        "comments": list(comments),
        "columns": list(columns),
        "rows": [list(r) for r in rows],
        "scale": scale,
        "fingerprint": fingerprint,
    }
    if languages is not None:
        payload["highlight"] = [
            highlight_code(row[3], language) if len(row) > 3 and language else None
            for row, language in zip(rows, languages, strict=True)
        ]
    if self_test:
        payload["selfTestMark"] = SELF_TEST_MARK
    hooks = _SELF_TEST_HOOKS if self_test else ""
    return _PAGE.replace("__SELF_TEST_HOOKS__", hooks).replace(
        "__DATA__", _script_safe_json(payload)
    )
