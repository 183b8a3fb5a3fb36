#!/usr/bin/env bash
# The rendered sets the model card measures the reader on, drawn from the held-out decks
# (every scene `--val-fraction 1.0`, so `evaluate` reads all of them as split val):
#   tune-1280b   300 13-card scenes at 1280x960, the set levers are tuned on
#   tune-4032     60 13-card scenes at 4032x3024, the same at a phone's size (session 77)
#   tune-rows    300 set hands (rows of 3, 5 and 5) at 1280x960, the set rows levers are
#                tuned on (session 85: the other sets hold few set hands read whole)
#   eval-1280    100 13-card scenes at 1280x960    } read only to report: issue 13's
#   eval-4032     50 13-card scenes at 4032x3024   } targets
#   eval-table    40 whole tables at 4032x3024     }
#   eval-jumbo   100 13-card scenes at 1280x960 of the jumbo-index probe decks (session 44)
#   eval-kenney  100 13-card scenes at 1280x960 of the probe deck kenney (Kenney's cards,
#                from PyPI's arcade; session 60): a fourth design no model trained on
#   eval-640x480 eval-1280's scenes shrunk to a camera frame's 640x480, labels as they are:
#                live mode against photo mode on the same hands (session 48)
#   tune-dark    tune-1280b's first 100 scenes in their negative: each design printed light
#                on dark, the path a black deck's photo takes (the first look votes it
#                dark, the photo is read whole and in its negative, its corners named by
#                the classifier adapted to them); levers are tuned on it (session 89)
#   eval-dark    eval-1280's 100 scenes in their negative, read only to report (session 88
#                read both by hand)
#   eval-rows    100 set hands (rows of 3, 5 and 5) at 1280x960 } issue 13's "rows right":
#   eval-rows-4032 50 set hands at 4032x3024                   } their rows in the manifest
#                (session 58; eval-1280 and eval-4032 hold 28 and 14 such hands)
# bash tools/eval_sets.sh [SET ...] (default all), after `make install-train` and
# `python -m vision.training.synth.decks fetch`; about 14 minutes on 2 cores. A scene
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
  [tune-4032]="--count 60 --seed 245 --imgsz 4032 --height 3024 $HAND"
  [tune-rows]="--count 300 --seed 351 --imgsz 1280 --height 960 --layouts rows"
  [eval-1280]="--count 100 --seed 131 --imgsz 1280 --height 960 $HAND"
  [eval-4032]="--count 50 --seed 133 --imgsz 4032 --height 3024 $HAND"
  [eval-table]="--count 40 --seed 132 --imgsz 4032 --height 3024 --layouts table"
  [eval-rows]="--count 100 --seed 135 --imgsz 1280 --height 960 --layouts rows"
  [eval-rows-4032]="--count 50 --seed 136 --imgsz 4032 --height 3024 --layouts rows"
  [eval-jumbo]="--count 100 --seed 144 --imgsz 1280 --height 960 $HAND --val-decks $JUMBO"
  [eval-kenney]="--count 100 --seed 160 --imgsz 1280 --height 960 $HAND --val-decks kenney"
  [eval-640x480]="shrunk from eval-1280"
  [tune-dark]="the negatives of tune-1280b's first 100"
  [eval-dark]="the negatives of eval-1280")
# A set made from another drawn set: its source, what is done to each photo, how many.
declare -A derived=(
  [eval-640x480]="eval-1280 shrink 0"
  [tune-dark]="tune-1280b negative 100"
  [eval-dark]="eval-1280 negative 0")
[ $# -gt 0 ] || set -- tune-1280b tune-4032 tune-rows eval-1280 eval-4032 eval-table eval-jumbo eval-kenney eval-640x480 \
  eval-rows eval-rows-4032 tune-dark eval-dark
for name in "$@"; do
  [ -n "${recipe[$name]+set}" ] || { echo "unknown set $name: known ${!recipe[*]}"; exit 2; }
done
for name in "$@"; do
  if [ -n "${derived[$name]+set}" ]; then
    read -r source change count <<< "${derived[$name]}"
    [ -f "$G/$source/data.yaml" ] || { echo "$name is made from $source: draw that first"; exit 2; }
    rm -rf "${G:?}/$name"
    $P - "$G/$source" "$G/$name" "$change" "$count" <<'PY'
import csv, sys
from pathlib import Path
import cv2
source, out, change, count = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
photos = sorted((source / "images").rglob("*.jpg"))
photos = photos[:count] if count else photos
for photo in photos:
    to = out / photo.relative_to(source)
    to.parent.mkdir(parents=True, exist_ok=True)
    image = cv2.imread(str(photo))
    if change == "shrink":  # a camera frame's size, labels as they are (shares of the photo)
        image = cv2.resize(image, (640, 480), interpolation=cv2.INTER_AREA)
    else:  # negative: light ink on a dark card, the labels unchanged
        image = 255 - image
    cv2.imwrite(str(to), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    label = source / "labels" / photo.relative_to(source / "images").with_suffix(".txt")
    copied = out / label.relative_to(source)
    copied.parent.mkdir(parents=True, exist_ok=True)
    copied.write_text(label.read_text())
with (source / "manifest.csv").open(newline="") as handle:
    rows = list(csv.reader(handle))
kept = {str(photo.relative_to(source)) for photo in photos}
with (out / "manifest.csv").open("w", newline="") as handle:
    csv.writer(handle).writerows([rows[0]] + [row for row in rows[1:] if row[0] in kept])
(out / "data.yaml").write_text((source / "data.yaml").read_text().replace(source.name, out.name))
PY
    continue
  fi
  rm -rf "${G:?}/$name"
  # shellcheck disable=SC2086
  $P -m vision.training.synth --out "$G/$name" ${recipe[$name]} --val-fraction 1.0 \
    --workers "$(nproc)"
done
