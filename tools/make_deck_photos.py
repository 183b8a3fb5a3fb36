"""Render the deck-learning photos the tests read (tests/data/decks/DECK/).

    .venv/bin/python tools/make_deck_photos.py [--deck kde-standard] [--hands 4] [--seed 3]

A held-out (validation) deck of the scene generator: the four suit photos ``cpoker deck
learn`` takes (spades.jpg, hearts.jpg, diamonds.jpg, clubs.jpg: each suit's 13 cards in
rank order, laid out like text), and ``--hands`` 13-card photos of the same deck
(hand-N.jpg) with the cards they show and their labelled corner boxes in ``hands.json``.
Needs the rendered deck art (``python -m vision.training.synth.decks fetch``, or a link to
it in datasets/cache).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.cards import CARD_NAMES  # noqa: E402
from vision.decks import SUIT_ORDER, SUIT_WORDS  # noqa: E402
from vision.training.deck_photos import hand_photo, jpeg, suit_photo  # noqa: E402
from vision.training.synth.decks import available_decks, load_deck  # noqa: E402

OUT = ROOT / "tests" / "data" / "decks"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deck", default="kde-standard", choices=available_decks("val"))
    parser.add_argument("--hands", type=int, default=4)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--quality", type=int, default=80)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    deck = load_deck(args.deck)
    out = OUT / args.deck
    out.mkdir(parents=True, exist_ok=True)
    for suit in SUIT_ORDER:
        scene = suit_photo(rng, deck, suit, args.size)
        (out / f"{SUIT_WORDS[suit]}.jpg").write_bytes(jpeg(scene.image, args.quality))
    hands = {}
    for k in range(args.hands):
        scene = hand_photo(rng, deck, args.size)
        name = f"hand-{k + 1}.jpg"
        (out / name).write_bytes(jpeg(scene.image, args.quality))
        size = scene.image.shape[0]
        hands[name] = {
            "cards": sorted({CARD_NAMES[label[0]] for label in scene.labels},
                            key=CARD_NAMES.index),
            "corners": [[CARD_NAMES[c], *(round(v * size, 1) for v in (
                x - w / 2, y - h / 2, x + w / 2, y + h / 2))]
                for c, x, y, w, h in scene.labels]}
    (out / "hands.json").write_text(json.dumps(hands, indent=1) + "\n")
    print(f"{out}: 4 suit photos, {args.hands} hands")
    return 0


if __name__ == "__main__":
    sys.exit(main())
