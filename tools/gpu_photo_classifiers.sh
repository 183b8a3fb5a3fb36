#!/usr/bin/env bash
# Photo-mode classifiers (64-128-256 channels, with the index head) trained on a lent GPU
# machine, each run in the background at once: bash tools/gpu_photo_classifiers.sh p q r s
# Session 25 trained run j (shipped) this way; session 32 adds the reprinted training decks
# (`vision.training.synth.retype`, crops-retype.npz) beside the decks as printed, and
# session 33 crops partly covered by another card: bash tools/gpu_photo_classifiers.sh m k o n
# Here first: `bash tools/gpu_photo_crops.sh` makes each crop file these runs read that
# datasets/generated lacks (session 31's recipes, and session 62's partly covered fan
# corners for runs f and g) and packs them into .gpu/crops (ignored through .gitignore;
# about 42 MiB), to carry with models/ left behind but for run 31's checkpoint (the runs'
# start).
# Session 72's call, from a fresh checkout (`make install-train fonts`, `python -m
# vision.training.synth.decks fetch`, `THERE=1 REPRINTED=0 bash tools/gpu_photo_crops.sh`:
# about 15 minutes, then move models/ aside but for run 31's checkpoint), timeout_s 590
# and carry [".gpu/crops"]: LIMIT=360 INDEX_LIMIT=100 INDEX_EXTRA="--batch 128"
# CROPS=/tmp/crops timeout 560 bash tools/gpu_photo_classifiers.sh x y z e. The crops
# that pack leaves out are drawn there first (ORIG_SCENES, PART_SCENES: 800 and 3000).
# Tried here end to end with DEVICE=cpu ORIG_SCENES=4 PART_SCENES=12 QUICK="--epochs 1
# --per-epoch 256" and .venv/bin first on PATH (2 minutes).
# There: OUT is the folder whose files come back (at most eight): OUT/LETTER.pt, each run's
# state dict with its index head, and OUT/logs.tar.gz. Every run learns the names, then the
# index head alone on the frozen trunk (session 19's run 28 recipe). Export and quantize
# here (`train_classifier average --states`, `quantize`); the GPU's short index stage turns
# away fewer crops of no index than the same stage run here (session 25), so train it again
# here with `--index-only` before shipping.
# INDEX_EXTRA="--batch 128": the index stage at the batch of the head trained here (run j's,
# runs/s25/idx.sh: 1,250 steps where the GPU's 256 gives 625; session 72).
# DEVICE=cpu and, say, QUICK="--epochs 1 --per-epoch 512" try the script on this machine.
# On this machine at full length (session 63; about 6.5 minutes an epoch of 40,000 crops in
# fp32, 3.3 with PRECISION=bf16 (session 64), so
# one run spans sittings): DEVICE=cpu CROPS=datasets/generated UNPACK=0 RESUME=1
# LIMIT=36000 INDEX_LIMIT=3600 WORK=runs/cpu-photo OUT=runs/cpu-photo/out nohup bash
# tools/gpu_photo_classifiers.sh g &, run again in the next sitting: each stage goes on
# from its last finished epoch (train_classifier --resume); a finished one only loads its
# crops again.
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/gpu-photo-classifiers}; LIMIT=${LIMIT:-330}; D=${CROPS:-/tmp/crops}
WORK=${WORK:-/tmp/gpu-photo-work}
mkdir -p "$OUT" "$WORK"
S=models/checkpoints/corner-classifier-scratch.pt  # run 31, run j's start
PRINTED="$D/crops-orig.npz $D/real-crops-train.npz $D/font-crops.npz $D/deck-crops-train.npz"
NEGATIVES="$D/negatives-train.npz"; NEGATIVES_TUNE="$D/negatives-tune.npz"
NEGATIVE_SHARE=1.6  # the crops of no index beside a run's files in the index stage (and b's names)
VAL="$D/crops-val-fan.npz $D/crops-val3.npz $D/real-crops-tune.npz"
# Shares follow run j's mix (rendered 3.8, our deck 2.5, fonts 1, the real decks 1.5), the
# rendered part split between the decks as printed and as reprinted.
REPRINTED="$PRINTED $D/crops-retype.npz"
AS_PRINTED="3.8 2.5 1 1.5"  # PRINTED's shares
MIX="2.3 2.5 1 1.5 1.5"   # REPRINTED's shares
MORE="1.3 2.5 1 1.5 2.5"  # the same with more of the reprinted decks
# Session 62: a readable fan corner partly under the next card is named wrong 3 times in
# 10 or more, on training decks too, where a whole one is 1 in 30: the crop files hold few.
PART="$PRINTED $D/crops-fan-part.npz"
declare -A files=([p]=$REPRINTED [q]=$REPRINTED [r]=$PRINTED [s]=$REPRINTED [t]=$REPRINTED
                  [u]=$PRINTED [v]=$REPRINTED [w]=$REPRINTED
                  [k]=$PRINTED [m]=$PRINTED [n]=$PRINTED [o]=$PRINTED
                  [f]=$PART [g]=$PART [h]=$PART [x]=$PART [y]=$PART [z]=$PART [e]=$PART
                  [b]=$PRINTED)
declare -A share=([p]=$MIX [q]=$MORE [r]=$AS_PRINTED [s]=$MIX [t]=$MIX [u]=$AS_PRINTED
                  [v]=$MIX [w]=$MORE
                  [k]=$AS_PRINTED [m]=$AS_PRINTED [n]=$AS_PRINTED [o]=$AS_PRINTED
                  [f]="3.8 2.5 1 1.5 0.6" [g]="3.8 2.5 1 1.5 1.5"
                  [h]="2.5 2.5 1 1.5 1.3" [x]="2.5 2.5 1 1.5 1.3" [y]="2.5 2.5 1 1.5 1.3"
                  [z]="2.5 2.5 1 3 1.3" [e]="2.5 2.5 1 1.5 1.3"
                  [b]=$AS_PRINTED)
# PRECISION=bf16: train in bfloat16 (train_classifier --precision; an epoch twice as fast on
# this machine's CPU, session 64); a resumed run may change it between sittings.
common=(--batch 256 --reshape --grain 0.15 --device "${DEVICE:-cuda}" --state-only
        --precision "${PRECISION:-fp32}")
names=(--lr 2e-3 --epochs 50 --per-epoch 40000)  # run j's
declare -A run=(
  [p]="--seed 55" [q]="--seed 56"
  [r]="--seed 55"  # the control: no reprinted decks
  [s]="--seed 57 --sharp 0.3"
  # A second call (session 32): more batches left as cut, since s read every set best.
  [t]="--seed 58 --sharp 0.3"
  [u]="--seed 57 --sharp 0.3"  # s without reprints
  [v]="--seed 59 --sharp 0.6"
  [w]="--seed 60 --sharp 0.3"
  # Session 33: crops partly covered by another card (--occlude), so that a half-hidden
  # index is named right or unsurely; on the 2-core machine the lever cut the crops
  # named wrong surely by three quarters but the fine-tuning cost recall. m is run j's
  # recipe again on a new seed: how much of run j's lead is the draw.
  [m]="--seed 61"
  [k]="--seed 61 --occlude 0.1"
  [o]="--seed 61 --occlude 0.2"
  [n]="--seed 61 --occlude 0.4"
  # Session 62: run j's recipe (m's seed) with the partly covered fan corners weighted in,
  # about 6 % (f) and 15 % (g) of each epoch; m is their control. On 2 cores, a
  # fine-tune weighting them named more held-out fan crops right (0.876 -> 0.889) but
  # read no more of tune-1280b's hands right.
  [f]="--seed 61" [g]="--seed 61"
  # Session 64: g read rendered fans better and every real set a little worse; its fan
  # crops took their share from every file, our deck's real crops falling from 28 % of
  # an epoch (run j) to 24 %. h keeps run j's shares of the real crops and fonts and takes
  # the fan crops' (about 15 %, as g's) from the rendered decks as printed.
  [h]="--seed 61"
  # Session 72, the first GPU since session 54: h's crops and shares (h is photo mode's
  # crowded network) trained longer (x), wider (y: 96-192-384 from run 31 widened; e:
  # 128-256-512 from scratch; session 24's wider networks named held-out designs' crops
  # best), and with the real decks' crops (the black deck, the webcam) weighted twice (z).
  [x]="--seed 71 --epochs 60" [y]="--seed 72 --epochs 60 --lr 1e-3"
  [z]="--seed 73 --epochs 60" [e]="--seed 74 --epochs 60"
  # Session 81: batches left as cut read held-out real decks better (session 80, in the
  # leave-one-deck-out fine-tunes) but name crops of no index surely (session 32); the
  # unsure loss taught after the fact cost names. b is run j's recipe with both from the
  # start: the crops of no index in every epoch (the index stage's share), the index
  # head trained with the names, and their names taught to be even.
  [b]="--seed 81 --sharp 0.3 --index-head --unsure 1")
# Where a run starts and how wide it is, when not run 31's own 64-128-256.
declare -A start=([y]="--widen $S" [e]="")
declare -A width=([y]="96 192 384" [e]="128 256 512")
# Runs whose names stage trains the index head too: the crops of no index join their files
# there as in the index stage, and are read after each epoch beside VAL.
declare -A index_with_names=([b]=1)
# A letter not above would train with no files: refuse it before any of the lent
# minutes go.
for letter in "$@"; do
  [ -n "${run[$letter]+set}" ] || { echo "unknown run $letter: known ${!run[*]}"; exit 2; }
done
if [ "${UNPACK:-1}" = 1 ]; then
  python3 -m vision.training.crop_mosaics unpack .gpu/crops "$D" > "$WORK/unpack.log" || exit 1
fi
# A pack made with THERE=1 (tools/gpu_photo_crops.sh) holds the training decks' art in
# place of the rendered training crops: draw those here, on every core, as the recipes
# there draw them (the scenes split between processes, train_classifier crops --workers).
if [ -e .gpu/crops/decks.tar ] && [ ! -e "$D/crops-orig.npz" ]; then
  python3 -m vision.training.detector_bundle unpack .gpu/crops "$WORK" \
    >> "$WORK/unpack.log" 2>&1 || { cat "$WORK/unpack.log"; exit 1; }
  export CPOKER_DECK_CACHE=$WORK/cache
  C="python3 -m vision.training.train_classifier crops --workers $(nproc)"
  drawn=$SECONDS
  $C --out "$D/crops-orig.npz" --scenes "${ORIG_SCENES:-800}" --seed 312 \
    > "$WORK/draw-orig.log" 2>&1 || { tail -5 "$WORK/draw-orig.log"; exit 1; }
  $C --out "$D/crops-fan-part.npz" --scenes "${PART_SCENES:-3000}" --seed 62 --layouts fan \
    --keep partly-covered > "$WORK/draw-fan-part.log" 2>&1 \
    || { tail -5 "$WORK/draw-fan-part.log"; exit 1; }
  echo "drew the rendered training crops in $((SECONDS - drawn)) s:" \
    "$(tail -n 1 "$WORK/draw-orig.log"); $(tail -n 1 "$WORK/draw-fan-part.log")"
fi
# RESUME=1: each stage goes on where a stopped run of it stopped, and a stage stopped
# short ends the run (the next sitting goes on). Without it, as on a lent GPU, the index
# stage trains on whatever epoch the names reached in the time given.
again=(); [ "${RESUME:-0}" = 1 ] && again=(--resume)
short() { [ "${RESUME:-0}" = 1 ] && exit 1; true; }
for letter in "$@"; do
  (
    channels=${width[$letter]:-64 128 256}
    from=${start[$letter]---init $S}
    train=${files[$letter]}; shares=${share[$letter]}; val=$VAL
    if [ -n "${index_with_names[$letter]:-}" ]; then
      train="$train $NEGATIVES"; shares="$shares $NEGATIVE_SHARE"; val="$val $NEGATIVES_TUNE"
    fi
    # shellcheck disable=SC2086
    timeout "$LIMIT" python3 -m vision.training.train_classifier train "${common[@]}" \
      --channels $channels $from --train $train --share $shares --val $val \
      --out "$WORK/$letter/names.onnx" "${names[@]}" ${run[$letter]} ${QUICK:-} \
      "${again[@]}" || short
    # shellcheck disable=SC2086
    timeout "${INDEX_LIMIT:-90}" python3 -m vision.training.train_classifier train "${common[@]}" \
      --channels $channels --train ${files[$letter]} $NEGATIVES --share ${share[$letter]} $NEGATIVE_SHARE \
      --val $VAL "$NEGATIVES_TUNE" --init "$WORK/$letter/names.pt" --index-head \
      --index-only --lr 3e-3 --epochs 8 --per-epoch 20000 --seed 7 \
      --out "$WORK/$letter/corner-classifier.onnx" ${INDEX_EXTRA:-} ${QUICK:-} "${again[@]}" || short
    cp "$WORK/$letter/corner-classifier.pt" "$OUT/$letter.pt"
    # A file that comes back is 16 MiB at most: a 128-256-512 network's state (about 17
    # MiB in float) comes back in half precision.
    if [ "$(stat -c %s "$OUT/$letter.pt")" -gt 15000000 ]; then
      python3 -c "import sys, torch; s = torch.load(sys.argv[1]); torch.save({k: v.half() if v.is_floating_point() else v for k, v in s.items()}, sys.argv[1])" \
        "$OUT/$letter.pt"
    fi
  ) >> "$WORK/$letter.log" 2>&1 &
done
wait
for letter in "$@"; do tail -n 1 "$WORK/$letter.log"; done
tar -czf "$OUT/logs.tar.gz" -C "$WORK" --exclude='*.pt' --exclude='*.onnx' .
