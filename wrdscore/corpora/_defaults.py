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

#: The words each language reserves (keywords and literal words), by language: code
#: reading drops them, yet a signature's ``public``, ``void`` and ``throws`` are the
#: code's words. Java's are the keywords of JLS 17 section 3.9 and ``true``, ``false``,
#: ``null``; no list is kept yet for the other languages (issue 32, round 4).
RESERVED_WORDS: dict[str, frozenset[str]] = {
    "java": frozenset(
        {
            "abstract",
            "assert",
            "boolean",
            "break",
            "byte",
            "case",
            "catch",
            "char",
            "class",
            "const",
            "continue",
            "default",
            "do",
            "double",
            "else",
            "enum",
            "extends",
            "final",
            "finally",
            "float",
            "for",
            "goto",
            "if",
            "implements",
            "import",
            "instanceof",
            "int",
            "interface",
            "long",
            "native",
            "new",
            "package",
            "private",
            "protected",
            "public",
            "return",
            "short",
            "static",
            "strictfp",
            "super",
            "switch",
            "synchronized",
            "this",
            "throw",
            "throws",
            "transient",
            "try",
            "void",
            "volatile",
            "while",
            "true",
            "false",
            "null",
        }
    )
}
