#!/usr/bin/env bash
# Build the bundled default (wrdscore/data/default) from a code model and all-MiniLM-L6-v2.
#
# The recipe the fold protocol chose (scripts/select_encoder_default.py; MODEL_CARD.md has
# every candidate's numbers):
#   1. distill: all-MiniLM-L6-v2's static vector of every token of the code model's
#      vocabulary and of the encoder's whole-word pieces, reduced to 64 dimensions
#      (uncentered PCA), float16, without the word-piece table (it would not fit the 30 MB
#      budget; the fused model has no vectors for unseen tokens anyway);
#   2. fuse:    per token, the code model's vector and the distilled one, each divided by
#      its mean norm, concatenated (114 dimensions, float16);
#   3. specialise: counter-fitting of the fusion with the code model's own pairs.tsv
#      (mined, curated, confirmed and inflected when the code model was specialised), and
#      rescaling baselines on CORPUS's method names.
#
# Usage: scripts/build_encoder_default.sh CODE_MODEL_DIR CORPUS_DIR
#   CODE_MODEL_DIR: a specialised code model (scripts/build_default_model.sh trains it);
#   CORPUS_DIR:     a corpus for the rescaling baselines' names (the code model's).
# Environment: WORK (scratch folder, default ./work-data/default-model). Needs the
# encoders extra (torch) for step 1 only: about 25 minutes on 2 CPU cores.
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: scripts/build_encoder_default.sh CODE_MODEL_DIR CORPUS_DIR" >&2
    exit 2
fi
CODE=$1
CORPUS=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
WORK=${WORK:-work-data/default-model}
ENCODER=sentence-transformers/all-MiniLM-L6-v2
OUTPUT=wrdscore/data/default

if [[ ! -f $WORK/minilm-64/model.json ]]; then
    wrdscore distill "$ENCODER" --vocab "$CODE" --dim 64 --float16 --no-pieces \
        -o "$WORK/minilm-64"
fi
if [[ ! -f $WORK/code+minilm-64/model.json ]]; then
    wrdscore fuse "$CODE" "$WORK/minilm-64" --float16 -o "$WORK/code+minilm-64"
fi
wrdscore specialise "$WORK/code+minilm-64" "$CORPUS" --pairs "$CODE/pairs.tsv" \
    -o "$OUTPUT" --force
du -sh "$OUTPUT"
