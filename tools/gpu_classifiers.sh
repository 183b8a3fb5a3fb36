#!/usr/bin/env bash
# Corner classifiers trained on a lent GPU machine (session 24), each run in the background
# at once: bash tools/gpu_classifiers.sh a b c  (one letter a run, below).
# Here first: pack the crops into .gpu/crops (ignored through .gitignore; the machine
# takes the working tree and at most 64 MiB beside it), with models/ left behind:
#   python -m vision.training.crop_mosaics pack --out .gpu/crops --seed 24 --quality 88 \
#     G/crops-train3.npz:15000 G/crops-fan.npz:9000 G/crops-table.npz:6500 \
#     G/real-crops-train.npz:13000 G/font-crops-all.npz:10000 G/deck-phone-white-train.npz \
#     G/deck-phone-black-inv-train.npz G/deck-webcam-handheld-train.npz \
#     G/crops-aguilar.npz:3000 G/crops-aguilar-fan.npz:1500 G/crops-val3.npz:3500 \
#     G/crops-val-fan.npz:1800 G/real-crops-tune.npz   (G = datasets/generated)
# There: OUT is the folder whose files come back; each run writes OUT/LETTER.log and
# OUT/LETTER/corner-classifier.pt (the state dict alone, in half precision: a 128-256-512
# network's would pass the 16 MiB a file that comes back; export and quantize it here).
# DEVICE=cpu and, say, QUICK="--epochs 1 --per-epoch 512" try the script on this machine.
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/gpu-classifiers}; LIMIT=${LIMIT:-450}; D=${CROPS:-/tmp/crops}
mkdir -p "$OUT"
python3 -m vision.training.crop_mosaics unpack .gpu/crops "$D" > "$OUT/unpack.log" || exit 1
S=models/checkpoints/corner-classifier-scratch.pt  # run 31
TRAIN="$D/crops-train3.npz $D/crops-fan.npz $D/crops-table.npz $D/real-crops-train.npz
  $D/font-crops-all.npz $D/deck-phone-white-train.npz $D/deck-phone-black-inv-train.npz
  $D/deck-webcam-handheld-train.npz $D/crops-aguilar.npz $D/crops-aguilar-fan.npz"
# shellcheck disable=SC2086
common=(--train $TRAIN --share 1 1.5 1 2.5 1 0.5 0.5 0.5 0.5 0.3
        --val "$D/crops-val3.npz" "$D/crops-val-fan.npz" "$D/real-crops-tune.npz"
        --batch 256 --reshape --grain 0.15 --device "${DEVICE:-cuda}" --state-only)
declare -A run=(
  [a]="--channels 64 128 256 --init $S --lr 5e-4 --epochs 60 --per-epoch 40000 --seed 41"
  [b]="--channels 96 192 384 --widen $S --lr 1e-3 --epochs 70 --per-epoch 40000 --seed 42"
  [c]="--channels 96 192 384 --lr 2e-3 --epochs 80 --per-epoch 30000 --seed 43"
  [d]="--channels 128 256 512 --lr 2e-3 --epochs 60 --per-epoch 30000 --seed 44"
  [e]="--channels 96 192 384 --lr 2e-3 --epochs 80 --per-epoch 30000 --seed 45")
for letter in "$@"; do
  mkdir -p "$OUT/$letter"
  # shellcheck disable=SC2086
  timeout "$LIMIT" python3 -m vision.training.train_classifier train "${common[@]}" \
    --out "$OUT/$letter/corner-classifier.onnx" ${run[$letter]} ${QUICK:-} \
    > "$OUT/$letter.log" 2>&1 &
done
wait
for letter in "$@"; do
  tail -n 1 "$OUT/$letter.log"
  python3 -c "import sys, torch; s = torch.load(sys.argv[1]); torch.save({k: v.half() if v.is_floating_point() else v for k, v in s.items()}, sys.argv[1])" \
    "$OUT/$letter/corner-classifier.pt"
done
