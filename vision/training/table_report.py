"""How well a whole table is read: rendered table scenes of held-out decks, each seat
checked for all 13 cards and its three rows exactly right.

    python -m vision.training.table_report --count 40 [--seed 15] [--decks NAME ...] [--reader]
        [--save-readings FILE] [--weights DETECTOR.onnx] [--classifier CLASSIFIER.onnx]
        [--photo-classifier CLASSIFIER.onnx]
        [--conf C] [--scenes DIR]
    python -m vision.training.table_report --regroup FILE [--remerge]


(a) from the scenes' true corner boxes (the grouping of ``vision.table`` alone), and with
``--reader`` (b) through the shipped reader too, each scene written as a 4032x3024 phone
JPEG and read as ``cpoker table`` reads a photo. Only scenes where every card shows a
corner index are counted (a person would retake the others); how many were redrawn is
printed. ``--save-readings`` keeps what the reader read of each scene (its cards, the
unsure corners and the truth, JSON lines); ``--regroup`` groups those readings again
without rendering or reading anything, so a change to ``vision.table`` is measured in
seconds on the same readings; ``--remerge`` merges the saved corners into cards again
first, for a change to ``vision.reading``. The helpers here also make the committed test photos
(``tools/make_table_scenes.py``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.cards import CARD_NAMES
from vision.detections import Detections
from vision.reading import CardReading, merge_corners
from vision.table import TableReading, group_table
from vision.training.reader_options import add_photo_options, measured_model, photo_changes
from vision.training.synth import scene as synth
from vision.training.synth.backgrounds import BACKGROUNDS
from vision.training.synth.decks import Deck, available_decks, load_deck

PHONE = (4032, 3024)  # a 12 MP phone photo, landscape
ROWS = (("front", 0, 3), ("middle", 3, 8), ("back", 8, 13))


@dataclass
class TableScene:
    image: np.ndarray  # HxWx3 RGB
    seats: list[dict[str, list[str]]]  # truth: seat 1 first, each {"front", "middle", "back"}
    boxes: dict[str, tuple[float, float, float, float]]  # card -> union of its corner boxes
    corners: dict[str, int]  # card -> corner indices showing
    indices: list[tuple[str, tuple[float, float, float, float]]]  # each index's true box
    deck: str
    background: str
    jpeg_quality: int

    def true_cards(self) -> list[CardReading]:
        return [CardReading(card, 1.0, box, self.corners[card])
                for card, box in self.boxes.items()]

    def truth(self) -> dict[str, object]:
        return {"seats": [{"seat": n, **rows} for n, rows in enumerate(self.seats, start=1)],
                "deck": self.deck, "background": self.background,
                "size": [int(self.image.shape[1]), int(self.image.shape[0])],
                "indices": [{"card": card, "box": [round(v, 1) for v in box]}
                            for card, box in self.indices]}


def render_table(rng: np.random.Generator, deck: Deck, frame: tuple[int, int] = PHONE
                 ) -> TableScene | None:
    """A table scene as a phone would take it, or None when a card shows no corner index
    or a card lies near the frame's sides (where the square scene is widened)."""
    width, height = frame
    side = min(width, height)
    scene = synth.render_scene(rng, deck, side, layout="table",
                               backgrounds=tuple(BACKGROUNDS))
    boxes: dict[str, tuple[float, float, float, float]] = {}
    corners: dict[str, int] = defaultdict(int)
    indices: list[tuple[str, tuple[float, float, float, float]]] = []
    for class_id, cx, cy, w, h in scene.labels:
        card = CARD_NAMES[class_id]
        box = ((cx - w / 2) * side, (cy - h / 2) * side, (cx + w / 2) * side,
               (cy + h / 2) * side)
        old = boxes.get(card, box)
        boxes[card] = (min(old[0], box[0]), min(old[1], box[1]), max(old[2], box[2]),
                       max(old[3], box[3]))
        corners[card] += 1
        indices.append((card, box))
    if set(boxes) != set(scene.cards):
        return None
    # A card's index can lie up to a card's length inside the card: keep cards off the
    # square's sides so that widening it never cuts one.
    margin = 0.08 * side
    if any(b[0] < margin or b[2] > side - margin for b in boxes.values()) and width != height:
        return None
    image, (dx, dy) = widen(scene.image, scene.background, rng, frame)
    boxes = {c: (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy) for c, b in boxes.items()}
    indices = [(c, (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy)) for c, b in indices]
    seats = [{row: scene.cards[13 * s + a:13 * s + b] for row, a, b in ROWS}
             for s in range(len(scene.cards) // 13)]
    return TableScene(image, _numbered(seats, boxes), boxes, dict(corners), indices,
                      deck.name, scene.background, scene.jpeg_quality)


def widen(square: np.ndarray, kind: str, rng: np.random.Generator, frame: tuple[int, int]
          ) -> tuple[np.ndarray, tuple[int, int]]:
    """The square scene in the middle of a ``frame``-sized photo; the sides are more of the
    same kind of table, matched to the scene's edge colour and blended in. Returns the
    photo and where the square's top-left corner lies in it."""
    width, height = frame
    side = square.shape[0]
    if (width, height) == (side, side):
        return square, (0, 0)
    table = BACKGROUNDS[kind](rng, max(width, height))[:height, :width].astype(np.float32)
    photo = table.copy()
    dx, dy = (width - side) // 2, (height - side) // 2
    scene = square.astype(np.float32) / 255
    band = max(8, side // 40)
    # Each side of the table matched to the scene's own edge: its lighting falls off too.
    left = scene[:, :band].mean(axis=(0, 1)) / np.maximum(table[:, :dx].mean(axis=(0, 1)), 1e-3)
    right = scene[:, -band:].mean(axis=(0, 1)) / np.maximum(
        table[:, dx + side:].mean(axis=(0, 1)), 1e-3)
    ramp = np.linspace(0, 1, width, dtype=np.float32)[None, :, None]
    photo *= left * (1 - ramp) + right * ramp
    # Feather the seam over a band of the scene's edge, where no card lies (render_table).
    alpha = np.ones((side, side, 1), np.float32)
    fade = np.linspace(0, 1, band, dtype=np.float32)
    alpha[:, :band, 0] = fade[None, :]
    alpha[:, -band:, 0] = np.minimum(alpha[:, -band:, 0], fade[::-1][None, :])
    region = photo[dy:dy + side, dx:dx + side]
    region[:] = scene * alpha + region * (1 - alpha)
    photo += rng.normal(0, 0.01, photo.shape).astype(np.float32)
    return (np.clip(photo, 0, 1) * 255 + 0.5).astype(np.uint8), (dx, dy)


# Bumped whenever the generator draws or labels a seed's scenes differently, so that a
# cache of the old ones is not read as the new: 2 since an index washed out by the light
# is not labelled (vision.training.synth.scene.MIN_INDEX_CONTRAST; session 14).
SCENES_VERSION = 2


class SceneCache:
    """Rendered table scenes kept on disk (``--scenes``): scene ``i`` of a run (seed,
    count, frame, and the decks when named: ``--decks``) as a lossless PNG and its truth as
    JSON, in a folder named for them and ``SCENES_VERSION``. All or nothing: the scenes
    come from one random stream, so a run missing any of them renders them all again."""

    def __init__(self, folder: Path, seed: int, count: int, frame: tuple[int, int],
                 decks: list[str] | None = None) -> None:
        named = f"-{'+'.join(decks)}" if decks else ""
        self.folder = folder / (f"seed{seed}-count{count}-{frame[0]}x{frame[1]}{named}"
                                f"-v{SCENES_VERSION}")
        self.folder.mkdir(parents=True, exist_ok=True)
        self.complete = all((self.folder / f"{i:03d}.json").exists() for i in range(count))

    def save(self, index: int, scene: TableScene) -> None:
        cv2.imwrite(str(self.folder / f"{index:03d}.png"),
                    cv2.cvtColor(scene.image, cv2.COLOR_RGB2BGR))
        record = {f.name: getattr(scene, f.name) for f in dataclasses.fields(scene)
                  if f.name != "image"}
        (self.folder / f"{index:03d}.json").write_text(json.dumps(record))

    def load(self, index: int) -> TableScene:
        record = json.loads((self.folder / f"{index:03d}.json").read_text())
        image = cv2.cvtColor(cv2.imread(str(self.folder / f"{index:03d}.png")),
                             cv2.COLOR_BGR2RGB)
        return TableScene(
            image, record["seats"], {c: tuple(b) for c, b in record["boxes"].items()},
            record["corners"], [(c, tuple(b)) for c, b in record["indices"]],
            record["deck"], record["background"], record["jpeg_quality"])


def _numbered(seats: list[dict[str, list[str]]],
              boxes: dict[str, tuple[float, float, float, float]]
              ) -> list[dict[str, list[str]]]:
    """The seats in the order the issue numbers them: the one nearest the bottom edge,
    then clockwise round the mean of the seats' centres (the generator spaces seats
    evenly, give or take a few degrees)."""
    def centre(seat: dict[str, list[str]]) -> tuple[float, float]:
        points = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
                  for row in seat.values() for b in (boxes[c] for c in row)]
        return float(np.mean([p[0] for p in points])), float(np.mean([p[1] for p in points]))

    centres = [centre(s) for s in seats]
    mx, my = float(np.mean([c[0] for c in centres])), float(np.mean([c[1] for c in centres]))
    first = max(range(len(seats)), key=lambda i: centres[i][1])
    start = math.atan2(centres[first][1] - my, centres[first][0] - mx)
    order = sorted(range(len(seats)), key=lambda i: (math.atan2(
        centres[i][1] - my, centres[i][0] - mx) - start) % (2 * math.pi))
    return [seats[i] for i in order]


def held_out_decks(names: list[str] | None = None) -> list[Deck]:
    """The held-out designs' art (default: every deck of role val), none with a message on
    stderr when not cached."""
    cached = available_decks()
    missing = [name for name in names or () if name not in cached]
    if missing:
        print(f"decks not cached: {' '.join(missing)} (cached: {' '.join(cached)}); run "
              "python -m vision.training.synth.decks fetch", file=sys.stderr)
        return []
    decks = [load_deck(name) for name in names or available_decks("val")]
    if not decks:
        print("no held-out decks cached: run python -m vision.training.synth.decks fetch",
              file=sys.stderr)
    return decks


def seats_right(table: TableReading, truth: list[dict[str, list[str]]]) -> tuple[int, int]:
    """(seats read with all 13 cards and three rows exactly right, seats numbered right
    too): a true seat counts when some seat read holds exactly its cards, row by row."""
    right = numbered = 0
    for number, rows in enumerate(truth, start=1):
        want = {row: set(cards) for row, cards in rows.items()}
        for seat in table.seats:
            if seat.rows is not None and {r: set(c) for r, c in seat.rows.to_dict().items()
                                          } == want and len(seat.cards) == 13:
                right += 1
                numbered += seat.number == number
                break
    return right, numbered


def reading_record(reading: object, truth: list[dict[str, list[str]]]
                   ) -> dict[str, object]:
    """One scene's reading (a ``vision.pipeline.PhotoReading``) as ``--save-readings``
    writes it."""
    def cards(found: list[CardReading]) -> list[dict[str, object]]:
        return [{"card": c.card, "confidence": c.confidence, "box": list(c.box),
                 "corners": c.corners} for c in found]

    record: dict[str, object] = {
        "size": list(reading.size), "cards": cards(reading.cards),  # type: ignore[attr-defined]
        "doubtful": cards(reading.doubtful), "truth": truth}  # type: ignore[attr-defined]
    found = getattr(reading, "detections", None)
    if found is not None:
        # The corners themselves, so that ``--regroup --remerge`` measures a change to
        # ``vision.reading`` too without reading the photos again.
        record["corners"] = {
            "xyxy": np.round(found.xyxy, 1).tolist(),
            "confidence": np.round(found.confidence, 4).tolist(),
            "class_id": found.class_id.tolist(), "names": list(found.names),
            "probabilities": None if found.class_probabilities is None
            else np.round(found.class_probabilities, 4).tolist()}
    return record


def corners_of(record: dict[str, object]) -> Detections:
    """The corner detections ``reading_record`` saved."""
    saved = record["corners"]
    assert isinstance(saved, dict)
    probabilities = saved["probabilities"]
    return Detections(np.array(saved["xyxy"], np.float32).reshape(-1, 4),
                      np.array(saved["confidence"], np.float32),
                      np.array(saved["class_id"], np.int64), tuple(saved["names"]),
                      None if probabilities is None
                      else np.array(probabilities, np.float32).reshape(
                          -1, len(saved["names"])))


def regroup(path: str, remerge: bool = False) -> dict[str, object]:
    """Seats right when the readings saved in ``path`` are grouped again; with
    ``remerge``, their corners are first merged into cards again (``vision.reading``),
    with the shipped model's reading settings."""
    seats = right = tables = 0
    scenes = 0
    settings: dict[str, object] = {}
    if remerge:
        from vision.detector import default_model

        settings = default_model().reading_settings
    with open(path) as handle:
        for line in handle:
            record = json.loads(line)
            if remerge:
                if "corners" not in record:
                    raise SystemExit(f"{path}: saved without corners; read the scenes "
                                     "again with --save-readings")
                merged = merge_corners(corners_of(record), **settings)  # type: ignore[arg-type]
                cards, doubtful = merged.cards, merged.doubtful
            else:
                cards, doubtful = ([CardReading(c["card"], c["confidence"], tuple(c["box"]),
                                                c["corners"]) for c in record[key]]
                                   for key in ("cards", "doubtful"))
            table = group_table(cards, tuple(record["size"]), doubtful=doubtful)
            got, _ = seats_right(table, record["truth"])
            scenes += 1
            seats += len(record["truth"])
            right += got
            tables += got == len(record["truth"])
    return {"scenes": scenes, "seats": seats, "seats_right": right / max(seats, 1),
            "tables_right": tables / max(scenes, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=40, help="table scenes to render")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--decks", nargs="+", default=None,
                        help="the decks the tables are drawn with (default: every held-out "
                        "one, role val; the jumbo-index probes are named here)")
    parser.add_argument("--reader", action="store_true",
                        help="also read each scene through the shipped reader (slow)")
    parser.add_argument("--square", type=int, default=0,
                        help="render square scenes of this side instead of phone photos "
                             "(grouping only: fast)")
    parser.add_argument("--save-readings", metavar="FILE", default=None,
                        help="with --reader: write each scene's reading to FILE")
    parser.add_argument("--regroup", metavar="FILE", default=None,
                        help="group the readings a --save-readings run wrote, nothing more")
    parser.add_argument("--weights", type=Path, default=None,
                        help="with --reader: this detector export instead of the shipped one")
    parser.add_argument("--table-weights", type=Path, default=None,
                        help="with --reader: this second detector reads the tables too "
                        "(default: the shipped table detector, none with --weights)")
    parser.add_argument("--table-conf", type=float, default=None,
                        help="the second detector's threshold (default: shipped)")
    parser.add_argument("--classifier", type=Path, default=None,
                        help="with --reader: this corner classifier instead of the shipped "
                        "ones (photo mode's too, unless --photo-classifier)")
    parser.add_argument("--photo-classifier", type=Path, default=None,
                        help="with --reader: photo mode's corner classifier")
    parser.add_argument("--conf", type=float, default=None,
                        help="with --reader: this detector threshold instead of the shipped one")
    parser.add_argument("--mode", choices=["table", "photo"], default=None,
                        help="with --reader: read the tables in this mode (default: the "
                        "one cpoker table and the app's table photo read in, "
                        "vision.pipeline.TABLE_PHOTO_MODE)")
    add_photo_options(parser, "with --reader: ")
    parser.add_argument("--remerge", action="store_true",
                        help="with --regroup: merge the saved corners into cards again first")
    parser.add_argument("--scenes", type=Path, default=None, metavar="DIR",
                        help="keep the rendered scenes in DIR and read them from there on "
                             "the next run of the same --seed, --count and --square (a "
                             "candidate reader is measured on the same tables in a "
                             "fraction of the time)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.regroup:
        print(json.dumps(regroup(args.regroup, args.remerge),
                         indent=None if args.json else 1))
        return 0
    if (args.save_readings or args.weights or args.table_weights or args.classifier
            or args.photo_classifier or args.conf is not None or photo_changes(args)
            or args.mode is not None) and not args.reader:
        parser.error("--save-readings, --weights, --table-weights, --classifier, "
                     "--photo-classifier, --conf, --mode and the --photo-* options need "
                     "--reader")
    saved = open(args.save_readings, "w") if args.save_readings else None  # noqa: SIM115
    rng = np.random.default_rng(args.seed)
    decks = held_out_decks(args.decks)
    if not decks:
        return 2
    frame = (args.square, args.square) if args.square else PHONE
    detector = None
    if args.reader:
        from vision.detector import CardDetector, default_model

        changes = {"weights": args.weights, "table_weights": args.table_weights,
                   "table_conf": args.table_conf,
                   "conf": args.conf, **photo_changes(args)}
        detector = CardDetector(measured_model(default_model(), changes).with_classifiers(
            args.classifier, args.photo_classifier))
    totals: dict[str, int] = defaultdict(int)
    by_seats: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
    redrawn = 0
    read_seconds: list[float] = []
    started = time.perf_counter()
    made = 0
    kept = SceneCache(args.scenes, args.seed, args.count, frame, args.decks) \
        if args.scenes else None
    while made < args.count:
        if kept is not None and kept.complete:
            scene = kept.load(made)
        else:
            scene = render_table(rng, decks[made % len(decks)], frame)
            if scene is None:
                redrawn += 1
                continue
            if kept is not None:
                kept.save(made, scene)
        made += 1
        seats = len(scene.seats)
        height, width = scene.image.shape[:2]
        grouped = group_table(scene.true_cards(), (width, height))
        right, numbered = seats_right(grouped, scene.seats)
        totals["seats"] += seats
        totals["true_right"] += right
        totals["true_numbered"] += numbered
        totals["true_tables"] += right == seats
        by_seats[seats][0] += seats
        by_seats[seats][1] += right
        if detector is not None:
            from vision.pipeline import TABLE_PHOTO_MODE, read_photo

            _, jpeg = cv2.imencode(".jpg", cv2.cvtColor(scene.image, cv2.COLOR_RGB2BGR),
                                    [cv2.IMWRITE_JPEG_QUALITY, 85])
            tick = time.perf_counter()
            reading = read_photo(jpeg.tobytes(), detector, expect=None,
                                 mode=args.mode or TABLE_PHOTO_MODE)
            read = group_table(reading.cards, reading.size, doubtful=reading.doubtful)
            read_seconds.append(time.perf_counter() - tick)
            right_read, _ = seats_right(read, scene.seats)
            if saved is not None:
                saved.write(json.dumps(reading_record(reading, scene.seats)) + "\n")
            totals["read_right"] += right_read
            totals["read_tables"] += right_read == seats
            by_seats[seats][2] += right_read
    if saved is not None:
        saved.close()
    report = {
        "scenes": made, "redrawn": redrawn, "seats": totals["seats"],
        "true_boxes": {"seats_right": totals["true_right"] / max(totals["seats"], 1),
                       "seats_numbered_right": totals["true_numbered"] / max(totals["seats"], 1),
                       "tables_right": totals["true_tables"] / max(made, 1)},
        "by_seat_count": {str(k): {"seats": v[0], "true_right": v[1],
                                   **({"read_right": v[2]} if detector is not None else {})}
                          for k, v in sorted(by_seats.items())},
        "seconds": round(time.perf_counter() - started, 1),
    }
    if detector is not None:
        report["reader"] = {"seats_right": totals["read_right"] / max(totals["seats"], 1),
                            "tables_right": totals["read_tables"] / max(made, 1),
                            "median_read_s": float(np.median(read_seconds))}
    if args.json:
        print(json.dumps(report))
    else:
        print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
