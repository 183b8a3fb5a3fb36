"""Render the few scenes the tests and the browser tests read (tests/data/scenes/).

    .venv/bin/python tools/make_test_scenes.py [--seed 7] [--count 6]

Scenes come from held-out (validation) decks, 13 cards each with every card showing at
least one corner index, half of them laid out as three set rows. Each photo has a JSON
beside it: the cards, the layout, the deck and, for rows, which cards lie in which row.
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
from vision.training.synth import scene as synth  # noqa: E402
from vision.training.synth.backgrounds import BACKGROUNDS  # noqa: E402
from vision.training.synth.decks import available_decks, load_deck  # noqa: E402

OUT = ROOT / "tests" / "data" / "scenes"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--count", type=int, default=6)
    parser.add_argument("--size", type=int, default=960)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    decks = [load_deck(name) for name in available_decks("val")]
    OUT.mkdir(parents=True, exist_ok=True)
    made = 0
    while made < args.count:
        layout = "rows" if made % 2 == 0 else "spread"
        deck = decks[made % len(decks)]
        scene = synth.render_scene(rng, deck, size=args.size, layout=layout,
                                   backgrounds=tuple(BACKGROUNDS))
        seen = {CARD_NAMES[c] for c, *_ in scene.labels}
        if len(scene.cards) != 13 or seen != set(scene.cards):
            continue  # a card with no visible corner: a person would retake the photo
        stem = OUT / f"scene-{made:02d}-{layout}"
        stem.with_suffix(".jpg").write_bytes(synth.encode_jpeg(scene))
        meta: dict[str, object] = {"cards": sorted(scene.cards, key=CARD_NAMES.index),
                                   "layout": layout, "deck": deck.name,
                                   "background": scene.background}
        if scene.rows is not None:
            meta["rows"] = scene.rows
        stem.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
        print(stem.with_suffix(".jpg").relative_to(ROOT), layout, deck.name)
        made += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
