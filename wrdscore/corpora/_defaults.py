"""Parser names, ingest defaults and the code-reading options, importable without a parser.

The CLI's option defaults and the metrics' option checks need them at start-up;
javalang, tree-sitter and rich are imported only when a corpus is actually ingested
or code is read.
"""

PARSERS = ("tree-sitter", "javalang")
DEFAULT_PARSER = "tree-sitter"
DEFAULT_MAX_FILE_MB = 10.0

#: What a prediction can be: a method name or a summary of the method (how
#: :func:`~wrdscore.corpora.read_code` reads the code depends on it).
TARGETS = ("name", "summary")
DEFAULT_TARGET = "name"
#: What :func:`~wrdscore.corpora.read_code` does with string literals.
STRING_POLICIES = ("drop", "keep")
DEFAULT_STRINGS = "drop"
#: The most characters of one method's source that are read: ``--code`` input is
#: refused above it, and ``ingest`` keeps at most this much of a method. About 400
#: lines: 99.6% of OpenJDK 17's methods are shorter (median 160 characters, 99th
#: percentile about 6,000); the longer ones are mostly generated tables and state
#: machines, whose tail adds nothing a reader or a score would use.
MAX_CODE_CHARS = 16_384
