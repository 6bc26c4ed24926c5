"""Parser names and ingest defaults, importable without loading a parser.

The CLI's option defaults need them at start-up; javalang, tree-sitter and rich are
imported only when a corpus is actually ingested.
"""

PARSERS = ("tree-sitter", "javalang")
DEFAULT_PARSER = "tree-sitter"
DEFAULT_MAX_FILE_MB = 10.0
