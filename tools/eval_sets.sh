#!/usr/bin/env bash
# The rendered sets the model card measures the reader on, drawn from the held-out decks
# (every scene `--val-fraction 1.0`, so `evaluate` reads all of them as split val):
#   tune-1280b   300 13-card scenes at 1280x960, the set levers are tuned on
#   eval-1280    100 13-card scenes at 1280x960    } read only to report: issue 13's
#   eval-4032     50 13-card scenes at 4032x3024   } targets
#   eval-table    40 whole tables at 4032x3024     }
#   eval-jumbo   100 13-card scenes at 1280x960 of the jumbo-index probe decks (session 44)
# bash tools/eval_sets.sh [SET ...] (default all), after `make install-train` and
# `python -m vision.training.synth.decks fetch`; about 10 minutes on 2 cores. A scene
# depends only on its seed, its number and the held-out decks, so the sets come out the
# same on every machine with the same decks. Session 36 found eval-4032 and eval-table
# drawn without --val-fraction 1.0 (45 of 50 scenes from training decks, 5 read).
set -eu
export YOLO_OFFLINE=1 YOLO_AUTOINSTALL=false YOLO_CONFIG_DIR=$PWD/.yolo
P=${PYTHON:-.venv/bin/python}; G=datasets/generated
HAND="--layouts spread rows fan overlap"
JUMBO="kennard-jumbo kennard-jumbo-4-color"  # role probe: drawn only when named
declare -A recipe=(
  [tune-1280b]="--count 300 --seed 241 --imgsz 1280 --height 960 $HAND"
  [eval-1280]="--count 100 --seed 131 --imgsz 1280 --height 960 $HAND"
  [eval-4032]="--count 50 --seed 133 --imgsz 4032 --height 3024 $HAND"
  [eval-table]="--count 40 --seed 132 --imgsz 4032 --height 3024 --layouts table"
  [eval-jumbo]="--count 100 --seed 144 --imgsz 1280 --height 960 $HAND --val-decks $JUMBO")
[ $# -gt 0 ] || set -- tune-1280b eval-1280 eval-4032 eval-table eval-jumbo
for name in "$@"; do
  [ -n "${recipe[$name]+set}" ] || { echo "unknown set $name: known ${!recipe[*]}"; exit 2; }
done
for name in "$@"; do
  rm -rf "${G:?}/$name"
  # shellcheck disable=SC2086
  $P -m vision.training.synth --out "$G/$name" ${recipe[$name]} --val-fraction 1.0 \
    --workers "$(nproc)"
done
