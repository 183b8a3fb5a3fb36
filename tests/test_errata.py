"""vision.training.errata: label corrections for the shared sets, strict to parse, applied
to a photo's set of cards and to its boxes, and the shipped file's entries checked against
the shared sets' own labels."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.training.errata import (
    Errata,
    ErrataError,
    parse_errata,
    photo_key,
    set_name,
    shipped_errata,
)
from vision.training.labels import class_names, labelled_boxes, truth
from vision.training.realdata import REAL_DECKS, REAL_PHOTOS

ONE = """
[[toy-set]]
photo = "IMG_1_jpg"
replace = { Td = "Th" }
add = ["5d"]
seen = "looked at it"
"""


def _toy_set(root: Path) -> tuple[Path, list[str]]:
    """A set of one photo (two copies of one shot), labelled Td and 9h: names as data.yaml."""
    names = ["Td", "Th", "9h"]
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "data.yaml").write_text("names:\n" + "".join(f"  {i}: {n}\n"
                                                        for i, n in enumerate(names)))
    for copy in ("a1", "b2"):
        (root / "images" / f"IMG_1_jpg.rf.{copy}.jpg").write_bytes(b"")
        (root / "labels" / f"IMG_1_jpg.rf.{copy}.txt").write_text(
            "0 0.2 0.2 0.1 0.1\n2 0.6 0.6 0.1 0.1\n")
    (root / "images" / "IMG_2_jpg.jpg").write_bytes(b"")
    (root / "labels" / "IMG_2_jpg.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    return root, names


def test_photo_keys_name_every_copy_of_a_shot() -> None:
    assert photo_key("IMG_20220316_161523_jpg.rf.05cbc80a.jpg") == "IMG_20220316_161523_jpg"
    assert photo_key("IMG_7768_JPG.jpg") == "IMG_7768_JPG"
    assert set_name(Path("/x/real-decks-dev/images/IMG_7768_JPG.jpg")) == "real-decks-dev"
    assert set_name(Path("/x/images/val/a.jpg")) == "x"
    assert set_name(Path("a.jpg")) == ""


def test_an_erratum_corrects_the_cards_and_boxes_of_each_copy(tmp_path: Path) -> None:
    root, names = _toy_set(tmp_path / "toy-set")
    errata = parse_errata(ONE)
    for copy in ("a1", "b2"):
        image = root / "images" / f"IMG_1_jpg.rf.{copy}.jpg"
        assert truth(image, names, errata) == {"Th", "9h", "5d"}
        assert truth(image, names, Errata.none()) == {"Td", "9h"}
        assert [c for c, _ in labelled_boxes(image, 100, 100, names, errata)] == ["Th", "9h"]
    # Another photo of the set, and the same photo name in another set, stay as labelled.
    assert truth(root / "images" / "IMG_2_jpg.jpg", names, errata) == {"Td"}
    other, _ = _toy_set(tmp_path / "other-set")
    assert truth(other / "images" / "IMG_1_jpg.rf.a1.jpg", names, errata) == {"Td", "9h"}
    assert errata.count((root / "images").iterdir()) == 2


def test_a_relabel_corrects_one_box_and_leaves_the_same_card_elsewhere(
        tmp_path: Path) -> None:
    root, names = _toy_set(tmp_path / "toy-set")
    errata = parse_errata('[[toy-set]]\nphoto = "IMG_1_jpg"\n'
                          'relabel = [{ at = [0.6, 0.62], label = "9h", card = "Th" }]\n'
                          'seen = "looked at it"\n')
    image = root / "images" / "IMG_1_jpg.rf.a1.jpg"
    assert [c for c, _ in labelled_boxes(image, 100, 100, names, errata)] == ["Td", "Th"]
    assert truth(image, names, errata) == {"Td", "Th"}
    # The point must lie in the box, and the box must carry the label named.
    for at, label in (("[0.2, 0.2]", "9h"), ("[0.6, 0.6]", "Td")):
        missed = parse_errata(f'[[toy-set]]\nphoto = "IMG_1_jpg"\nrelabel = [{{ at = {at}, '
                              f'label = "{label}", card = "Th" }}]\nseen = "x"\n')
        assert truth(image, names, missed) == {"Td", "9h"}


@pytest.mark.parametrize(("text", "says"), [
    ('[[s]]\nphoto = "a"\nreplace = { Td = "Tx" }\nseen = "x"', "'Tx' is not a card"),
    ('[[s]]\nphoto = "a"\nadd = ["10h"]\nseen = "x"', "'10h' is not a card"),
    ('[[s]]\nphoto = "a"\nseen = "x"', "corrects nothing"),
    ('[[s]]\nphoto = "a"\nadd = ["Th"]', "say what was seen"),
    ('[[s]]\nphoto = "a"\nadd = ["Th"]\nseen = "x"\nwhy = "y"', "unknown key why"),
    ('[[s]]\nadd = ["Th"]\nseen = "x"', "'photo'"),
    ('[[s]]\nphoto = "a"\nreplace = { Td = "Td" }\nseen = "x"', "replaced by itself"),
    ('[[s]]\nphoto = "a"\nadd = ["Th"]\nseen = "x"\n[[s]]\nphoto = "a"\nadd = ["Td"]\n'
     'seen = "x"', "named twice"),
    ('s = 3', "array of tables"),
    ('[[s]]\nphoto = "a"\nrelabel = [{ at = [2, 0.5], label = "Th", card = "Td" }]\n'
     'seen = "x"', "shares of the photo"),
    ('[[s]]\nphoto = "a"\nrelabel = [{ at = [0.5, 0.5], label = "Th" }]\nseen = "x"',
     "each { at = "),
    ('[[s]]\nphoto = "a"\nrelabel = [{ at = [0.5, 0.5], label = "Th", card = "Th" }]\n'
     'seen = "x"', "relabelled as itself"),
    ('[[s]\n', "not TOML"),
])
def test_a_bad_erratum_is_named_with_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(ErrataError, match=says):
        parse_errata(text, "errata.toml")


SETS = {"real-photos-dev": REAL_PHOTOS, "real-decks-dev": REAL_DECKS}


def test_each_shipped_erratum_names_photos_and_labels_that_are_there() -> None:
    """Each photo named is in its set, and each card an erratum replaces is labelled
    there, and each card it adds is not: an erratum that no longer fits its set's labels
    (a new version of the set) fails here instead of correcting nothing in silence."""
    errata = shipped_errata()
    assert set(errata.by_set) <= set(SETS)
    if not all(root.exists() for root in SETS.values()):
        pytest.skip("../shared/datasets is not here")
    for name, entries in errata.by_set.items():
        root = SETS[name]
        names = class_names(root)
        images = sorted((root / "images").glob("*.jpg"))
        for key, erratum in entries.items():
            copies = [p for p in images if photo_key(p.name) == key]
            assert copies, f"{name}: no photo {key}"
            for image in copies:
                labelled = truth(image, names, Errata.none())
                assert set(erratum.replace) <= labelled, f"{image.name}: {labelled}"
                assert not set(erratum.add) & labelled, f"{image.name}: {labelled}"
                # Each relabel fits exactly one of the photo's boxes.
                boxes = [(card, tuple(v / 100 for v in box)) for card, box in
                         labelled_boxes(image, 100, 100, names, Errata.none())]
                for one in erratum.relabel:
                    fits = [card for card, box in boxes if one.fits(card, box)]
                    assert len(fits) == 1, f"{image.name}: {one} fits {fits}"


def test_evaluate_scores_against_the_corrected_labels_or_the_shipped_ones(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader that names the ten of hearts is right by the erratum and wrong by the
    label as shipped (the evaluation's own reading replaced: the labels are under test)."""
    from types import SimpleNamespace

    from vision.training import evaluate as evaluation

    root, _ = _toy_set(tmp_path / "toy-set")
    read = {"IMG_1_jpg": ["Th", "9h", "5d"], "IMG_2_jpg": ["Td"]}
    monkeypatch.setattr(evaluation, "read_photo", lambda path, *a, **k: SimpleNamespace(
        card_names=read[photo_key(Path(path).name)]))
    fixed = evaluation.evaluate(root, None, split=None, errata=parse_errata(ONE))
    assert (fixed.photos, fixed.exact, fixed.corrected) == (3, 3, 2)
    shipped = evaluation.evaluate(root, None, split=None, errata=Errata.none())
    assert (shipped.exact, shipped.corrected) == (1, 0)
    assert shipped.misses[0] == {"image": "IMG_1_jpg.rf.a1.jpg", "missed": ["Td"],
                                 "wrong": ["5d", "Th"]}


def test_the_label_audit_draws_a_sheet_for_each_photo_read_otherwise(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sheet for the photo whose ten the reader names otherwise than its label (none for
    the one read as labelled), listed in index.csv; with the erratum, no sheet at all."""
    import csv

    import numpy as np
    from PIL import Image

    from vision.detections import Detections
    from vision.pipeline import reading_of
    from vision.training import label_audit

    root, _ = _toy_set(tmp_path / "toy-set")
    for path in (root / "images").iterdir():
        Image.new("RGB", (100, 100), (240, 240, 240)).save(path, format="JPEG")
    read = {"IMG_1_jpg": ["Th", "9h", "5d"], "IMG_2_jpg": ["Td"]}

    def reading(image: object, detector: object, name: str, *args: object,
                **kwargs: object) -> object:
        cards = read[photo_key(Path(name).name)]
        corners = Detections(np.array([[10 + 20 * i, 10, 18 + 20 * i, 26] for i in
                                       range(len(cards))], np.float32),
                             np.ones(len(cards), np.float32),
                             np.array([CARD_NAMES.index(c) for c in cards]), CARD_NAMES)
        return reading_of(np.zeros((100, 100, 3), np.uint8), corners, name, None)

    from engine.cards import CARD_NAMES

    monkeypatch.setattr(label_audit, "read_image", reading)
    rows = label_audit.audit(root, tmp_path / "sheets", split=None, errata=Errata.none(),
                             detector=object())
    assert [(r["image"], r["missed"], r["wrong"]) for r in rows] == [
        ("IMG_1_jpg.rf.a1.jpg", "Td", "5d Th"), ("IMG_1_jpg.rf.b2.jpg", "Td", "5d Th")]
    sheet = Image.open(tmp_path / "sheets" / rows[0]["sheet"])
    assert sheet.size[0] > 100  # the photo and its column of enlarged corners
    with (tmp_path / "sheets" / "index.csv").open() as handle:
        assert len(list(csv.DictReader(handle))) == 2
    assert label_audit.audit(root, tmp_path / "none", split=None, errata=parse_errata(ONE),
                             detector=object()) == []


def test_the_ink_audit_flags_a_label_whose_ink_is_the_other_colour(tmp_path: Path) -> None:
    """A photo of five corners, one labelled a diamond printed black: it alone gets a
    tile; a photo whose inks do not lie apart (grey) is not judged."""
    import csv

    from PIL import Image, ImageDraw

    from vision.training import label_audit

    root = tmp_path / "ink-set"
    names = ["Th", "9h", "2d", "9s", "2c"]
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "data.yaml").write_text("names:\n" + "".join(f"  {i}: {n}\n"
                                                        for i, n in enumerate(names)))
    inks = [(200, 20, 30), (190, 30, 30), (20, 20, 20), (25, 25, 25), (15, 15, 20)]
    for photo, grey in (("colour", False), ("grey", True)):
        image = Image.new("RGB", (500, 100), (245, 245, 240))
        draw = ImageDraw.Draw(image)
        lines = []
        for k, ink in enumerate(inks):
            colour = (sum(ink) // 3,) * 3 if grey else ink
            draw.rectangle([100 * k + 30, 30, 100 * k + 50, 70], fill=colour)
            lines.append(f"{k} {(100 * k + 40) / 500} 0.5 0.1 0.6")
        image.save(root / "images" / f"{photo}.jpg", quality=95)
        (root / "labels" / f"{photo}.txt").write_text("\n".join(lines) + "\n")
    rows = label_audit.check_audit(root, tmp_path / "sheets", label_audit.ink_check,
                                   split=None, errata=Errata.none())
    assert [(r["image"], r["label"], r["at"]) for r in rows] == [
        ("colour.jpg", "2d", "0.480 0.500")]
    assert (tmp_path / "sheets" / rows[0]["sheet"]).exists()
    with (tmp_path / "sheets" / "index.csv").open() as handle:
        assert len(list(csv.DictReader(handle))) == 1
    assert label_audit.ink_flags([("Th", 120.0), ("9s", 20.0)]) == []
    assert label_audit.ink_flags([("Th", 120.0), ("9s", 20.0), ("2c", 110.0)]) == [2]
    assert label_audit.ink_flags([("Th", 50.0), ("9s", 30.0), ("2c", 49.0)]) == []


def test_the_rank_audit_flags_a_label_the_text_reader_reads_as_another_rank(
        tmp_path: Path) -> None:
    """A stand-in recogniser reads a 7 where a 9 is labelled (flagged), a 6 where a 9 is
    labelled (a turn: left out), an 8 unsurely (left out) and each ten as a ten."""
    from PIL import Image

    from vision.training import label_audit

    root, _ = _toy_set(tmp_path / "toy-set")
    for path in (root / "images").iterdir():
        Image.new("RGB", (100, 100), (240, 240, 240)).save(path, format="JPEG")
    (root / "labels" / "IMG_2_jpg.txt").write_text("2 0.5 0.5 0.1 0.1\n")  # 9h
    # The labels in order: Td, 9h (copy a1); Td, 9h (copy b2); 9h (IMG_2).
    # A score under 0.9 reads the crop in its other turns too: the last label's four.
    readings = iter([("10", 0.95), ("7", 0.95), ("10", 0.95), ("6", 0.95)] + [("8", 0.5)] * 4)

    def engine(crop: object, **kwargs: object) -> tuple[list[tuple[str, float]], None]:
        text, score = next(readings)
        return [(text, score)], None

    rows = label_audit.check_audit(root, tmp_path / "sheets", label_audit.rank_check(engine),
                                   split=None, errata=Errata.none())
    assert [(r["image"], r["label"], r["found"]) for r in rows] == [
        ("IMG_1_jpg.rf.a1.jpg", "9h", "text 7 0.95")]
