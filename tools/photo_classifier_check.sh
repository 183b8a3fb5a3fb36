#!/usr/bin/env bash
# A photo classifier trained by tools/gpu_photo_classifiers.sh, read beside the shipped one
# on the crop files and the tune sets only (the held-out sets: `python -m
# vision.training.targets run DIR` with the candidate in place of the shipped file):
#   bash tools/photo_classifier_check.sh STATE.pt [DIR]   (CHANNELS="64 128 256", its widths)
# It exports the state dict (`train_classifier export`), makes its int8 copy as the shipped
# one was made (`quantize classifier`, 512 of our deck's real training crops), reads the
# validation crop files once with the float and int8 networks of both, then the tune sets
# with each int8 network as photo mode's classifier: tune-1280b by layout (draw it with
# `bash tools/eval_sets.sh tune-1280b`), real-photos-dev's and real-decks-dev's tune shots.
# Everything lands in DIR (default runs/check-NAME); one JSON line a reading. About 25
# minutes on the 2 cores; run it alone. SHIPPED=0 reads the candidate alone and skips the
# shipped network's readings, which stand in the model card while it is unchanged.
set -eu
export YOLO_OFFLINE=1 YOLO_AUTOINSTALL=false YOLO_CONFIG_DIR=$PWD/.yolo PYTHONUNBUFFERED=1
P=${PYTHON:-.venv/bin/python}; G=${GENERATED:-datasets/generated}; SHARED=../shared/datasets
[ $# -ge 1 ] && [ -f "$1" ] || { echo "usage: bash tools/photo_classifier_check.sh STATE.pt [DIR] (a state dict that exists)"; exit 2; }
STATE=$1; NAME=$(basename "$STATE" .pt); DIR=${2:-runs/check-$NAME}
VAL="$G/crops-val-fan.npz $G/crops-val3.npz $G/real-crops-tune.npz"
for file in $VAL $G/real-crops-train.npz $G/tune-1280b/data.yaml; do
  [ -e "$file" ] || { echo "missing $file: make it first (tools/gpu_photo_crops.sh, tools/eval_sets.sh tune-1280b)"; exit 2; }
done
mkdir -p "$DIR"
# shellcheck disable=SC2086  # the widths are words
$P -m vision.training.train_classifier export --state "$STATE" --channels ${CHANNELS:-64 128 256} \
  --out "$DIR/$NAME.onnx"
$P -m vision.training.quantize classifier --source "$DIR/$NAME.onnx" --out "$DIR/$NAME-int8.onnx" \
  --crops $G/real-crops-train.npz --count 512
FLOAT=models/corner-classifier-photo.onnx; INT8=models/corner-classifier-photo-int8.onnx
shipped=("$FLOAT" "$INT8"); shipped8=("$INT8")
[ "${SHIPPED:-1}" = 0 ] && shipped=() && shipped8=()
# shellcheck disable=SC2086  # the crop files are words
for model in "${shipped[@]}" "$DIR/$NAME.onnx" "$DIR/$NAME-int8.onnx"; do
  $P -m vision.training.train_classifier accuracy --model "$model" --crops $VAL \
    | sed "s|^{|{\"model\": \"$model\", |"
done > "$DIR/crops.jsonl"
for model in "${shipped8[@]}" "$DIR/$NAME-int8.onnx"; do
  tag=$(basename "$model" .onnx)
  $P -m vision.training.evaluate $G/tune-1280b --expect labelled --by layout \
    --photo-classifier "$model" --json > "$DIR/tune-1280b.$tag.json"
  $P -m vision.training.evaluate $SHARED/real-photos-dev --split none --shots tune \
    --expect labelled --photo-classifier "$model" --json > "$DIR/real-photos-tune.$tag.json"
  $P -m vision.training.evaluate $SHARED/real-decks-dev --split none --shots tune \
    --expect labelled --by kind --photo-classifier "$model" --json > "$DIR/real-decks-tune.$tag.json"
done
echo "read into $DIR"
