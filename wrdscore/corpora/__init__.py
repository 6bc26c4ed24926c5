"""Corpora: find sources, parse them, extract method names, split them into sub-tokens.

Also how a method's code is read for code-aware scoring, in one call
(:func:`read_method`: the tokens, the name masked, the language, the identifiers and the
documentation), in any of :data:`LANGUAGES` (each grammar imported when code in its
language is read), and, for measuring, the role each code word plays (:func:`code_roles`).

The splitter, the segmenter of run-together words (whose word list loads on first use)
and the defaults are imported eagerly; everything else (parsers, the
ingest pipeline, corpus statistics) on first use, so scoring, which only splits
names, never loads javalang, tree-sitter or rich.
"""

from typing import TYPE_CHECKING

from wrdscore._lazy import lazy_getattr
from wrdscore.corpora._clean import clean_prediction
from wrdscore.corpora._defaults import (
    DEFAULT_MAX_FILE_MB,
    DEFAULT_PARSER,
    DEFAULT_STRINGS,
    DEFAULT_TARGET,
    MAX_CODE_CHARS,
    PARSERS,
    RESERVED_WORDS,
    STRING_POLICIES,
    TARGETS,
)
from wrdscore.corpora._segment import (
    WORDS_ID,
    Segmentation,
    default_segmenter,
    segment,
    segmentation,
)
from wrdscore.corpora._tokenize import split_identifier, to_tokens

if TYPE_CHECKING:
    from wrdscore.corpora._abbreviations import (
        Abbreviation,
        counts_by_part,
        mine_abbreviations,
        read_abbreviations,
        write_abbreviations,
        write_tune_pairs,
    )
    from wrdscore.corpora._code import (
        MethodCode,
        UnmaskedCode,
        code_language,
        declared_name,
        read_code,
        read_code_and_language,
        read_code_words,
        read_method,
    )
    from wrdscore.corpora._code_ids import CodeTokens, code_lengths, code_token_ids, take_codes
    from wrdscore.corpora._corpus import (
        MANIFEST_FILE,
        METHODS_FILE,
        RECORD_FIELDS,
        Corpus,
        CorpusMethod,
        CorpusWriter,
        ShardedCorpusWriter,
        corpus_methods,
        iter_records,
        method_items,
        open_corpus,
    )
    from wrdscore.corpora._dask import Cluster
    from wrdscore.corpora._extract import FileResult, capped_code, extract_file
    from wrdscore.corpora._ingest import ingest
    from wrdscore.corpora._javadoc import first_sentence
    from wrdscore.corpora._languages import (
        LANGUAGES,
        SourceCode,
        check_language,
        detect_language,
        language_of_path,
    )
    from wrdscore.corpora._roles import ROLES, CodeRoles, CodeWord, code_roles
    from wrdscore.corpora._sources import JavaFile, Source, iter_java_files, open_sources
    from wrdscore.corpora._stats import CorpusStats, corpus_stats, stats_tables

_LAZY = {
    "Abbreviation": "_abbreviations",
    "mine_abbreviations": "_abbreviations",
    "read_abbreviations": "_abbreviations",
    "write_abbreviations": "_abbreviations",
    "counts_by_part": "_abbreviations",
    "write_tune_pairs": "_abbreviations",
    "CodeTokens": "_code_ids",
    "code_token_ids": "_code_ids",
    "code_lengths": "_code_ids",
    "take_codes": "_code_ids",
    "Cluster": "_dask",
    "iter_records": "_corpus",
    "method_items": "_corpus",
    "read_code_words": "_code",
    "check_language": "_languages",
    "MANIFEST_FILE": "_corpus",
    "METHODS_FILE": "_corpus",
    "RECORD_FIELDS": "_corpus",
    "Corpus": "_corpus",
    "CorpusMethod": "_corpus",
    "corpus_methods": "_corpus",
    "MethodCode": "_code",
    "UnmaskedCode": "_code",
    "code_language": "_code",
    "declared_name": "_code",
    "read_code": "_code",
    "read_code_and_language": "_code",
    "read_method": "_code",
    "CorpusWriter": "_corpus",
    "ShardedCorpusWriter": "_corpus",
    "open_corpus": "_corpus",
    "FileResult": "_extract",
    "capped_code": "_extract",
    "extract_file": "_extract",
    "ingest": "_ingest",
    "first_sentence": "_javadoc",
    "LANGUAGES": "_languages",
    "SourceCode": "_languages",
    "detect_language": "_languages",
    "language_of_path": "_languages",
    "ROLES": "_roles",
    "CodeRoles": "_roles",
    "CodeWord": "_roles",
    "code_roles": "_roles",
    "JavaFile": "_sources",
    "Source": "_sources",
    "iter_java_files": "_sources",
    "open_sources": "_sources",
    "CorpusStats": "_stats",
    "corpus_stats": "_stats",
    "stats_tables": "_stats",
}


__getattr__ = lazy_getattr("wrdscore.corpora", _LAZY)


__all__ = [
    "DEFAULT_MAX_FILE_MB",
    "DEFAULT_PARSER",
    "DEFAULT_STRINGS",
    "DEFAULT_TARGET",
    "LANGUAGES",
    "MANIFEST_FILE",
    "MAX_CODE_CHARS",
    "METHODS_FILE",
    "PARSERS",
    "RECORD_FIELDS",
    "RESERVED_WORDS",
    "ROLES",
    "STRING_POLICIES",
    "TARGETS",
    "WORDS_ID",
    "Abbreviation",
    "Cluster",
    "CodeRoles",
    "CodeTokens",
    "CodeWord",
    "Corpus",
    "CorpusMethod",
    "CorpusStats",
    "CorpusWriter",
    "FileResult",
    "JavaFile",
    "MethodCode",
    "Segmentation",
    "ShardedCorpusWriter",
    "Source",
    "SourceCode",
    "UnmaskedCode",
    "capped_code",
    "check_language",
    "clean_prediction",
    "code_language",
    "code_lengths",
    "code_roles",
    "code_token_ids",
    "corpus_methods",
    "corpus_stats",
    "counts_by_part",
    "declared_name",
    "default_segmenter",
    "detect_language",
    "extract_file",
    "first_sentence",
    "ingest",
    "iter_java_files",
    "iter_records",
    "language_of_path",
    "method_items",
    "mine_abbreviations",
    "open_corpus",
    "open_sources",
    "read_abbreviations",
    "read_code",
    "read_code_and_language",
    "read_code_words",
    "read_method",
    "segment",
    "segmentation",
    "split_identifier",
    "stats_tables",
    "take_codes",
    "to_tokens",
    "write_abbreviations",
    "write_tune_pairs",
]
