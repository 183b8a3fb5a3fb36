#!/usr/bin/env bash
# The corner detector trained on a lent GPU machine: its scenes drawn there from the packed
# decks, then one run per letter, side by side: bash tools/gpu_detector.sh a b
# Every detector so far (photo1-photo9) trained on this 2-core machine, a few epochs each
# (photo3, shipped: one epoch on top of photo2), and the detector's recall is most of what
# the reader misses (models/README.md, sessions 26, 30 and 33). A GPU gives it tens of
# epochs over scenes drawn fresh for the run.
# Here first, G = datasets/generated (about 10 minutes, most of it `realdata corners`):
#   python -m vision.training.realdata corners --out G/real-corners --split train
#   python -m vision.training.realdata decks --out G/real-decks --split train
#   python -m vision.training.detector_bundle pack --out .gpu/detector \
#     --decks $(ls datasets/cache/decks | grep -v -e '^retype-' -e '^procedural$' \
#       -e '^gnome-neoclassical' -e '^kde-jolly-royal$' -e '^kde-standard$') \
#     --sets G/real-corners G/real-decks                  (.gpu/ is in .git/info/exclude)
#   cp models/cards.pt .gpu/detector/start.pt
#   python -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#     --implementation cp --platform manylinux2014_x86_64 -d .gpu/detector/wheels \
#     ultralytics==8.4.190 ultralytics-thop==2.2.3    (polars stays behind: 54 MB; see
#                                                      train_detector._can_plot)
# Then leave models/ behind as for the classifiers (tools/gpu_photo_classifiers.sh) and run
# with carry [".gpu/detector"]: OUT/LETTER.pt (each run's last weights) and OUT/logs.tar.gz
# come back. Here: train_detector --export, quantize detector, evaluate --weights.
# DEVICE=cpu RENDER=6 LIMIT=120 try the script on this machine.
set -u
export PYTHONUNBUFFERED=1 YOLO_OFFLINE=1 YOLO_AUTOINSTALL=false
OUT=${OUT:-/tmp/gpu-detector}; WORK=${WORK:-/tmp/gpu-detector-work}
LIMIT=${LIMIT:-330}     # seconds each run trains, all runs at once
RENDER=${RENDER:-1000}  # scenes drawn at 2560 pixels, each cut into 4 tiles of 640
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
# every hand layout. The validation scenes (a training deck, the held-out backgrounds) only
# watch the run: its last weights come back, not the ones validation liked best.
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
python3 - "$WORK" <<'PY'
import sys
from pathlib import Path
from engine.cards import CARD_NAMES
work = Path(sys.argv[1])
train = ["tiles-fan", "tiles-mix", "sets/real-corners", "sets/real-decks"]
lines = ["train:", *(f"  - {work / t}/images/train" for t in train), "val:",
         f"  - {work}/tiles-val/images/val", f"nc: {len(CARD_NAMES)}",
         "names:", *(f"  {i}: '{n}'" for i, n in enumerate(CARD_NAMES))]
(work / "data.yaml").write_text("\n".join(lines) + "\n")
# The rendered tiles alone: photo8 and photo9 read the real held-out photos worse after
# training on the real training photos (they learn those photos, not the decks).
rendered = [line for line in lines if "/sets/" not in line]
(work / "data-rendered.yaml").write_text("\n".join(rendered) + "\n")
PY
echo "tiles: $(find "$WORK"/tiles-*/images/train -name "*.jpg" | wc -l), real: $(find "$WORK"/sets -name "*.webp" | wc -l)"
common=(--data "$WORK/data.yaml" --weights $B/start.pt --single-cls --hsv-h 0.5
        --device "$DEVICE" --hours "$(python3 -c "print($LIMIT / 3600)")" --epochs 30)
declare -A run=(
  # photo3 trained on at its own fine-tuning rate, batch 64: tens of epochs where the
  # 2-core machine gave one.
  [a]="--lr0 0.0005 --batch 64"
  # The same with indices of more sizes (scale jitter 0.5): real-decks-dev's 50-160 pixel
  # indices in a 640-pixel photo are what no detector here has boxed (session 27).
  [b]="--lr0 0.0005 --batch 64 --scale 0.5"
  # a without the real photos
  [c]="--lr0 0.0005 --batch 64 --data $WORK/data-rendered.yaml"
  [d]="--lr0 0.001 --batch 64"
)
workers=$(( CORES / $# )); [ $workers -lt 1 ] && workers=1
for letter in "$@"; do
  # A run's own options come last: argparse keeps the last --data.
  python3 -m vision.training.train_detector --name "gpu-$letter" "${common[@]}" \
    --workers $workers ${run[$letter]} > "$WORK/$letter.log" 2>&1 &
done
wait
for letter in "$@"; do
  w=runs/cards/gpu-$letter/weights/last.pt
  [ -f "$w" ] && cp "$w" "$OUT/$letter.pt" || echo "run $letter left no weights"
  cp "runs/cards/gpu-$letter/results.csv" "$WORK/$letter-results.csv" 2>/dev/null
  tail -3 "$WORK/$letter-results.csv" 2>/dev/null
done
tar czf "$OUT/logs.tar.gz" -C "$WORK" $(cd "$WORK" && ls *.log *.csv 2>/dev/null)
