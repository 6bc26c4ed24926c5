"""MkDocs hooks: pages generated from the sources, so nothing is written twice.

- ``index.md``, ``model-card.md`` and ``benchmarks.md`` are the repository's README,
  ``wrdscore/data/MODEL_CARD.md`` and ``benchmarks/README.md`` themselves, read at build
  time (the files stay where the package, the benchmarks and GitHub readers expect them).
- Links are written as paths in the repository (``docs/scoring.md`` from the README,
  ``../wrdscore/data/MODEL_CARD.md`` from a guide), so they work on GitHub too; here they
  are turned into the site's pages. A link to a repository file that is no page is left
  alone, and ``mkdocs build --strict`` then fails on it.
- ``<!-- cli-reference -->`` in ``cli.md`` becomes the reference of every command, read from
  the typer app's click command tree, so the reference cannot drift from the options.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: Site page -> the repository file it is read from (pages not listed are docs/<page>).
INCLUDED = {
    "index.md": "README.md",
    "model-card.md": "wrdscore/data/MODEL_CARD.md",
    "benchmarks.md": "benchmarks/README.md",
}
SOURCE_OF = dict(INCLUDED)
PAGE_OF = {source: page for page, source in INCLUDED.items()}

CLI_MARKER = "<!-- cli-reference -->"
# [text](target) and [text](target#anchor), not images' sources in HTML.
LINK = re.compile(r"(\]\()([^)\s#]+)(#[^)\s]*)?(\))")


def on_files(files: Any, config: Any) -> Any:
    """Add the pages read from files outside ``docs/``."""
    from mkdocs.structure.files import File

    for page, source in INCLUDED.items():
        text = (ROOT / source).read_text(encoding="utf-8")
        files.append(File.generated(config, page, content=text))
    return files


def _repo_path(page: str) -> str:
    return SOURCE_OF.get(page, f"docs/{page}")


def _site_page(repo_path: str) -> str | None:
    if repo_path in PAGE_OF:
        return PAGE_OF[repo_path]
    # Pages, and other files under docs/ (the site copies them as they are).
    if repo_path.startswith("docs/"):
        return repo_path.removeprefix("docs/")
    return None


def rewrite_links(markdown: str, page: str) -> str:
    """Turn links written as repository paths (relative to the page's source) into site links."""
    source_dir = posixpath.dirname(_repo_path(page))
    page_dir = posixpath.dirname(page)

    def fix(match: re.Match[str]) -> str:
        target = match.group(2)
        if "://" in target or target.startswith(("/", "mailto:")):
            return match.group(0)
        repo_target = posixpath.normpath(posixpath.join(source_dir, target))
        site = _site_page(repo_target)
        if site is None:
            return match.group(0)
        new = posixpath.relpath(site, page_dir or ".")
        return f"{match.group(1)}{new}{match.group(3) or ''}{match.group(4)}"

    return LINK.sub(fix, markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Rewrite repository links, and expand the CLI reference where it is asked for."""
    name = page.file.src_uri
    if CLI_MARKER in markdown:
        markdown = markdown.replace(CLI_MARKER, cli_reference())
    return rewrite_links(markdown, name)


def _clean(text: str | None) -> str:
    """Help text as Markdown: rich's escapes undone, table pipes escaped, one line."""
    text = (text or "").replace("\\[", "[")
    return " ".join(text.split()).replace("|", "\\|")


def _option_row(param: Any) -> str:
    names = ", ".join(f"`{n}`" for n in [*param.opts, *param.secondary_opts])
    if param.param_type_name == "argument":
        names = f"`{param.human_readable_name}`"
    kind = "flag" if getattr(param, "is_flag", False) else param.type.name.upper()
    if getattr(param, "multiple", False) or getattr(param, "nargs", 1) == -1:
        kind += ", repeatable"
    if param.required:
        default = "required"
    elif getattr(param, "is_flag", False):
        default = "on" if param.default else ""
    elif param.default in (None, (), []):
        default = ""
    else:
        shown = param.default
        if isinstance(shown, (list, tuple)):
            shown = " ".join(str(v) for v in shown)
        default = f"`{shown}`"
    return f"| {names} | {kind} | {default} | {_clean(getattr(param, 'help', None))} |"


def _usage_piece(param: Any) -> str:
    if param.param_type_name != "argument":
        return ""
    piece = param.human_readable_name.upper()
    if param.nargs == -1:
        piece += "..."
    return piece if param.required else f"[{piece}]"


def _command_doc(command: Any, path: list[str], parent: Any) -> list[str]:
    # The command's own context class: typer may vendor its own copy of click.
    ctx = command.context_class(command, info_name=path[-1], parent=parent)
    lines: list[str] = []
    if len(path) > 1:
        lines += [f"{'#' * min(len(path), 4)} `{' '.join(path)}`", ""]
    lines += [_clean(command.help).replace("\\|", "|"), ""]
    usage = " ".join([*path, "[OPTIONS]", *(_usage_piece(p) for p in command.params)]).strip()
    if hasattr(command, "list_commands"):
        usage += " COMMAND [ARGS]..."
    lines += ["```text", usage, "```", ""]
    params = [p for p in command.params if not getattr(p, "hidden", False)]
    if params:
        lines += ["| option | type | default | meaning |", "| --- | --- | --- | --- |"]
        lines += [_option_row(p) for p in params]
        lines.append("")
    if hasattr(command, "list_commands"):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                lines += _command_doc(sub, [*path, name], ctx)
    return lines


def cli_reference() -> str:
    """The Markdown reference of every ``wrdscore`` command, from the typer app."""
    import sys

    import typer.main

    # Document this checkout's commands, not those of another installed copy.
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from wrdscore.cli import app

    return "\n".join(_command_doc(typer.main.get_command(app), ["wrdscore"], None))
