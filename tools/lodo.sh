#!/usr/bin/env bash
# Leave one deck out (issue 14; model card, "Leave one deck out"): session 8's protocol on
# today's labels. A classifier (64-128-256 since session 69, below) from rendered and font
# crops alone (the base), then, from the base, one a real deck left out of its training and
# one with all four, the real decks' training crops at half a share each (the black deck's
# inverted, as the reader reads it). Each reads the held-out photos of real-photos-dev
# and, by kind, of real-decks-dev as photo mode's only classifier (the second network, the
# crowded corners' network and the face reader off: each saw every deck), on the shipped
# detectors, told each photo's card count; the shipped reader reads them too. Then:
# python -m vision.training.lodo table DIR.
#   bash tools/lodo.sh [DIR]   (default runs/lodo; session 57 on 2 cores: 1 h 43 min drawing
#   and training, 17 min reading)
# A step whose output is marked done is skipped, so a stopped run starts again at the step
# it stopped in (a training stopped part way trains again from its start).
# BASE_EPOCHS and EPOCHS change the epochs (session 8: 24 and 8; session 57: 16 and 6).
# PRECISION=bf16 trains in bfloat16 (train_classifier --precision; twice as fast for the
# photo classifier on a CPU with AVX512-BF16, session 64; default fp32, as session 57).
# Session 67, PRECISION=bf16 on 2 cores: 38 minutes (drawing 12, training 16, reading 10).
# CHANNELS and AUGMENT (more train_classifier flags) set the networks' recipe: since
# session 69 by default photo mode's classifier's width (64 128 256) and its glyph and
# grain jitter (--reshape --grain 0.15); CHANNELS="32 64 128" AUGMENT="" is sessions 8-67's
# recipe. DATA reads another run's drawn crops (default DIR/data), so a recipe is measured
# on the same crops without drawing them again. Session 69 on 2 cores, bf16, DATA reused:
# 55 minutes (training 41, reading 14).
set -u
export YOLO_OFFLINE=1 YOLO_AUTOINSTALL=false YOLO_CONFIG_DIR=$PWD/.yolo PYTHONUNBUFFERED=1
P=${PYTHON:-.venv/bin/python}; R=${1:-runs/lodo}; G=${DATA:-$R/data}; E=$R/eval
SETS=../shared/datasets
mkdir -p "$G" "$E"
step() {  # step OUT COMMAND...: run it unless OUT is marked done; stop the script on failure
  local out=$1; shift
  [ -e "$out.done" ] && { echo "have $out"; return; }
  echo "== $(date +%T) $out"
  "$@" || { echo "FAILED $out"; exit 1; }
  touch "$out.done"
}
step $G/crops-train.npz $P -m vision.training.train_classifier crops --out $G/crops-train.npz \
  --scenes 2000 --seed 1 --role train
step $G/crops-val.npz $P -m vision.training.train_classifier crops --out $G/crops-val.npz \
  --scenes 200 --seed 101 --role val
step $G/font-crops.npz $P -m vision.training.synth.fontindex --out $G/font-crops.npz \
  --count 12000 --seed 1
step $G/real-photos-train.npz $P -m vision.training.realdata crops \
  --out $G/real-photos-train.npz --split train
for kind in phone-white phone-black webcam-handheld; do
  step $G/$kind-train.npz $P -m vision.training.realdata deck-crops --split train \
    --kinds $kind --out $G/$kind-train.npz
done
step $G/phone-black-inv-train.npz $P -c "
import numpy as np
crops = dict(np.load('$G/phone-black-train.npz'))
crops['images'] = 255 - crops['images']
np.savez('$G/phone-black-inv-train.npz', **crops)"
declare -A crops=([real-photos]=$G/real-photos-train.npz [phone-white]=$G/phone-white-train.npz
  [phone-black]=$G/phone-black-inv-train.npz [webcam-handheld]=$G/webcam-handheld-train.npz)
DECKS="real-photos phone-white phone-black webcam-handheld"
# shellcheck disable=SC2206  # the widths and flags are words
common=(--batch 128 --channels ${CHANNELS:-64 128 256} --val $G/crops-val.npz --per-epoch 20000
  --precision "${PRECISION:-fp32}" ${AUGMENT---reshape --grain 0.15})
step $R/base/corner-classifier.onnx $P -m vision.training.train_classifier train \
  --train $G/crops-train.npz $G/font-crops.npz --share 2 1 "${common[@]}" \
  --out $R/base/corner-classifier.onnx --epochs "${BASE_EPOCHS:-16}" --lr 3e-3 --seed 8
for left_out in all $DECKS; do
  files=""; shares="2 1"
  for deck in $DECKS; do
    [ "$deck" = "$left_out" ] || { files="$files ${crops[$deck]}"; shares="$shares 0.5"; }
  done
  name=$([ "$left_out" = all ] && echo all || echo "without-$left_out")
  # shellcheck disable=SC2086
  step $R/$name/corner-classifier.onnx $P -m vision.training.train_classifier train \
    --train $G/crops-train.npz $G/font-crops.npz $files --share $shares "${common[@]}" \
    --out $R/$name/corner-classifier.onnx --epochs "${EPOCHS:-6}" --lr 1e-3 --seed 9 \
    --init $R/base/corner-classifier.pt
done
read_set() {  # read_set MODEL SET [evaluate options...]
  local model=$1 set=$2; shift 2
  local by=(); [ "$set" = real-decks-dev ] && by=(--by kind)
  step $E/$model-$set.json sh -c '"$@" > "$0"' $E/$model-$set.json \
    $P -m vision.training.evaluate $SETS/$set --split none --shots holdout \
    --expect labelled "${by[@]}" --json "$@"
}
for model in base all $(for deck in $DECKS; do echo "without-$deck"; done); do
  M=$R/$model/corner-classifier.onnx
  for set in real-photos-dev real-decks-dev; do
    read_set $model $set --classifier $M --photo-classifier $M --photo-second-weight 0 \
      --photo-crowded-classifier-share 0 --photo-face-weight 0
  done
done
for set in real-photos-dev real-decks-dev; do read_set shipped $set; done
$P -m vision.training.lodo table "$R"
