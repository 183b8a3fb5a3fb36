#!/usr/bin/env bash
# The crop files tools/gpu_photo_classifiers.sh trains on, made on this machine and packed
# into .gpu/crops, so that a lent GPU's few minutes go to training alone:
#   bash tools/gpu_photo_crops.sh            (after `make install-train`, `make fonts` and
#                                             `python -m vision.training.synth.decks fetch`)
# Each file is made only when it is missing, so a stopped run resumes where it stopped; the
# pack is made again whenever a file is new. The recipes are session 31's ("The runs" in
# models/README.md: the seventeen training decks as printed, 34 reprinted decks, our deck's
# real crops, the real decks' crops, font crops, negatives and the three watch files),
# and session 62's partly covered fan corners (runs f and g). About an hour on 2 cores.
# The reprinted decks are written to the deck cache with role "train" (synth.retype), so
# every rendered file below names its decks, and they are removed again once their crops
# are cut: any other command drawing `--role train` draws the decks as printed, as before.
# REPRINTED=0 makes only the files the runs without reprinted decks read (j's recipe and
# f, g, h, k, m, n, o, r, u) and packs nothing: for a run trained on this machine
# (session 65: 25 minutes on the 2 cores, where the whole set takes an hour).
# THERE=1 (session 72) makes here only what needs ../shared, the fonts or the held-out
# decks (our deck's and the real decks' crops, the font crops, the negatives, the watch
# files; about 8 minutes), and packs them with the training decks' art (`detector_bundle`'s
# decks.tar): tools/gpu_photo_classifiers.sh then draws crops-orig and crops-fan-part
# there on the machine's 16 cores (about 2 minutes) before training. A fresh checkout
# (`make install-train fonts`, `decks fetch`, this) is then ready for a lent machine in
# about 15 minutes where the whole set takes 25 here; loans can pause within half an hour
# (session 72 found the machine lent at its start and none lent 33 minutes later).
set -eu
export YOLO_OFFLINE=1 YOLO_AUTOINSTALL=false YOLO_CONFIG_DIR=$PWD/.yolo PYTHONUNBUFFERED=1
P=${PYTHON:-.venv/bin/python}; G=datasets/generated; LOGS=${LOGS:-/tmp/gpu-photo-crops}
mkdir -p "$G" "$LOGS"
decks() {  # the training decks as printed ("printed") or reprinted ("retype")
  $P - "$1" <<'PY'
import sys
from vision.training.synth.decks import available_decks
from vision.training.synth.retype import PREFIX
names = available_decks("train")
print(" ".join(n for n in names if n.startswith(PREFIX) == (sys.argv[1] == "retype")))
PY
}
made=0
step() {  # step FILE COMMAND...: run COMMAND unless FILE exists, its output to a log
  local file=$1; shift
  if [ -e "$file" ]; then echo "have $file"; return; fi
  echo "$(date +%H:%M:%S) making $file"
  "$@" > "$LOGS/$(basename "$file").log" 2>&1 || {
    echo "failed: $*; see $LOGS/$(basename "$file").log"; exit 1; }
  made=1
}
PRINTED_DECKS=$(decks printed)
[ -n "$PRINTED_DECKS" ] || { echo "no training decks cached: run python -m vision.training.synth.decks fetch"; exit 2; }
REPRINTED=${REPRINTED:-1}
if [ "$REPRINTED" = 1 ] && [ ! -e $G/crops-retype.npz ] && [ -z "$(decks retype)" ]; then
  echo "$(date +%H:%M:%S) reprinting 34 training decks"
  $P -m vision.training.synth.retype --count 34 --seed 1 > "$LOGS/retype.log" 2>&1
fi
RETYPED_DECKS=$(decks retype)
C="$P -m vision.training.train_classifier crops"
# shellcheck disable=SC2086  # the deck lists are words
{
THERE=${THERE:-0}
if [ "$THERE" != 1 ]; then
step $G/crops-orig.npz $C --out $G/crops-orig.npz --scenes 800 --seed 312 --decks $PRINTED_DECKS
fi
if [ "$REPRINTED" = 1 ]; then
  step $G/crops-retype.npz $C --out $G/crops-retype.npz --scenes 1500 --seed 311 \
    --layouts fan overlap rows spread --decks $RETYPED_DECKS
fi
if [ "$THERE" != 1 ]; then
step $G/crops-fan-part.npz $C --out $G/crops-fan-part.npz --scenes 3000 --seed 62 \
  --layouts fan --keep partly-covered --decks $PRINTED_DECKS
fi
step $G/crops-val-fan.npz $C --out $G/crops-val-fan.npz --scenes 150 --seed 103 --role val \
  --layouts fan
step $G/crops-val3.npz $C --out $G/crops-val3.npz --scenes 150 --seed 104 --role val
}
for name in $RETYPED_DECKS; do rm -rf "datasets/cache/decks/${name:?}"; done
step $G/real-crops-train.npz $P -m vision.training.realdata crops --split train \
  --out $G/real-crops-train.npz
step $G/real-crops-tune.npz $P -m vision.training.realdata crops --split tune \
  --out $G/real-crops-tune.npz
# The black deck's crops in their negative, as the reader reads that deck (session 86: cut as
# photographed, gold on black, they taught runs a picture the reader never shows them).
step $G/deck-crops-train.npz $P -m vision.training.realdata deck-crops --split train \
  --invert-kinds phone-black --out $G/deck-crops-train.npz
step $G/font-crops.npz $P -m vision.training.synth.fontindex --count 10000 --out $G/font-crops.npz
step $G/negatives-train.npz $P -m vision.training.negatives --scenes 150 --real-photos \
  --real-decks --out $G/negatives-train.npz
step $G/negatives-tune.npz $P -m vision.training.negatives --real-photos --real-decks \
  --split tune --out $G/negatives-tune.npz
if [ "$THERE" = 1 ]; then
  # Run j's and h's files but the two drawn there (no reprinted decks), and the decks.
  echo "$(date +%H:%M:%S) packing .gpu/crops (the rendered training crops drawn there)"
  rm -rf .gpu/crops
  $P -m vision.training.crop_mosaics pack --out .gpu/crops --seed 32 --quality 80 \
    $G/real-crops-train.npz:28000 $G/font-crops.npz:6000 $G/deck-crops-train.npz \
    $G/negatives-train.npz $G/negatives-tune.npz $G/crops-val3.npz:1000 \
    $G/crops-val-fan.npz:1000 $G/real-crops-tune.npz:2000 > "$LOGS/pack.log" 2>&1
  # shellcheck disable=SC2086
  $P -m vision.training.detector_bundle pack --out .gpu/crops --decks $PRINTED_DECKS \
    >> "$LOGS/pack.log" 2>&1
  du -sh .gpu/crops
  exit 0
fi
[ "$REPRINTED" = 1 ] || { echo "$(date +%H:%M:%S) made; nothing packed (REPRINTED=0)"; exit 0; }
if [ $made = 1 ] || [ ! -d .gpu/crops ]; then
  echo "$(date +%H:%M:%S) packing .gpu/crops"
  rm -rf .gpu/crops
  $P -m vision.training.crop_mosaics pack --out .gpu/crops --seed 32 --quality 80 \
    $G/real-crops-train.npz:28000 $G/crops-orig.npz:15000 $G/crops-retype.npz:17000 \
    $G/font-crops.npz:6000 $G/deck-crops-train.npz $G/negatives-train.npz \
    $G/negatives-tune.npz $G/crops-val3.npz:1000 $G/crops-val-fan.npz:1000 \
    $G/real-crops-tune.npz:2000 $G/crops-fan-part.npz:8000 > "$LOGS/pack.log" 2>&1
fi
du -sh .gpu/crops
