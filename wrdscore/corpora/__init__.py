"""Java corpora: find sources, parse them, extract method names, split them into sub-tokens."""

from wrdscore.corpora._corpus import (
    MANIFEST_FILE,
    METHODS_FILE,
    RECORD_FIELDS,
    Corpus,
    CorpusWriter,
    ShardedCorpusWriter,
    open_corpus,
)
from wrdscore.corpora._extract import PARSERS, FileResult, extract_file
from wrdscore.corpora._ingest import DEFAULT_MAX_FILE_MB, DEFAULT_PARSER, ingest
from wrdscore.corpora._javadoc import first_sentence
from wrdscore.corpora._sources import JavaFile, Source, iter_java_files, open_sources
from wrdscore.corpora._stats import CorpusStats, corpus_stats, stats_tables
from wrdscore.corpora._tokenize import split_identifier, to_tokens

__all__ = [
    "DEFAULT_MAX_FILE_MB",
    "DEFAULT_PARSER",
    "MANIFEST_FILE",
    "METHODS_FILE",
    "PARSERS",
    "RECORD_FIELDS",
    "Corpus",
    "CorpusStats",
    "CorpusWriter",
    "FileResult",
    "JavaFile",
    "ShardedCorpusWriter",
    "Source",
    "corpus_stats",
    "extract_file",
    "first_sentence",
    "ingest",
    "iter_java_files",
    "open_corpus",
    "open_sources",
    "split_identifier",
    "stats_tables",
    "to_tokens",
]
