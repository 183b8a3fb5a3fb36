#!/usr/bin/env bash
# The corner detector trained on a lent GPU machine: its scenes drawn there from the packed
# decks, then one run per letter, side by side: bash tools/gpu_detector.sh a b c
# Every detector so far (photo1-photo9) trained on this 2-core machine, a few epochs each
# (photo3, shipped: one epoch on top of photo2), and half or more of the cards the reader
# misses have no corner kept, most boxed faintly or not at all (models/README.md, sessions
# 26 and 33). This machine trains 2.4 tiles a second; a GPU, many times that, on scenes
# drawn fresh for the run.
# Here first, G = datasets/generated (about 10 minutes, most of it `realdata corners`):
#   python -m vision.training.realdata corners --out G/real-corners --split train
#   python -m vision.training.realdata decks --out G/real-decks --split train
#   (the same with --split tune into G/real-corners-tune and G/real-decks-tune)
#   python -m vision.training.detector_bundle pack --out .gpu/detector --reprints 1 \
#     --sets G/real-corners:420 G/real-decks G/real-corners-tune G/real-decks-tune
#   (the 17 training decks and one reprint of each, 18 MiB; 867 real training photos and
#   136 tune photos, 25 MiB; .gpu/ is in .gitignore)
#   cp models/cards.pt .gpu/detector/start.pt
#   python -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#     --implementation cp --platform manylinux2014_x86_64 -d .gpu/detector/wheels \
#     ultralytics==8.4.190 ultralytics-thop==2.2.3    (polars stays behind: 54 MB; see
#                                                      train_detector._can_plot)
# Then leave models/ behind as for the classifiers (tools/gpu_photo_classifiers.sh) and run
# `bash tools/gpu_detector.sh a b c` with carry [".gpu/detector"] (the tree and the bundle
# come to about 61 MiB; the tracked corner-classifier-scratch.pt stays behind too) and a
# timeout_s of 560: OUT/LETTER.pt (each run's last weights), OUT/LETTER-best.pt (the
# weights its validation liked best) and OUT/logs.tar.gz come back. Measured on an H200
# (session 36): a scene took about 5 s a core, 720 scenes four minutes on 16 cores; three
# runs side by side then trained 14 epochs in 205 s (2,880 tiles and 1,003 real photos).
# Every run ends training DEADLINE seconds after the script starts, however long the
# drawing took: session 36's runs were given a fixed time after a drawing that ran long,
# and the call's timeout cut them mid-schedule (learning rate not yet down, no epoch
# without mosaics), their weights saved only by the command around the script.
# Back here, for each LETTER.pt in the folder F that came back:
#   python -m vision.training.train_detector --export F/a.pt runs/gpu/a.onnx
#   python -m vision.training.quantize detector --source runs/gpu/a.onnx \
#     --out runs/gpu/a-int8.onnx --rendered TILES    (TILES: a set drawn as above, here)
#   python -m vision.training.evaluate G/tune-1280b --weights runs/gpu/a-int8.onnx
# DEVICE=cpu RENDER=6 DEADLINE=300 try the script on this machine (with .venv/bin on PATH).
set -u
export PYTHONUNBUFFERED=1 YOLO_OFFLINE=1 YOLO_AUTOINSTALL=false
declare -A run=(
  # photo3 trained on at its own fine-tuning rate, batch 64: many epochs where the
  # 2-core machine gave one.
  [a]="--lr0 0.0005 --batch 64"
  # The same with indices of more sizes (scale jitter 0.5): real-decks-dev's 50-160 pixel
  # indices in a 640-pixel photo are what no detector here has boxed (session 27).
  [b]="--lr0 0.0005 --batch 64 --scale 0.5"
  # Gentler and bolder rates. (Without the real photos, measured on the 2-core machine,
  # the real decks' recall fell from 0.85 to 0.58 in four epochs: they stay in every run.)
  [c]="--lr0 0.0002 --batch 64"
  [d]="--lr0 0.001 --batch 64"
)
# Each run sends two files back and the device tool returns eight at most.
[ $# -ge 1 ] && [ $# -le 3 ] || { echo "name one to three runs (${!run[*]})"; exit 2; }
# A letter not above would train with train_detector's defaults: refuse it before any
# of the lent minutes go.
for letter in "$@"; do
  [ -n "${run[$letter]+set}" ] || { echo "unknown run $letter: known ${!run[*]}"; exit 2; }
done
OUT=${OUT:-/tmp/gpu-detector}; WORK=${WORK:-/tmp/gpu-detector-work}
START=$SECONDS
DEADLINE=${DEADLINE:-500}  # seconds from here to the end of training, all runs at once
RENDER=${RENDER:-480}      # scenes drawn at 2560 pixels, each cut into 4 tiles of 640
DEVICE=${DEVICE:-0}; CORES=$(nproc)
B=.gpu/detector
mkdir -p "$OUT" "$WORK"
export YOLO_CONFIG_DIR=$WORK/yolo-config
if ! python3 -c "import ultralytics" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target \
    "$WORK/site" $B/wheels/*.whl > "$WORK/pip.log" 2>&1 || { cat "$WORK/pip.log"; exit 1; }
  export PYTHONPATH=$WORK/site
fi
python3 -m vision.training.detector_bundle unpack $B "$WORK" > "$WORK/unpack.log" 2>&1 \
  || { cat "$WORK/unpack.log"; exit 1; }
export CPOKER_DECK_CACHE=$WORK/cache
first=$(ls "$WORK/cache/decks" | head -1)
# Half the scenes fans and overlaps, where the detector misses most (photo3's recipe), half
# every hand layout. A few validation scenes (a training deck on the held-out backgrounds)
# join the real tune photos in the validation below.
half=$(( (CORES + 1) / 2 ))
python3 -m vision.training.synth --out "$WORK/tiles-fan" --count $((RENDER / 2)) --seed 71 \
  --imgsz 2560 --tiles 4 --layouts fan overlap --val-fraction 0 \
  --workers $half > "$WORK/render-fan.log" 2>&1 &
python3 -m vision.training.synth --out "$WORK/tiles-mix" --count $((RENDER / 2)) --seed 72 \
  --imgsz 2560 --tiles 4 --val-fraction 0 --workers $half > "$WORK/render-mix.log" 2>&1 &
wait
python3 -m vision.training.synth --out "$WORK/tiles-val" --count $((RENDER / 50 + 2)) \
  --seed 73 --imgsz 2560 --tiles 4 --val-fraction 1 --val-decks "$first" \
  --workers $CORES > "$WORK/render-val.log" 2>&1
# Class names as every set writes them (engine notation); --single-cls reads one class.
# Validation chooses each run's best.pt, so it holds the real photos' tune splits (never
# the held-out ones) beside rendered scenes of a training deck on the held-out backgrounds.
python3 - "$WORK" <<'PY'
import sys
from pathlib import Path
from engine.cards import CARD_NAMES
work = Path(sys.argv[1])
sets = work / "sets"
train = [work / "tiles-fan", work / "tiles-mix", sets / "real-corners", sets / "real-decks"]
val = [work / "tiles-val/images/val", sets / "real-corners-tune/images/tune",
       sets / "real-decks-tune/images/tune"]
lines = ["train:", *(f"  - {t}/images/train" for t in train), "val:",
         *(f"  - {v}" for v in val), f"nc: {len(CARD_NAMES)}", "names:",
         *(f"  {i}: '{n}'" for i, n in enumerate(CARD_NAMES))]
(work / "data.yaml").write_text("\n".join(lines) + "\n")
PY
echo "tiles: $(find "$WORK"/tiles-*/images/train -name "*.jpg" | wc -l), real: $(find "$WORK"/sets -name "*.webp" | wc -l)"
# --hours ends each run on time: ultralytics fits the epoch count to it after the first
# epoch; --epochs only sets the first plan (and the last fifth without mosaics). The last
# 40 seconds are the final validation's and the copying's.
LIMIT=$(( DEADLINE - (SECONDS - START) - 40 ))
# A drawing that ran past the deadline still leaves a minute of training: the lent minutes
# are spent by now, and weights are what they were spent for.
[ $LIMIT -ge 60 ] || { echo "the drawing left $LIMIT s to train: 60 s instead"; LIMIT=60; }
echo "training for $LIMIT s"
common=(--data "$WORK/data.yaml" --weights $B/start.pt --single-cls --hsv-h 0.5
        --device "$DEVICE" --hours "$(python3 -c "print($LIMIT / 3600)")" --epochs 10)
workers=$(( CORES / $# )); [ $workers -lt 1 ] && workers=1
for letter in "$@"; do
  # A run's own options come last: argparse keeps the last --data.
  python3 -m vision.training.train_detector --name "gpu-$letter" "${common[@]}" \
    --workers $workers ${run[$letter]} > "$WORK/$letter.log" 2>&1 &
done
wait
for letter in "$@"; do
  w=runs/cards/gpu-$letter/weights
  [ -f "$w/last.pt" ] && cp "$w/last.pt" "$OUT/$letter.pt" || echo "run $letter left no weights"
  [ -f "$w/best.pt" ] && cp "$w/best.pt" "$OUT/$letter-best.pt"
  cp "runs/cards/gpu-$letter/results.csv" "$WORK/$letter-results.csv" 2>/dev/null
  tail -3 "$WORK/$letter-results.csv" 2>/dev/null
done
tar czf "$OUT/logs.tar.gz" -C "$WORK" $(cd "$WORK" && ls *.log *.csv 2>/dev/null)
