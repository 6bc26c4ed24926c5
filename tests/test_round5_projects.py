"""benchmarks/round5_projects.py applies its written rule to a Sources index: the section,
the naming, the size window, the exclusions and the salted order."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import round5_projects as rule


def _stanza(package: str, section: str = "java", size: int = 500_000) -> str:
    return (
        f"Package: {package}\nVersion: 1.0-1\nSection: {section}\nFiles:\n"
        f" 0123 {size} {package}_1.0.orig.tar.gz\n 4567 900 {package}_1.0-1.debian.tar.xz\n"
    )


def test_the_rule_keeps_java_libraries_in_the_size_window_in_the_salted_order():
    index = "\n".join(
        [
            _stanza("libalpha-java"),
            _stanza("libbeta-java", size=150_000),  # under the window
            _stanza("libgamma-java", size=3_500_000),  # over it
            _stanza("libdelta-java", section="devel"),  # not section java
            _stanza("epsilon"),  # not lib*-java
            _stanza("libjoda-time-java"),  # round 1-3's
            _stanza("libcommons-io-java"),  # not a default source by this name
            _stanza("guava-libraries"),  # a default source, not lib*-java anyway
            _stanza("libzeta-java", size=3_000_000),  # the window's edge is in
        ]
    )
    found = rule.candidates(index)
    names = [c.package for c in found]
    assert set(names) == {"libalpha-java", "libcommons-io-java", "libzeta-java"}
    keys = [hashlib.sha256(f"wrdscore-round5:{n}".encode()).hexdigest() for n in names]
    assert keys == sorted(keys)
    assert {c.archive for c in found} >= {"libalpha-java_1.0.orig.tar.gz"}


def test_the_default_models_sources_are_excluded():
    sources = rule.default_sources()
    assert len(sources) == 68 and "libcommons-lang3-java" in sources
    index = _stanza("libcommons-lang3-java") + "\n" + _stanza("libapache-poi-java")
    assert rule.candidates(index) == []
