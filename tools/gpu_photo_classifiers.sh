#!/usr/bin/env bash
# Photo-mode classifiers (64-128-256 channels, with the index head) trained on a lent GPU
# machine (session 25), each run in the background at once: bash tools/gpu_photo_classifiers.sh f g h i
# Session 24's runs carried 13,000 of real-crops-train's 63,519 crops of our own deck and
# the network that came back named extra cards on it; these carry 50,000 (fewer rendered).
# Here first: pack the crops into .gpu/crops (ignored through .git/info/exclude), with
# models/ left behind but for run 31's checkpoint (the runs' start):
#   python -m vision.training.crop_mosaics pack --out .gpu/crops --seed 25 --quality 80 \
#     G/real-crops-train.npz:50000 G/deck-phone-white-train.npz \
#     G/deck-phone-black-inv-train.npz G/deck-webcam-handheld-train.npz \
#     G/crops-aguilar.npz:1500 G/crops-aguilar-fan.npz:600 G/crops-val3.npz:1000 \
#     G/real-crops-tune.npz G/negatives-real.npz G/negatives-rendered.npz G/negatives-tune.npz
#   python -m vision.training.crop_mosaics pack --out .gpu/crops --seed 26 --quality 80 \
#     G/crops-train3.npz:10000 G/crops-fan.npz:5000 G/crops-table.npz:3000 \
#     G/font-crops-all.npz:7000                    (G = datasets/generated; 42.7 MiB in all)
# There: OUT is the folder whose files come back (at most eight): OUT/LETTER.pt, each run's
# state dict with its index head, and OUT/logs.tar.gz. Runs f, g and i learn the names,
# then the index head alone on the frozen trunk (session 19's run 28 recipe); run h learns
# both at once. Export and quantize here (`train_classifier average --states`, `quantize`).
# DEVICE=cpu and, say, QUICK="--epochs 1 --per-epoch 512" try the script on this machine.
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/gpu-photo-classifiers}; LIMIT=${LIMIT:-340}; D=${CROPS:-/tmp/crops}
WORK=${WORK:-/tmp/gpu-photo-work}
mkdir -p "$OUT" "$WORK"
python3 -m vision.training.crop_mosaics unpack .gpu/crops "$D" > "$WORK/unpack.log" || exit 1
S=models/checkpoints/corner-classifier-scratch.pt  # run 31
NAMES="$D/crops-train3.npz $D/crops-fan.npz $D/crops-table.npz $D/real-crops-train.npz
  $D/font-crops-all.npz $D/deck-phone-white-train.npz $D/deck-phone-black-inv-train.npz
  $D/deck-webcam-handheld-train.npz $D/crops-aguilar.npz $D/crops-aguilar-fan.npz"
NEGATIVES="$D/negatives-real.npz $D/negatives-rendered.npz"
VAL="$D/crops-val3.npz $D/real-crops-tune.npz"
SHARE="1 1 1 2.5 1 0.5 0.5 0.5 0.5 0.3"  # NAMES' shares (real-crops-train's is 2.5)
REAL4="1 1 1 4 1 0.5 0.5 0.5 0.5 0.3"    # the same with our deck at 4
common=(--batch 256 --reshape --grain 0.15 --device "${DEVICE:-cuda}" --state-only
        --channels 64 128 256)
declare -A run=(
  [f]="--lr 5e-4 --epochs 60 --per-epoch 40000 --seed 51 --share $SHARE"
  [g]="--lr 1e-3 --epochs 60 --per-epoch 40000 --seed 52 --share $SHARE"
  [h]="--lr 5e-4 --epochs 60 --per-epoch 40000 --seed 53 --share $SHARE 1.5 0.1"
  [i]="--lr 5e-4 --epochs 60 --per-epoch 40000 --seed 54 --share $REAL4"
  # A second call on the still-warm machine (LIMIT=250): more starts from run 31 whose
  # weights may be averaged with g's (all share its start).
  [j]="--lr 2e-3 --epochs 50 --per-epoch 40000 --seed 55 --share $SHARE"
  [k]="--lr 1e-3 --epochs 50 --per-epoch 40000 --seed 56 --share $SHARE"
  [l]="--lr 1e-3 --epochs 50 --per-epoch 40000 --seed 57 --share $REAL4"
  # A third call (LIMIT=150): shorter runs, more to average.
  [m]="--lr 1e-3 --epochs 28 --per-epoch 40000 --seed 58 --share $SHARE"
  [n]="--lr 1e-3 --epochs 28 --per-epoch 40000 --seed 59 --share $SHARE"
  [o]="--lr 2e-3 --epochs 28 --per-epoch 40000 --seed 60 --share $SHARE")
for letter in "$@"; do
  (
    # shellcheck disable=SC2086
    if [ "$letter" = h ]; then
      timeout "$LIMIT" python3 -m vision.training.train_classifier train "${common[@]}" \
        --train $NAMES $NEGATIVES --val $VAL "$D/negatives-tune.npz" --init "$S" \
        --index-head --out "$WORK/$letter/corner-classifier.onnx" ${run[$letter]} ${QUICK:-}
    else
      timeout "$LIMIT" python3 -m vision.training.train_classifier train "${common[@]}" \
        --train $NAMES --val $VAL --init "$S" --out "$WORK/$letter/names.onnx" \
        ${run[$letter]} ${QUICK:-}
      timeout 90 python3 -m vision.training.train_classifier train "${common[@]}" \
        --train $NAMES $NEGATIVES --share $SHARE 1.5 0.1 \
        --val $VAL "$D/negatives-tune.npz" --init "$WORK/$letter/names.pt" --index-head \
        --index-only --lr 3e-3 --epochs 8 --per-epoch 20000 --seed 7 \
        --out "$WORK/$letter/corner-classifier.onnx" ${QUICK:-}
    fi
    cp "$WORK/$letter/corner-classifier.pt" "$OUT/$letter.pt"
  ) > "$WORK/$letter.log" 2>&1 &
done
wait
for letter in "$@"; do tail -n 1 "$WORK/$letter.log"; done
tar -czf "$OUT/logs.tar.gz" -C "$WORK" --exclude='*.pt' --exclude='*.onnx' .
