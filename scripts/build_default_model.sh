#!/usr/bin/env bash
# Rebuild the bundled default embeddings (wrdscore/data/default) from Debian's Java sources.
#
# Stages (each skipped when its output exists, so a failed run resumes):
#   1. download: OpenJDK 17's src.zip (Debian package openjdk-17-source) and the upstream
#      source archives (.orig.tar.*) of widely used Java libraries via deb-src, using a
#      private apt configuration under $WORK so the system's apt setup is left alone;
#   2. ingest:   `wrdscore ingest` every archive into one corpus folder;
#   3. train:    `wrdscore train` the code model, the default before issue 19 and the
#                code part of today's, into $WORK/code;
#   4. tune:     all-MiniLM-L6-v2 tuned contrastively (`wrdscore tune`, needs the tune
#                extra) on the tune part of the VarCLR renames and the tune part of the
#                abbreviations mined from OpenJDK (issue 33: the selection in
#                docs/history.md picked its distillation), into $WORK/minilm-tuned; about
#                35 minutes on 2 CPU cores;
#   5. encoder:  scripts/build_encoder_default.sh distils the tuned encoder over the code
#                model's vocabulary into wrdscore/data/default (needs the encoders extra),
#                and records every input and its licence in its model.json.
#
# Usage: scripts/build_default_model.sh [--download-only]
# Environment: WORK (scratch folder, default ./work-data/default-model); OUTPUT (the model
# to write, default wrdscore/data/default); RENAMES (the VarCLR renames, default
# ../shared/data/varclr-renames/renames.tsv); SOURCES (a folder of Java sources or archives
# to build from instead of the download, with no tune stage: tests/test_rebuild.py's small
# corpus, distilled from the untuned encoder); WORKERS
# (gensim threads, default 2; 1 gives byte-identical vectors on one machine, at about
# twice the time); WIDTH, DEVICE and DISTILL_ARGS go to scripts/build_encoder_default.sh.
set -euo pipefail

# Any other argument (--help, a typo) is refused before anything runs: the last stage
# overwrites the bundled model.
USAGE="usage: scripts/build_default_model.sh [--download-only]"
DOWNLOAD_ONLY=0
if [[ $# -gt 1 ]] || [[ $# -eq 1 && $1 != --download-only ]]; then
    echo "$USAGE" >&2
    exit 2
fi
[[ $# -eq 1 ]] && DOWNLOAD_ONLY=1

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# Relative paths from the repository root, so model.json records no build machine's paths.
cd "$ROOT"
WORK=${WORK:-work-data/default-model}
# apt runs from inside $DEBSRC, so its folders need absolute paths.
DEBSRC=$(realpath -m "$WORK/debsrc")
APT=$(realpath -m "$WORK/apt")
# The folder name is the corpus label in the model name (debian-java-ft-50).
CORPUS=$WORK/debian-java
CODE=$WORK/code
# The libraries: general-purpose, widely depended-on Java code with idiomatic names.
# The code: 68 Debian source packages of widely used Java libraries and applications (by
# source-package name, so the .orig archive name below matches). Only the upstream archive is
# used, so a package whose Debian patch archive is missing from the mirror still counts.
PACKAGES=(ant antlr3 antlr4 apache-log4j2 arduino args4j artemis beast-mcmc biojava4-live
          bnd bouncycastle checkstyle closure-compiler commons-csv commons-io commons-math3
          commons-pool2 derby freeplane groovy guava-libraries h2database hsqldb
          httpcomponents-client httpcomponents-core jabref jackson-annotations jackson-core
          jackson-databind jackson-dataformat-xml jakarta-jmeter javassist jaxb jcommander
          jedit jetty9 jline3 jmdns josm jsoup jtreg junit4 jython libapache-poi-java
          libcommons-codec-java libcommons-collections4-java libcommons-compress-java
          libcommons-lang3-java libcommons-logging-java libcommons-net-java
          libhamcrest-java libitext5-java libjdom2-java libpdfbox2-java libxerces2-java
          logback lucene4.10 maven mina2 mockito netty openjfx pdfsam picocli robocode
          testng tomcat9 zookeeper)
JDK_ZIP=/usr/lib/jvm/openjdk-17/lib/src.zip
# The code part's method and parameters: text and specialisation chosen by the fold protocol
# of issue 19 (docs/history.md), the rest fixed on principle (see MODEL_CARD.md). Two gensim
# threads: a rebuild gives equivalent, not byte-identical, vectors (one thread would take
# twice as long on this corpus).
TRAIN_ARGS=(--method fasttext --text context --sg 0 --dim 50 --window 5 --min-count 5
            --epochs 5 --bucket 20000 --seed 1 --workers "${WORKERS:-2}" --specialise)
OUTPUT=${OUTPUT:-wrdscore/data/default}

if [[ -n ${SOURCES:-} ]]; then
    # A given source folder: no download, the same ingest, training and encoder stages.
    if [[ $DOWNLOAD_ONLY == 1 ]]; then
        echo "error: SOURCES and --download-only exclude each other" >&2
        exit 2
    fi
    [[ -f $CORPUS/manifest.json ]] || wrdscore ingest "$SOURCES" --output "$CORPUS" --quiet
    [[ -f $CODE/model.json ]] || wrdscore train "$CORPUS" "${TRAIN_ARGS[@]}" --output "$CODE"
    scripts/build_encoder_default.sh "$CODE" "$CORPUS" "$OUTPUT"
    exit 0
fi

mkdir -p "$DEBSRC" "$APT/lists/partial" "$APT/archives/partial"

if [[ ! -f $JDK_ZIP ]]; then
    echo "installing openjdk-17-source (needs root)" >&2
    apt-get install -y --no-install-recommends openjdk-17-source
fi

# deb-src entries derived from the system's deb entries, in a private apt state folder.
SOURCES=$APT/sources.list
if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$APT/debian.sources"
    APT_SRC=(-o "Dir::Etc::sourcelist=/dev/null" -o "Dir::Etc::sourceparts=$APT"
             -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT")
else
    grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' > "$SOURCES"
    APT_SRC=(-o "Dir::Etc::sourcelist=$SOURCES" -o "Dir::Etc::sourceparts=-"
             -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT")
fi
if ! compgen -G "$APT/lists/*Sources*" > /dev/null; then
    apt-get "${APT_SRC[@]}" update
fi
for pkg in "${PACKAGES[@]}"; do
    if ! compgen -G "$DEBSRC/${pkg}_*.orig.tar.*" > /dev/null; then
        (cd "$DEBSRC" && apt-get "${APT_SRC[@]}" source --download-only "$pkg") || true
    fi
    if ! compgen -G "$DEBSRC/${pkg}_*.orig.tar.*" > /dev/null; then
        echo "error: no upstream archive for $pkg" >&2
        exit 1
    fi
done
# Only the upstream archives are ingested; Debian's patches and .dsc files are not Java.
mkdir -p "$WORK/archives"
ln -sf "$JDK_ZIP" "$WORK/archives/openjdk-17-src.zip"
shopt -s nullglob
for f in "$DEBSRC"/*.orig.tar.{gz,xz,bz2}; do
    ln -sf "$(realpath "$f")" "$WORK/archives/$(basename "$f")"
done
ls -lL "$WORK/archives"
[[ $DOWNLOAD_ONLY == 1 ]] && exit 0

if [[ ! -f $CORPUS/manifest.json ]]; then
    wrdscore ingest "$WORK"/archives/* --output "$CORPUS" --quiet
fi
if [[ ! -f $CODE/model.json ]]; then
    wrdscore train "$CORPUS" "${TRAIN_ARGS[@]}" --output "$CODE"
fi
# The tuning pairs: the renames' tune part (wrdscore.signals.split_renames: the held-out
# part is never trained on) and the abbreviations' tune part (held out by their hash).
TUNED=$WORK/minilm-tuned
RENAMES=${RENAMES:-../shared/data/varclr-renames/renames.tsv}
if [[ ! -f $TUNED/tune-card.json ]]; then
    wrdscore corpus abbreviations "$JDK_ZIP" -o "$WORK/abbreviations.tsv" \
        --tune-output "$WORK/abbreviations-tune.tsv" --force
    python -c "import sys; from wrdscore.signals import split_renames as s
from wrdscore.embeddings.encoders import read_pair_file as r
open(sys.argv[2], 'w').writelines(f'{a}\t{b}\n' for a, b in s(r(sys.argv[1]))[0])" \
        "$RENAMES" "$WORK/renames-tune.tsv"
    wrdscore tune sentence-transformers/all-MiniLM-L6-v2 -o "$TUNED" --batch-size 64 \
        --pairs "$WORK/renames-tune.tsv" --pairs "$WORK/abbreviations-tune.tsv" \
        --device "${DEVICE:-cpu}" -q
fi
ENCODER=$TUNED TUNING_PAIRS="$RENAMES $WORK/abbreviations-tune.tsv" \
    scripts/build_encoder_default.sh "$CODE" "$CORPUS" "$OUTPUT"
