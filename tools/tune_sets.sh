#!/usr/bin/env bash
# The six sets a reader lever is chosen on, read into one folder of readings (NAME.json,
# `evaluate --json`'s line, every wrong photo listed): tune-1280b (300 13-card scenes at
# 1280x960), tune-4032 (60 at 4032x3024) and tune-rows (300 set hands at 1280x960, session
# 85) of the held-out decks, tune-dark (100 of tune-1280b's scenes in their negative: a deck
# printed light on dark, session 89) (bash tools/eval_sets.sh tune-1280b tune-4032 tune-rows
# tune-dark), and the tune shots of the two shared real sets (real-decks-dev by kind). About
# 5-6 minutes on 2 cores (session 89: 372 s, then 316 s once a light-on-dark crop was read
# as it is only where its negative is unsure; tune-dark about 2 of them, a dark photo taking
# about 1 s).
#   bash tools/tune_sets.sh DIR [evaluate options: a candidate reader, e.g. --photo-face-lone no]
#   python -m vision.training.compare BASE_DIR DIR    # what the candidate moved, photo by photo
# EVALUATE replaces the command after the interpreter (default: -m vision.training.evaluate),
# so a prototype script that patches the reader and then runs evaluate's main reads the same
# sets the same way.
set -u
[ $# -ge 1 ] || { echo "usage: bash tools/tune_sets.sh DIR [evaluate options]"; exit 2; }
export YOLO_OFFLINE=1 YOLO_AUTOINSTALL=false YOLO_CONFIG_DIR=$PWD/.yolo
P=${PYTHON:-.venv/bin/python}; G=datasets/generated; SETS=../shared/datasets
OUT=$1; shift
for needs in "$G/tune-1280b/data.yaml" "$G/tune-4032/data.yaml" "$G/tune-rows/data.yaml" \
    "$G/tune-dark/data.yaml" "$SETS/real-decks-dev" \
    "$SETS/real-photos-dev"; do
  [ -e "$needs" ] || { echo "$needs is absent (bash tools/eval_sets.sh tune-1280b tune-4032 tune-rows tune-dark draws the rendered ones)"; exit 2; }
done
mkdir -p "$OUT"
read_set() {  # read_set NAME DATA [evaluate options...]: keep the JSON line only if it ran
  local name=$1 data=$2; shift 2
  # shellcheck disable=SC2086  # EVALUATE is words
  if $P ${EVALUATE:--m vision.training.evaluate} "$data" --expect labelled --json "$@" \
      > "$OUT/$name.out" 2> "$OUT/$name.err"; then
    tail -n 1 "$OUT/$name.out" > "$OUT/$name.json" && rm "$OUT/$name.out"
    echo "$name: $($P -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["card_precision"], "/", d["card_recall"], "/", d["photos_exactly_right"], "photos right")' "$OUT/$name.json")"
  else
    echo "$name: failed, see $OUT/$name.err"; return 1
  fi
}
status=0
read_set tune-1280b $G/tune-1280b "$@" || status=1
read_set tune-4032 $G/tune-4032 "$@" || status=1
read_set tune-rows $G/tune-rows "$@" || status=1
read_set tune-dark $G/tune-dark "$@" || status=1
read_set real-decks-dev $SETS/real-decks-dev --split none --shots tune --by kind "$@" || status=1
read_set real-photos-dev $SETS/real-photos-dev --split none --shots tune "$@" || status=1
exit $status
