"""The second stage: square crops around corner boxes, and the shipped classifier."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from vision.classifier import DEFAULT_WEIGHTS, CornerClassifier
from vision.detector import CardDetector
from vision.netinput import CROP, blanked, crop_square, detector_input, letterbox, softened

if TYPE_CHECKING:
    from vision.detections import Detections
    from vision.detector import ModelInfo


def test_crop_is_centred_and_square() -> None:
    image = np.zeros((200, 300, 3), np.uint8)
    image[90:110, 140:160] = 255  # a white square at (150, 100), 20 px
    crop = crop_square(image, (140, 90, 160, 110), margin=2.0)
    assert crop.shape == (CROP, CROP, 3)
    # The square fills the middle half of the crop.
    assert crop[CROP // 2, CROP // 2].tolist() == [255, 255, 255]
    assert crop[2, 2].tolist() == [0, 0, 0]
    assert crop[CROP // 4 + 1, CROP // 4 + 1].tolist() == [255, 255, 255]


def test_crop_outside_the_photo_repeats_the_edge() -> None:
    image = np.full((50, 50, 3), 7, np.uint8)
    crop = crop_square(image, (-20, -20, 10, 10))
    assert crop.shape == (CROP, CROP, 3) and int(crop.min()) == 7


def test_a_large_box_is_averaged_down_not_sampled() -> None:
    # One-pixel stripes under a 160-pixel box: shrunk to CROP by averaging they are an even
    # grey; sampled (warpAffine's bilinear, which it also uses for INTER_AREA) they alias
    # into bands of black and white.
    image = np.zeros((400, 400, 3), np.uint8)
    image[:, ::2] = 255
    crop = crop_square(image, (120, 120, 280, 280), margin=1.3).astype(np.float64)
    assert crop.shape == (CROP, CROP, 3)
    assert abs(crop.mean() - 127.5) < 8 and crop.std() < 20
    # A box near CROP's size is cut in one step, pixel for pixel.
    small = crop_square(image, (180, 180, 220, 220), margin=1.0)
    assert small.std() > 100


def test_a_crowded_crop_is_blanked_outside_its_grown_box() -> None:
    # A flat index (80 x 20) between two neighbours' indices above and below it, as in a
    # fan of sideways cards: blanked, the crop keeps its own ink and loses theirs.
    image = np.full((200, 200, 3), 250, np.uint8)
    image[96:104, 64:136] = 0  # the index's ink, inside its box (under half of it)
    image[60:76, 64:136] = 0  # the neighbour above
    image[124:140, 64:136] = 0  # and below
    box = (60.0, 90.0, 140.0, 110.0)
    plain = crop_square(image, box, margin=1.3)
    blanked_crop = crop_square(image, box, margin=1.3, mask=1.15)
    assert (plain[:8] < 100).any() or (plain[-8:] < 100).any()  # neighbours in the square
    rows = (blanked_crop < 100).any(axis=(1, 2))
    assert rows[CROP // 2] and not rows[: CROP // 2 - 6].any() and not rows[CROP // 2 + 6:].any()
    # Without a mask the crop is the plain one.
    assert np.array_equal(crop_square(image, box, margin=1.3, mask=0.0), plain)
    # The crop already cut, blanked, is the same crop.
    assert np.array_equal(blanked(plain, box, 1.3, 1.15), blanked_crop)
    # A turned square's box is no longer upright in it: no blanking there.
    with pytest.raises(ValueError, match="turned crop"):
        crop_square(image, box, margin=1.3, angle=5.0, mask=1.15)


def test_only_crowded_boxes_are_crowded() -> None:
    from vision.detector import crowded_boxes

    boxes = np.array([[0, 0, 80, 20], [0, 30, 80, 50], [0, 60, 80, 80],  # a fan's stack
                      [300, 300, 340, 380]], np.float64)  # a card alone
    assert crowded_boxes(boxes, 1.3, 1.15).tolist() == [True, True, True, False]
    # Two boxes of one index (nested) are not neighbours.
    nested = np.array([[0, 0, 40, 80], [2, 2, 38, 78]], np.float64)
    assert not crowded_boxes(nested, 1.3, 1.15).any()


def test_a_box_is_neighboured_when_another_index_reaches_into_its_crop() -> None:
    from vision.detector import neighboured_boxes

    # A square 1.6 times 80 wide around each box: the next box's centre lies outside the
    # first's (64 pixels up and down) but its edge reaches in; the card alone is far off.
    boxes = np.array([[0, 0, 80, 20], [0, 50, 80, 70], [300, 300, 340, 380]], np.float64)
    assert neighboured_boxes(boxes, 1.6).tolist() == [True, True, False]
    assert neighboured_boxes(boxes, 1.0).tolist() == [False, False, False]
    # Only the boxes named as indices count as neighbours: a pip's box does not.
    assert neighboured_boxes(boxes, 1.6, np.array([True, False, True])).tolist() == \
        [False, True, False]
    # Two boxes of one index (nested) are not neighbours.
    nested = np.array([[0, 0, 40, 80], [2, 2, 38, 78]], np.float64)
    assert not neighboured_boxes(nested, 1.6).any()


def test_a_softened_crop_keeps_its_shape_and_loses_its_finest_strokes() -> None:
    crops = np.zeros((2, CROP, CROP, 3), np.uint8)
    crops[:, :, ::2] = 255  # one-pixel stripes: the finest detail a crop holds
    crops[1, 10:30, 10:30] = 0  # and a dark block, as large as a rank's stroke is long
    soft = softened(crops, 28)
    assert soft.shape == crops.shape and soft.dtype == np.uint8
    # The stripes average out to grey; the block stays dark in its middle.
    assert soft[0].astype(np.float64).std() < 50 < 120 < crops[0].astype(np.float64).std()
    assert int(soft[1, 18:22, 18:22].max()) < 40
    # 0, CROP or more: the crops as cut; none: none.
    for side in (0, CROP, CROP + 8):
        assert softened(crops, side) is crops
    assert softened(crops[:0], 28).shape == (0, CROP, CROP, 3)


@pytest.mark.skipif(not DEFAULT_WEIGHTS.exists(), reason="classifier weights not shipped")
def test_a_classifier_set_to_soften_reads_each_crop_softened() -> None:
    from vision.classifier import CornerClassifier

    rng = np.random.default_rng(5)
    crops = rng.integers(200, 255, (3, CROP, CROP, 3), np.uint8)
    crops[:, 14:26, 16:24] = rng.integers(0, 90, (3, 12, 8, 3), np.uint8)
    sharp = CornerClassifier(DEFAULT_WEIGHTS)
    soft = CornerClassifier(DEFAULT_WEIGHTS, soften_px=28)
    assert np.allclose(soft.probabilities(crops), sharp.probabilities(softened(crops, 28)),
                       atol=1e-6)
    assert not np.allclose(soft.probabilities(crops), sharp.probabilities(crops), atol=1e-3)


@pytest.mark.skipif(not DEFAULT_WEIGHTS.exists(), reason="classifier weights not shipped")
def test_each_network_softens_as_cards_json_says(tmp_path) -> None:
    import dataclasses
    import json

    from vision.detector import MODELS, ModelError, default_model

    info = default_model()
    reader = CardDetector(dataclasses.replace(info, soften_px=28, photo_soften_px=0,
                                              photo_second_soften_px=24))
    assert reader.classifier is not None and reader.classifier.soften_px == 28
    assert reader.photo_classifier is not None and reader.photo_classifier.soften_px == 0
    assert reader.second_classifier is not None and reader.second_classifier.soften_px == 24
    settings = json.loads((MODELS / "cards.json").read_text())
    shipped = CardDetector(info)
    for key, network in (("soften_px", shipped.classifier),
                         ("photo_soften_px", shipped.photo_classifier),
                         ("photo_second_soften_px", shipped.second_classifier)):
        assert network is not None and network.soften_px == settings.get(key, 0)
    for bad in (-1, 4, CROP + 1):
        with pytest.raises(ModelError, match=rf"soften_px {bad}: choose 0"):
            dataclasses.replace(info, soften_px=bad)
    with pytest.raises(ModelError, match=r"photo_second_soften_px 2: choose 0"):
        dataclasses.replace(info, photo_second_soften_px=2)


def test_classifier_names_a_batch() -> None:
    from vision.classifier import CornerClassifier

    classifier = CornerClassifier()
    classes, confidence = classifier.classify(np.zeros((3, CROP, CROP, 3), np.uint8))
    assert classes.shape == (3,) and confidence.shape == (3,)
    assert ((classes >= 0) & (classes < 52)).all()
    assert ((confidence >= 0) & (confidence <= 1)).all()
    empty = classifier.classify(np.zeros((0, CROP, CROP, 3), np.uint8))
    assert len(empty[0]) == 0


@pytest.mark.skipif(not DEFAULT_WEIGHTS.exists(), reason="classifier weights not shipped")
def test_several_views_of_a_corner_are_read_together() -> None:
    from vision.classifier import CornerClassifier

    classifier = CornerClassifier()
    rng = np.random.default_rng(3)
    # Noise in the middle of a light crop: dark on light, so read once, not also inverted.
    close, wide = (rng.integers(200, 255, (4, CROP, CROP, 3), np.uint8) for _ in range(2))
    for crops in (close, wide):
        crops[:, 14:26, 14:26] = rng.integers(0, 120, (4, 12, 12, 3), np.uint8)
    one = classifier.probabilities(close)
    assert np.allclose(classifier.views_probabilities([close]), one, atol=1e-6)
    assert np.allclose(classifier.views_probabilities([close, close]), one, atol=1e-5)
    # Two views: the normalised geometric mean of each view's reading.
    both = classifier.views_probabilities([close, wide])
    mean = np.sqrt(one * classifier.probabilities(wide))
    assert np.allclose(both, mean / mean.sum(axis=1, keepdims=True), atol=1e-4)
    assert classifier.views_probabilities([close[:0], wide[:0]]).shape == (0, 52)
    # Weighted: the wide view counts half.
    weighted = classifier.views_probabilities([close, wide], weights=(1.0, 0.5))
    mixed = (one ** (2 / 3)) * (classifier.probabilities(wide) ** (1 / 3))
    assert np.allclose(weighted, mixed / mixed.sum(axis=1, keepdims=True), atol=1e-4)


@pytest.mark.skipif(not DEFAULT_WEIGHTS.exists(), reason="classifier weights not shipped")
def test_a_corner_is_read_in_each_orientation_that_names_the_same_card() -> None:
    from vision.classifier import ClassifierError, CornerClassifier

    classifier = CornerClassifier()
    rng = np.random.default_rng(5)
    crops = rng.integers(200, 255, (3, CROP, CROP, 3), np.uint8)
    crops[:, 12:28, 16:24] = rng.integers(0, 120, (3, 16, 8, 3), np.uint8)  # dark on light
    turns = {"as is": crops, "mirrored": crops[:, :, ::-1], "upside down": crops[:, ::-1, ::-1],
             "upside down mirrored": crops[:, ::-1, :]}
    turns.update({f"quarter turned {name}": np.rot90(turned, 1, axes=(1, 2))
                  for name, turned in list(turns.items())})
    once = {name: np.log(classifier.probabilities(np.ascontiguousarray(turned),
                                                  orientations=1))
            for name, turned in turns.items()}
    assert np.allclose(classifier.probabilities(crops, mirrored=False), np.exp(once["as is"]),
                       atol=1e-6)
    for count in (2, 4, 8):
        mean = np.exp(np.mean([once[name] for name in list(turns)[:count]], axis=0))
        assert np.allclose(classifier.probabilities(crops, orientations=count),
                           mean / mean.sum(axis=1, keepdims=True), atol=1e-4), count
    # Reading a crop more ways says the same of a crop turned any of those ways.
    for turned in turns.values():
        assert np.allclose(classifier.probabilities(np.ascontiguousarray(turned),
                                                    orientations=8),
                           classifier.probabilities(crops, orientations=8), atol=1e-4)
    with pytest.raises(ClassifierError, match="orientations 3: choose one of 1, 2, 4, 8"):
        classifier.probabilities(crops, orientations=3)


def test_a_light_index_on_a_dark_card_is_told_from_a_dark_one_on_a_light_card() -> None:
    from vision.netinput import light_on_dark

    dark_on_light = np.full((1, CROP, CROP, 3), 235, np.uint8)
    dark_on_light[:, 12:28, 17:23] = 20  # a bar of a rank glyph
    assert not light_on_dark(dark_on_light).any()
    assert light_on_dark(255 - dark_on_light).all()
    # A bold glyph filling half the middle is taken for light on dark: the flag only asks
    # for a second, inverted reading, and the surer one is kept.
    bold = dark_on_light.copy()
    bold[:, 12:28, 10:30] = 40
    assert light_on_dark(bold).all()
    # A gold index on a black card.
    gold = np.full((1, CROP, CROP, 3), (25, 22, 20), np.uint8)
    gold[:, 12:28, 17:23] = (200, 160, 60)
    assert light_on_dark(gold).all()
    assert light_on_dark(np.zeros((0, CROP, CROP, 3), np.uint8)).shape == (0,)


@pytest.mark.skipif(not DEFAULT_WEIGHTS.exists(), reason="classifier weights not shipped")
def test_a_deck_printed_light_on_dark_reads_like_its_light_twin() -> None:
    # Photo negative of a committed scene: every index light on a dark card, as on the
    # black deck of real-decks-dev, which the classifier read 3 % right before it also
    # read such crops inverted.
    from vision.classifier import CornerClassifier
    from vision.photo import load_photo

    scene = Path(__file__).parent / "data" / "scenes" / "scene-00-rows.jpg"
    image = load_photo(scene)
    detector = CardDetector(locate_only=True)
    boxes = detector.detect(image).xyxy
    assert len(boxes) >= 13
    classifier = CornerClassifier()
    plain = np.stack([crop_square(image, box) for box in boxes])
    negative = np.stack([crop_square(255 - image, box) for box in boxes])
    named, _ = classifier.classify(plain)
    named_negative, _ = classifier.classify(negative)
    assert np.mean(named_negative == named) >= 0.9


@pytest.mark.skipif(not DEFAULT_WEIGHTS.exists(), reason="classifier weights not shipped")
def test_a_light_on_dark_crop_is_read_as_it_is_only_where_its_negative_is_unsure() -> None:
    # The negative of a committed scene's corners, and a few crops of noise printed light
    # on dark: each is read in its negative first, and as it is too only where the
    # negative names it under NEGATIVE_SURE; then the surer of the two readings is kept.
    from vision.classifier import NEGATIVE_SURE, CornerClassifier
    from vision.netinput import light_on_dark
    from vision.photo import load_photo

    image = load_photo(Path(__file__).parent / "data" / "scenes" / "scene-00-rows.jpg")
    boxes = CardDetector(locate_only=True).detect(image).xyxy
    rng = np.random.default_rng(11)
    noise = rng.integers(10, 40, (4, CROP, CROP, 3), np.uint8)
    noise[:, 12:28, 17:23] = rng.integers(170, 230, (4, 16, 6, 3), np.uint8)
    crops = np.concatenate([np.stack([crop_square(255 - image, box) for box in boxes]), noise])
    assert light_on_dark(crops).all()
    classifier = CornerClassifier()
    run = classifier.session.run
    batches: list[int] = []

    def counted(outputs, feeds):  # type: ignore[no-untyped-def]
        batches.append(len(feeds[classifier.input]))
        return run(outputs, feeds)

    negative = classifier.probabilities(255 - crops)
    as_is = classifier.probabilities(crops)
    classifier.session = type("Counted", (), {"run": staticmethod(counted)})()
    read = classifier.probabilities(crops)
    sure = negative.max(axis=1) >= NEGATIVE_SURE
    assert sure.any() and (~sure).any()
    # Two turns a reading: the negatives of all, then the unsure crops as they are.
    assert batches == [2 * len(crops), 2 * int((~sure).sum())]
    surer = np.where((as_is.max(axis=1) >= negative.max(axis=1))[:, None], as_is, negative)
    expected = np.where(sure[:, None], negative, surer)
    assert np.allclose(read, expected, atol=1e-6)


def test_training_mixes_files_by_share_and_reports_each_validation_file(tmp_path) -> None:
    from vision.training.train_classifier import train

    rng = np.random.default_rng(0)
    files = []
    for name, count in (("rendered", 40), ("real", 8)):
        path = tmp_path / f"{name}.npz"
        np.savez(path, images=rng.integers(0, 255, (count, CROP, CROP, 3), np.uint8),
                 labels=rng.integers(0, 52, count))
        files.append(path)
    out = tmp_path / "net.onnx"
    history = train(files, files, out, epochs=1, seed=0, batch_size=16, per_epoch=32,
                    shares=[1, 1], channels=(8, 8, 8))
    assert set(history["val_accuracy"]) == {"rendered", "real"}
    assert out.exists() and out.with_suffix(".pt").exists()
    with pytest.raises(ValueError, match="2 training files but 3 shares"):
        train(files, files, out, epochs=1, seed=0, shares=[1, 1, 1])


def test_state_only_training_writes_the_state_dict_and_no_onnx_model(tmp_path) -> None:
    """A GPU machine's torch exports ONNX differently: there the trainer writes the state
    dict alone (``--state-only``), and the model is exported here later."""
    import torch

    from vision.training.train_classifier import build_network, main

    rng = np.random.default_rng(0)
    crops = tmp_path / "crops.npz"
    np.savez(crops, images=rng.integers(0, 255, (24, CROP, CROP, 3), np.uint8),
             labels=rng.integers(0, 52, 24))
    out = tmp_path / "net.onnx"
    assert main(["train", "--train", str(crops), "--val", str(crops), "--out", str(out),
                 "--epochs", "1", "--per-epoch", "16", "--batch", "8", "--channels", "8", "8",
                 "8", "--device", "cpu", "--state-only"]) == 0
    assert not out.exists()
    build_network((8, 8, 8)).load_state_dict(torch.load(out.with_suffix(".pt")))


@pytest.mark.skipif(not DEFAULT_WEIGHTS.exists(), reason="classifier weights not shipped")
def test_accuracy_command_reads_once_and_mirrored(tmp_path, capsys) -> None:
    import json

    from vision.training.train_classifier import main

    rng = np.random.default_rng(1)
    crops = tmp_path / "crops.npz"
    np.savez(crops, images=rng.integers(0, 255, (5, CROP, CROP, 3), np.uint8),
             labels=np.arange(5))
    assert main(["accuracy", "--crops", str(crops)]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["count"] == 5 and 0 <= line["once"] <= 1 and 0 <= line["mirrored"] <= 1
    assert "covered" not in line


def test_covered_crops_count_the_index_crops_named_wrong_surely() -> None:
    from vision.training.train_classifier import NOT_INDEX, SURE, crop_accuracy

    class Reader:  # names every crop 3, as sure as its mean brightness: a known answer
        def classify(self, crops: np.ndarray, mirrored: bool = True):
            return np.full(len(crops), 3), crops.reshape(len(crops), -1).mean(1) / 255

    images = np.zeros((6, CROP, CROP, 3), np.uint8)
    images[:3] = 250  # named surely
    images[3:] = 100  # named under SURE
    labels = np.array([3, 7, NOT_INDEX, 3, 7, 8])
    scores = crop_accuracy(Reader(), images, labels, covered=True)  # type: ignore[arg-type]
    assert 100 / 255 < SURE < 250 / 255
    assert scores["once"] == round(2 / 6, 4)
    # Of the five index crops one is named wrong surely (the 7 read 3); the crop of no
    # index named 3 surely is not counted.
    assert scores["sure_wrong"] == 0.2
    # Covered, each index crop is still named 3; at most the bright 7 is named surely (a
    # dark crop under card white stays under SURE).
    assert scores["covered"] == 0.4
    assert scores["covered_sure_wrong"] in (0.0, 0.2)


def test_crops_are_scored_by_what_a_person_could_read_in_them() -> None:
    from vision.training.train_classifier import NOT_INDEX, crop_accuracy

    class Reader:  # names every crop 3, surely
        def classify(self, crops: np.ndarray, mirrored: bool = True):
            return np.full(len(crops), 3), np.ones(len(crops))

    images = np.zeros((6, CROP, CROP, 3), np.uint8)
    labels = np.array([3, 7, 3, 7, 7, NOT_INDEX])
    # The rank and suit shares that show: two readable crops, one with its rank hidden,
    # two with only their suit hidden (one at the bar's edge), and a crop of no index.
    shown = np.array([[1.0, 1.0], [0.5, 0.5], [0.2, 1.0], [1.0, 0.3], [0.9, 0.49],
                      [1.0, 1.0]])
    scores = crop_accuracy(Reader(), images, labels, shown=shown)  # type: ignore[arg-type]
    assert (scores["readable_count"], scores["rank_hidden_count"],
            scores["suit_hidden_count"]) == (2, 1, 2)
    assert scores["readable_once"] == 0.5 and scores["readable_sure_wrong"] == 0.5
    assert scores["rank_hidden_once"] == 1.0 and scores["rank_hidden_sure_wrong"] == 0.0
    assert scores["suit_hidden_once"] == 0.0 and scores["suit_hidden_sure_wrong"] == 1.0
    assert "readable_once" not in crop_accuracy(Reader(), images, labels)  # type: ignore[arg-type]


def test_crops_kept_by_what_shows_of_their_rank_and_suit() -> None:
    from vision.training.train_classifier import keep_crops

    shown = np.array([[1.0, 1.0], [0.96, 0.5], [0.49, 1.0], [1.0, 0.4], [0.7, 0.99]])
    assert keep_crops(shown, "all").tolist() == [True] * 5
    assert keep_crops(shown, "readable").tolist() == [True, True, False, False, True]
    # Readable, with the rank or the suit partly under another card or past the edge.
    assert keep_crops(shown, "partly-covered").tolist() == [False, True, False, False, True]
    with pytest.raises(ValueError, match="choose all, readable, partly-covered"):
        keep_crops(shown, "covered")


def test_a_faint_corner_needs_a_sure_name() -> None:
    """Between faint_conf and conf, a detector box stays only if the classifier is sure."""
    import dataclasses

    import numpy as np

    from vision.detections import Detections
    from vision.detector import CardDetector, default_model

    info = dataclasses.replace(default_model(), conf=0.25, faint_conf=0.08,
                               faint_class_conf=0.9, min_class_conf=0.3)
    reader = CardDetector(info)
    assert info.detector_threshold == 0.08

    class Sure:
        def probabilities(self, crops: np.ndarray) -> np.ndarray:
            top = np.array([0.95, 0.5, 0.95, 0.5, 0.2], np.float32)
            rest = (1 - top) / 51
            probabilities = np.repeat(rest[:, None], 52, axis=1)
            probabilities[np.arange(len(crops)), np.arange(len(crops))] = top
            return probabilities

        def views_probabilities(self, views: list[np.ndarray],
                                weights: tuple[float, ...] = (1.0,),
                                orientations: int = 2, early_sure: float = 0.0,
                                early_views: bool = False,
                                early_one: float = 0.0) -> np.ndarray:
            return self.probabilities(views[0])

    boxes = np.array([[10, 10, 30, 40]] * 5, np.float32) + np.arange(5)[:, None] * 50
    found = Detections(boxes, np.array([0.1, 0.1, 0.6, 0.6, 0.6], np.float32),
                       np.zeros(5, np.int64), ("item",))
    named = reader._name_corners(np.zeros((400, 400, 3), np.uint8), found,
                                 Sure())  # type: ignore[arg-type]
    # faint and sure; strong and sure; strong and fairly sure. Not: faint and unsure, or
    # strong and named below min_class_conf.
    assert named.class_id.tolist() == [0, 2, 3]


def test_crops_command_names_an_unknown_deck(tmp_path, capsys) -> None:
    from vision.training.train_classifier import main

    out = tmp_path / "crops.npz"
    assert main(["crops", "--out", str(out), "--scenes", "1", "--decks", "no-such-deck"]) == 2
    message = capsys.readouterr().err
    assert "no train deck named no-such-deck" in message and "the train decks are" in message
    assert not out.exists()


def test_crops_command_names_an_unknown_layout(tmp_path, capsys) -> None:
    from vision.training.train_classifier import main

    out = tmp_path / "crops.npz"
    assert main(["crops", "--out", str(out), "--scenes", "1", "--layouts", "fan", "pile"]) == 2
    message = capsys.readouterr().err
    assert "no layout named pile" in message and "fan" in message.split("the layouts are")[1]
    assert not out.exists()


def test_scenes_split_between_workers_each_on_its_own_stream() -> None:
    from vision.training.train_classifier import worker_seeds

    assert worker_seeds(62, 3000, 1) == [(62, 3000)]  # one process: the recipe's own seed
    jobs = worker_seeds(62, 10, 4)
    assert [count for _, count in jobs] == [3, 3, 2, 2]
    assert len({seed for seed, _ in jobs}) == 4 and worker_seeds(62, 10, 4) == jobs
    assert {seed for seed, _ in worker_seeds(63, 10, 4)}.isdisjoint(seed for seed, _ in jobs)
    assert [count for _, count in worker_seeds(1, 2, 5)] == [1, 1]  # no empty workers


def test_crops_command_refuses_no_workers(tmp_path, capsys) -> None:
    from vision.training.train_classifier import main

    out = tmp_path / "crops.npz"
    assert main(["crops", "--out", str(out), "--scenes", "1", "--workers", "0"]) == 2
    assert "--workers 0: give 1 or more processes" in capsys.readouterr().err
    assert not out.exists()


def test_reshaping_keeps_crops_in_range_and_changes_them() -> None:
    import torch

    from vision.training.train_classifier import _reshape

    generator = torch.Generator().manual_seed(0)
    batch = torch.rand(8, 3, CROP, CROP, generator=generator)
    out = _reshape(batch, generator)
    assert out.shape == batch.shape
    assert float(out.min()) >= 0.0 and float(out.max()) <= 1.0
    assert float((out - batch).abs().mean()) > 0.01


def test_fading_washes_the_chosen_share_toward_white_and_keeps_the_rest() -> None:
    import torch

    from vision.training.train_classifier import FADE_CONTRAST, _fade

    generator = torch.Generator().manual_seed(0)
    batch = torch.rand(400, 3, CROP, CROP, generator=generator)
    out = _fade(batch, generator, 0.25)
    changed = (out - batch).abs().flatten(1).amax(dim=1) > 0
    assert 60 < int(changed.sum()) < 140  # about a quarter of 400
    # A faded crop is lighter, its contrast cut to FADE_CONTRAST of what it was.
    kept = (1 - out[changed]) / (1 - batch[changed]).clamp(min=1e-6)
    assert float(kept.min()) >= FADE_CONTRAST[0] - 1e-4
    assert float(kept.max()) <= FADE_CONTRAST[1] + 1e-4
    assert torch.equal(out[~changed], batch[~changed])
    assert torch.equal(_fade(batch, generator, 0.0), batch)


def test_graining_specks_the_chosen_share_and_keeps_the_rest() -> None:
    import torch

    from vision.training.train_classifier import SPECKLE_DENSITY, _grain

    generator = torch.Generator().manual_seed(0)
    # Mid-grey crops: a speck is a pixel pushed all the way to black or white.
    batch = torch.full((400, 3, CROP, CROP), 0.5)
    out = _grain(batch, generator, 0.25)
    assert out.shape == batch.shape
    assert float(out.min()) >= 0.0 and float(out.max()) <= 1.0
    changed = (out - batch).abs().flatten(1).amax(dim=1) > 0
    assert 60 < int(changed.sum()) < 140  # about a quarter of 400
    assert torch.equal(out[~changed], batch[~changed])
    specks = ((out[changed] == 0) | (out[changed] == 1)).all(dim=1).flatten(1).float().mean(1)
    assert float(specks.min()) >= SPECKLE_DENSITY[0] / 3
    assert float(specks.max()) <= SPECKLE_DENSITY[1] * 1.5
    assert torch.equal(_grain(batch, generator, 0.0), batch)


def test_covering_hides_part_of_the_chosen_share_under_another_card() -> None:
    import torch

    from vision.training.train_classifier import _occlude

    generator = torch.Generator().manual_seed(0)
    # Each crop one dark grey of its own, so what covers it can be told apart: card white
    # (0.78 or lighter), the previous crop's grey, or the edge's shadow (darker).
    greys = torch.linspace(0.05, 0.45, 400)
    batch = greys.view(400, 1, 1, 1).expand(400, 3, CROP, CROP).clone()
    out = _occlude(batch, generator, 0.25)
    assert out.shape == batch.shape
    changed = (out - batch).abs().flatten(1).amax(dim=1) > 0
    assert 60 < int(changed.sum()) < 140  # about a quarter of 400
    assert torch.equal(out[~changed], batch[~changed])
    under_white = under_other = 0
    for k in torch.nonzero(changed)[:, 0].tolist():
        crop, own = out[k], float(greys[k])
        other = float(greys[k - 1])  # the crop before it in the batch (rolled)
        same = (crop - own).abs() < 1e-6
        kept = float(same.all(dim=0).float().mean())
        # The edge lies at most a tenth of the crop past its centre: a third or more shows,
        # and some of the crop is always covered.
        assert 0.3 < kept < 1
        white = (crop >= 0.78 - 1e-6).all(dim=0)
        from_other = ((crop - other).abs() < 1e-6).all(dim=0)
        shadow = ((crop < own - 1e-6) & (crop >= own * 0.45 - 1e-6)).all(dim=0)
        assert bool((same.all(dim=0) | white | from_other | shadow).all())
        under_white += bool(white.any())
        under_other += bool(from_other.any() and not white.any())
    assert under_white > 20 and under_other > 20  # both kinds of cover, about half each
    assert torch.equal(_occlude(batch, generator, 0.0), batch)


def test_sharp_batches_keep_their_finest_strokes() -> None:
    # One-pixel stripes: shrinking averages them toward grey, a batch left as cut keeps
    # them. Without ``sharp`` one batch in 23 is left so; with it all of them are.
    import torch

    from vision.training.train_classifier import _augment

    stripes = torch.zeros(8, 3, CROP, CROP)
    stripes[:, :, :, ::2] = 1.0

    def stripe_contrast(sharp: float, seed: int) -> float:
        out = _augment(stripes.clone(), torch.Generator().manual_seed(seed), sharp=sharp)
        return float((out[..., 1:] - out[..., :-1]).abs().mean())

    shrunk = [stripe_contrast(0.0, seed) for seed in range(20)]
    kept = [stripe_contrast(1.0, seed) for seed in range(20)]
    assert min(kept) > 0.3  # gain and noise aside, the stripes stand
    assert sum(value < 0.3 for value in shrunk) >= 15


@pytest.mark.parametrize(("option", "share", "of"), [("--fade", "1.5", "crops"),
                                                     ("--grain", "-0.1", "crops"),
                                                     ("--sharp", "2", "batches"),
                                                     ("--occlude", "1.2", "crops")])
def test_training_refuses_a_share_outside_0_to_1(tmp_path, capsys, option: str,
                                                 share: str, of: str) -> None:
    from vision.training.train_classifier import main

    crops = tmp_path / "crops.npz"
    np.savez_compressed(crops, images=np.zeros((2, CROP, CROP, 3), np.uint8),
                        labels=np.zeros(2, np.int64))
    out = tmp_path / "model.onnx"
    assert main(["train", "--train", str(crops), "--val", str(crops), "--out", str(out),
                 option, share]) == 2
    assert f"{option} is a share of the {of}, 0 to 1, not {float(share)}" in \
        capsys.readouterr().err
    assert not out.exists()


def test_a_narrowed_network_keeps_each_layers_strongest_channels(tmp_path, capsys) -> None:
    # Live mode's cheaper classifier starts from the trained one cut down: cut to its own
    # widths the network reads exactly as before; cut narrower, each layer keeps the
    # channels its batch norm scales most, and the next layer reads exactly those.
    import torch

    from vision.training.train_classifier import build_network, narrow_state

    torch.manual_seed(0)
    wide = build_network((8, 16, 24), index_head=True)
    for module in wide.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.weight.data.uniform_(-1.0, 1.0)
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    same = build_network((8, 16, 24), index_head=True)
    same.load_state_dict(narrow_state(wide.state_dict(), same.state_dict()))
    wide.eval()
    same.eval()
    crops = torch.rand(5, 3, CROP, CROP)
    for a, b in zip(wide(crops), same(crops), strict=True):
        assert torch.allclose(a, b, atol=1e-6)

    thin = build_network((4, 8, 12), index_head=True)
    state = narrow_state(wide.state_dict(), thin.state_dict())
    thin.load_state_dict(state)
    first = wide.features[1].weight.detach().abs()
    kept = torch.sort(torch.argsort(first, descending=True)[:4]).values
    assert torch.equal(state["features.1.weight"], wide.features[1].weight.detach()[kept])
    second = torch.sort(torch.argsort(wide.features[5].weight.detach().abs(),
                                      descending=True)[:8]).values
    assert torch.equal(state["features.4.weight"],
                       wide.features[4].weight.detach()[second][:, kept])
    last = torch.sort(torch.argsort(wide.features[15].weight.detach().abs(),
                                    descending=True)[:12]).values
    assert torch.equal(state["rank.weight"], wide.rank.weight.detach()[:, last])
    assert torch.equal(state["index.0.weight"], wide.index[0].weight.detach()[:, last])
    with pytest.raises(ValueError, match="cannot narrow"):
        narrow_state(thin.state_dict(), wide.state_dict())

    _two_starts_refused(tmp_path, capsys, wide.state_dict(), "--narrow", "--widen")


def _two_starts_refused(tmp_path, capsys, state: dict, *options: str) -> None:
    """The trainer given a network to start from by each of ``options`` refuses to run."""
    import torch

    from vision.training.train_classifier import main

    path = tmp_path / "start.pt"
    torch.save(state, path)
    crops_file = tmp_path / "crops.npz"
    np.savez(crops_file, images=np.zeros((4, CROP, CROP, 3), np.uint8), labels=np.arange(4))
    starts = [word for option in options for word in (option, str(path))]
    assert main(["train", "--train", str(crops_file), "--val", str(crops_file), *starts,
                 "--out", str(tmp_path / "x.onnx")]) == 2
    assert "give one" in capsys.readouterr().err


def test_a_widened_network_starts_where_the_narrow_one_was(tmp_path, capsys) -> None:
    # Photo mode's larger classifier starts from the trained small one: its first channels
    # hold the small network's weights, and what the new channels add is zero until trained.
    import torch

    from vision.training.train_classifier import build_network, widen_state

    torch.manual_seed(0)
    narrow, wide = build_network((8, 16, 24)), build_network((12, 24, 40))
    for module in narrow.modules():  # batch norm's statistics as a trained network has them
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    wide.load_state_dict(widen_state(narrow.state_dict(), wide.state_dict()))
    narrow.eval()
    wide.eval()
    crops = torch.rand(6, 3, CROP, CROP)
    assert torch.allclose(narrow(crops), wide(crops), atol=1e-5)
    # The new channels do compute something, so training has a gradient to follow.
    assert float(wide.features[0].weight[8:].abs().sum()) > 0
    with pytest.raises(ValueError, match="cannot widen"):
        widen_state({"w": torch.zeros(3, 3)}, {"w": torch.zeros(3)})
    with pytest.raises(ValueError,
                       match=r"features\.0\.weight: \(12, 3, 3, 3\) cannot widen to \(8, "):
        widen_state(wide.state_dict(), narrow.state_dict())
    with pytest.raises(ValueError, match="the narrower network has no such layer"):
        widen_state({}, narrow.state_dict())
    # A wider network with an index head starts it as built; the rest as widened.
    headed = build_network((12, 24, 40), index_head=True)
    built = {key: value.clone() for key, value in headed.state_dict().items()}
    headed.load_state_dict(widen_state(narrow.state_dict(), headed.state_dict()))
    headed.eval()
    assert torch.allclose(headed(crops)[0], narrow(crops), atol=1e-5)
    assert all(torch.equal(value, built[key]) for key, value in headed.state_dict().items()
               if key.startswith("index."))

    _two_starts_refused(tmp_path, capsys, narrow.state_dict(), "--init", "--widen")


def _averaged_networks(tmp_path, seed: int, index_head: bool, count: int = 2):
    """``count`` small networks saved, averaged through the CLI into ``average.onnx``, and
    read on five random crops: (the networks, their state files, the crops, the ONNX
    session of the mean)."""
    import onnxruntime as ort
    import torch

    from vision.training.train_classifier import build_network, main

    torch.manual_seed(seed)
    nets, states = [build_network((8, 16, 24), index_head=index_head)
                    for _ in range(count)], []
    for index, net in enumerate(nets):
        net.eval()
        states.append(tmp_path / f"net{index}.pt")
        torch.save(net.state_dict(), states[-1])
    out = tmp_path / "average.onnx"
    assert main(["average", "--states", *map(str, states), "--channels", "8", "16", "24",
                 "--out", str(out)]) == 0
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    return nets, states, torch.rand(5, 3, CROP, CROP), session


def test_networks_averaged_read_as_their_mean_log_probabilities(tmp_path, capsys) -> None:
    import torch

    from vision.training.train_classifier import main

    nets, states, crops, session = _averaged_networks(tmp_path, 1, index_head=False)
    with torch.no_grad():
        expected = ((nets[0](crops) + nets[1](crops)) / 2).numpy()
    averaged = session.run(None, {"crops": crops.numpy()})[0]
    assert np.allclose(averaged, expected, atol=1e-4)

    assert main(["average", "--states", str(states[0]), str(tmp_path / "gone.pt"),
                 "--out", str(tmp_path / "x.onnx")]) == 2
    assert "not found: " + str(tmp_path / "gone.pt") in capsys.readouterr().err
    assert main(["average", "--states", str(states[0]), "--out", str(tmp_path / "x.onnx")]) == 2
    assert "two or more" in capsys.readouterr().err
    assert not (tmp_path / "x.onnx").exists()


def test_networks_with_index_heads_average_both_heads(tmp_path, capsys) -> None:
    import torch

    from vision.training.train_classifier import build_network, main

    nets, states, crops, session = _averaged_networks(tmp_path, 2, index_head=True)
    with torch.no_grad():
        (names0, index0), (names1, index1) = nets[0](crops), nets[1](crops)
    assert [output.name for output in session.get_outputs()] == ["logits", "index"]
    names, index = session.run(None, {"crops": crops.numpy()})
    assert np.allclose(names, ((names0 + names1) / 2).numpy(), atol=1e-4)
    assert np.allclose(index, ((index0 + index1) / 2).numpy(), atol=1e-4)

    # A network without an index head among them: refused, named, nothing written.
    plain = tmp_path / "plain.pt"
    torch.save(build_network((8, 16, 24)).state_dict(), plain)
    assert main(["average", "--states", str(states[0]), str(plain), "--channels", "8", "16",
                 "24", "--out", str(tmp_path / "mixed.onnx")]) == 2
    assert "without one: " + str(plain) in capsys.readouterr().err
    assert not (tmp_path / "mixed.onnx").exists()


def test_networks_of_different_widths_average_in_half_precision(tmp_path, capsys) -> None:
    """Session 24's second network: four GPU-trained networks of two widths, whose state
    dicts came back in half precision, read as one file."""
    import onnxruntime as ort
    import torch

    from vision.training.train_classifier import build_network, main

    torch.manual_seed(2)
    nets = [build_network((8, 16, 24)), build_network((4, 8, 12))]
    states = []
    for index, net in enumerate(nets):
        net.eval()
        states.append(tmp_path / f"net{index}.pt")
        torch.save({key: value.half() if value.is_floating_point() else value
                    for key, value in net.state_dict().items()}, states[-1])
        net.load_state_dict(torch.load(states[-1]))  # the weights as rounded
    out = tmp_path / "average.onnx"
    assert main(["average", "--states", f"{states[0]}:8,16,24", f"{states[1]}:4,8,12",
                 "--out", str(out)]) == 0
    crops = torch.rand(3, 3, CROP, CROP)
    with torch.no_grad():
        expected = ((nets[0](crops) + nets[1](crops)) / 2).numpy()
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    assert np.allclose(session.run(None, {"crops": crops.numpy()})[0], expected, atol=1e-3)
    assert main(["average", "--states", f"{states[0]}:8,16", f"{states[1]}:4,8,12",
                 "--out", str(tmp_path / "x.onnx")]) == 2
    assert "three or four whole numbers above 0" in capsys.readouterr().err
    assert not (tmp_path / "x.onnx").exists()


@pytest.mark.parametrize("index_head", [False, True])
def test_members_of_an_average_kept_read_as_their_own_mean(tmp_path, capsys,
                                                           index_head: bool) -> None:
    """Session 41: the second network read as one or two of its four networks; the kept
    ones' outputs come out as their own mean, every output alike."""
    import onnxruntime as ort
    import torch

    from vision.training.train_classifier import export, main

    nets, _, crops, _ = _averaged_networks(tmp_path, 3, index_head, count=3)
    average = tmp_path / "average.onnx"
    with torch.no_grad():
        outputs = [net(crops) for net in nets]
    outputs = [output if index_head else (output,) for output in outputs]
    for keep in ([2, 0], [1]):
        out = tmp_path / f"keep{''.join(map(str, keep))}.onnx"
        assert main(["members", "--model", str(average), "--keep", *map(str, keep),
                     "--out", str(out)]) == 0
        assert f"{len(keep)} of 3 networks kept" in capsys.readouterr().out
        session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
        got = session.run(None, {"crops": crops.numpy()})
        assert len(got) == (2 if index_head else 1)
        for place, head in enumerate(got):
            expected = sum(outputs[member][place] for member in keep) / len(keep)
            assert np.allclose(head, expected.numpy(), atol=1e-4)
        # The networks cut out take their weights with them.
        assert out.stat().st_size < average.stat().st_size * (len(keep) + 0.5) / 3

    for keep, message in ((["3"], "places from 0 to 2, not 3"),
                          (["1", "1"], "places from 0 to 2, not 1 1")):
        assert main(["members", "--model", str(average), "--keep", *keep,
                     "--out", str(tmp_path / "x.onnx")]) == 2
        assert message in capsys.readouterr().err
    single = tmp_path / "single.onnx"
    export(nets[0], single)
    assert main(["members", "--model", str(single), "--keep", "0",
                 "--out", str(tmp_path / "x.onnx")]) == 2
    assert "is not a mean over several networks" in capsys.readouterr().err
    assert main(["members", "--model", str(tmp_path / "gone.onnx"), "--keep", "0",
                 "--out", str(tmp_path / "x.onnx")]) == 2
    assert "gone.onnx not found" in capsys.readouterr().err
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    assert main(["members", "--model", str(broken), "--keep", "0",
                 "--out", str(tmp_path / "x.onnx")]) == 2
    assert "broken.onnx is not an ONNX model" in capsys.readouterr().err
    assert not (tmp_path / "x.onnx").exists()


def _index_and_no_index_files(tmp_path: Path) -> tuple[Path, Path]:
    """Index crops with ink in the middle, crops of no index with ink along one edge, both
    dark on light: a difference a tiny network learns in a few steps."""
    rng = np.random.default_rng(3)
    index, none = tmp_path / "index.npz", tmp_path / "none.npz"
    images = np.full((128, CROP, CROP, 3), 245, np.uint8)  # the light card, read as such
    images[:64, 14:26, 16:24] = rng.integers(0, 40, (64, 12, 8, 3))
    images[64:, :5] = rng.integers(0, 40, (64, 5, CROP, 3))
    np.savez(index, images=images[:64], labels=rng.integers(0, 52, 64))
    np.savez(none, images=images[64:], labels=np.full(64, 52))
    return index, none


def test_an_index_head_learns_what_no_index_looks_like_and_reads_as_a_second_output(
        tmp_path) -> None:
    from vision.classifier import CornerClassifier
    from vision.training.train_classifier import NOT_INDEX, train

    index, none = _index_and_no_index_files(tmp_path)
    assert NOT_INDEX == 52
    out = tmp_path / "net.onnx"
    history = train([index, none], [index, none], out, epochs=6, seed=0, batch_size=32,
                    per_epoch=512, lr=1e-2, channels=(8, 8, 8), index_head=True)
    # The crops of no index teach the head only: they have no name to be right about.
    assert set(history["val_accuracy"]) == {"index", "index:index", "none:index"}
    classifier = CornerClassifier(out)
    assert classifier.judges_index
    crops = [np.load(index)["images"][:5], np.load(none)["images"][:5]]
    probabilities, judged = classifier.views_reading([np.concatenate(crops)])
    assert probabilities.shape == (10, 52) and judged is not None and judged.shape == (10,)
    assert np.allclose(probabilities.sum(axis=1), 1, atol=1e-5)
    assert judged[:5].min() > judged[5:].max()
    assert classifier.views_reading([crops[0][:0]])[1].shape == (0,)  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="need the index head"):
        train([index, none], [index], out, epochs=1, seed=0, channels=(8, 8, 8))


def test_the_index_head_trained_alone_leaves_the_names_as_they_were(tmp_path,
                                                                    capsys) -> None:
    import onnxruntime as ort
    import torch

    from vision.training.train_classifier import build_network, main

    index, none = _index_and_no_index_files(tmp_path)
    trained = build_network((8, 8, 8))
    for module in trained.modules():  # batch norm's statistics as a trained network has them
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
    state = tmp_path / "trained.pt"
    torch.save(trained.state_dict(), state)
    out = tmp_path / "judged.onnx"
    assert main(["train", "--train", str(index), str(none), "--val", str(index), "--out",
                 str(out), "--epochs", "2", "--per-epoch", "128", "--batch", "32",
                 "--channels", "8", "8", "8", "--init", str(state), "--index-head",
                 "--index-only"]) == 0
    after = torch.load(out.with_suffix(".pt"))
    for name, value in trained.state_dict().items():
        assert torch.equal(after[name], value), name
    assert {key for key in after if key.startswith("index.")} == \
        set(build_network((8, 8, 8), True).index.state_dict(prefix="index."))
    session = ort.InferenceSession(str(out))
    crops = np.random.default_rng(0).random((3, 3, CROP, CROP)).astype(np.float32)
    trained.eval()
    names, judged = session.run(None, {"crops": crops})
    assert np.allclose(names, trained(torch.from_numpy(crops)).detach().numpy(), atol=1e-5)
    assert judged.shape == (3, 1)
    capsys.readouterr()
    assert main(["train", "--train", str(index), "--val", str(index), "--out", str(out),
                 "--channels", "8", "8", "8", "--index-only"]) == 2
    assert "--index-head and a trained network" in capsys.readouterr().err


def test_names_trained_alone_to_read_no_index_unsurely(tmp_path, capsys) -> None:
    """``--names-only --unsure``: the features and the index head stay as they were, and the
    names of crops of no index come out nearer an even 52-way reading than before."""
    import torch

    from vision.training.train_classifier import build_network, main

    # Index crops light, all named the one card; crops of no index dark: pooled features
    # tell them apart, so the names can be sure of one and unsure of the other.
    rng = np.random.default_rng(6)
    index, none = tmp_path / "index.npz", tmp_path / "none.npz"
    np.savez(index, images=rng.integers(200, 255, (64, CROP, CROP, 3)).astype(np.uint8),
             labels=np.zeros(64, np.int64))
    np.savez(none, images=rng.integers(0, 60, (64, CROP, CROP, 3)).astype(np.uint8),
             labels=np.full(64, 52))
    torch.manual_seed(4)
    trained = build_network((8, 8, 8), index_head=True)
    with torch.no_grad():  # a network that names every crop surely, as the same card
        trained.rank.bias[0] = 8.0
        trained.suit.bias[0] = 8.0
    state = tmp_path / "trained.pt"
    torch.save(trained.state_dict(), state)
    crops = torch.from_numpy(np.load(none)["images"]).permute(0, 3, 1, 2).float() / 255

    def retrain(name: str, *unsure: str):
        """The names trained again (alone), and the mean top name probability the result
        gives the crops of no index."""
        out = tmp_path / f"{name}.onnx"
        assert main(["train", "--train", str(index), str(none), "--val", str(index), "--out",
                     str(out), "--epochs", "3", "--per-epoch", "256", "--batch", "32",
                     "--lr", "1", "--seed", "5", "--channels", "8", "8", "8", "--init",
                     str(state), "--index-head", "--names-only", "--state-only",
                     *unsure]) == 0
        after = torch.load(out.with_suffix(".pt"))
        for key, value in trained.state_dict().items():
            if not key.startswith(("rank.", "suit.")):
                assert torch.equal(after[key], value), key
        net = build_network((8, 8, 8), index_head=True)
        net.load_state_dict(after)
        net.eval()
        with torch.no_grad():
            return float(net(crops)[0].exp().max(dim=1).values.mean())

    # The same training without --unsure (the control) leaves them named surely.
    control, unsure = retrain("control"), retrain("unsure", "--unsure", "1")
    assert control > 0.9
    assert unsure < control - 0.2
    capsys.readouterr()
    out = tmp_path / "refused.onnx"
    assert main(["train", "--train", str(index), "--val", str(index), "--out", str(out),
                 "--channels", "8", "8", "8", "--unsure", "1"]) == 2
    assert "--unsure reads the crops of no index" in capsys.readouterr().err
    assert main(["train", "--train", str(index), "--val", str(index), "--out", str(out),
                 "--channels", "8", "8", "8", "--names-only"]) == 2
    assert "training the names alone needs a trained network" in capsys.readouterr().err
    assert main(["train", "--train", str(index), str(none), "--val", str(index), "--out",
                 str(out), "--channels", "8", "8", "8", "--index-head", "--index-only",
                 "--init", str(state), "--unsure", "1"]) == 2
    assert "--unsure teaches the names, which --index-only and --centre-only keep frozen" \
        in capsys.readouterr().err
    assert not out.exists()


def test_photo_mode_drops_a_box_its_classifier_judges_no_index() -> None:
    import dataclasses

    from vision.detections import Detections
    from vision.detector import ModelError, default_model

    judged = np.array([0.9, 0.2, 0.6], np.float32)
    asked: list[str] = []

    class Judging:
        judges_index = True

        @staticmethod
        def _as(views: list[np.ndarray]) -> np.ndarray:
            probabilities = np.full((len(views[0]), 52), 0.01 / 51, np.float32)
            probabilities[:, 0] = 0.99
            return probabilities

        def views_probabilities(self, views: list[np.ndarray],
                                weights: tuple[float, ...] = (1.0,),
                                orientations: int = 2, early_sure: float = 0.0,
                                early_views: bool = False,
                                early_one: float = 0.0) -> np.ndarray:
            asked.append("names")
            return self._as(views)

        def views_reading(self, views: list[np.ndarray], weights: tuple[float, ...] = (1.0,),
                          orientations: int = 2, early_sure: float = 0.0,
                          early_views: bool = False, early_one: float = 0.0
                          ) -> tuple[np.ndarray, np.ndarray]:
            asked.append("names and index")
            return self._as(views), judged[:len(views[0])]

    boxes = np.array([[10, 10, 30, 40]] * 3, np.float32) + np.arange(3)[:, None] * 50
    found = Detections(boxes, np.full(3, 0.6, np.float32), np.zeros(3, np.int64), ("item",))
    image = np.zeros((400, 400, 3), np.uint8)
    for bar, kept in ((0.0, [0, 1, 2]), (0.5, [0, 2])):
        reader = CardDetector(dataclasses.replace(default_model(), photo_min_index=bar))
        reader.photo_classifier = Judging()  # type: ignore[assignment]
        named = reader._name_corners(image, found, reader.photo_classifier, judge_index=True)
        assert (named.xyxy[:, 0] // 50).astype(int).tolist() == kept
    # Off (0), the index is not asked for; nor in table or live mode (judge_index False).
    assert asked == ["names", "names and index"]
    other = reader._name_corners(image, found, reader.photo_classifier)
    assert len(other) == 3 and asked[-1] == "names"
    with pytest.raises(ModelError, match=r"photo_min_index 1\.0 is a probability"):
        dataclasses.replace(default_model(), photo_min_index=1.0)
    with pytest.raises(ModelError, match=r"early_sure 1\.5 is a probability"):
        dataclasses.replace(default_model(), early_sure=1.5)


def _photo_classifier_and_corners(count: int
                                  ) -> tuple[CornerClassifier, np.ndarray, np.ndarray]:
    """The shipped photo classifier, a committed spread scene, and the first ``count``
    corner boxes the shipped detector finds in it."""
    from PIL import Image

    from vision.detector import default_model

    info = default_model()
    assert info.photo_classifier is not None
    image = np.asarray(Image.open(Path(__file__).parent / "data" / "scenes" /
                                  "scene-01-spread.jpg").convert("RGB"))
    boxes = CardDetector(info).locator.predict(image, 0.35, 0.5).xyxy[:count]
    return CornerClassifier(info.photo_classifier), image, boxes


def test_a_tight_reading_blended_in_is_the_crops_read_together() -> None:
    # Photo mode joins an unsure corner's tight crop to its two readings already made
    # (vision.detector, photo_tight_margin): the same as reading the three crops at once.
    from vision.classifier import blended_index, blended_readings

    classifier, image, boxes = _photo_classifier_and_corners(6)
    views = [np.stack([crop_square(image, box, margin) for box in boxes])
             for margin in (1.1, 1.3, 1.6)]
    together, index = classifier.views_reading(views, weights=(0.5, 1.0, 0.5), orientations=4)
    wide, wide_index = classifier.views_reading(views[1:], weights=(1.0, 0.5), orientations=4)
    tight, tight_index = classifier.views_reading(views[:1], orientations=4)
    assert index is not None and wide_index is not None and tight_index is not None
    assert np.allclose(blended_readings(wide, tight, 0.25), together, atol=1e-4)
    assert np.allclose(blended_index(wide_index, tight_index, 0.25), index, atol=1e-4)
    # A share of nothing keeps the first reading.
    assert np.allclose(blended_readings(wide, tight, 0.0), wide, atol=1e-5)


def _two_views_of_corners_and_noise() -> tuple[CornerClassifier, list[np.ndarray],
                                               tuple[float, float]]:
    """The shipped photo classifier, and photo mode's two crops (margins 1.3 and 1.6,
    weighted 1 and 0.5) of 8 corners of a committed scene and of 3 crops of noise: crops
    named surely and crops named unsurely, for the early exits."""
    classifier, image, boxes = _photo_classifier_and_corners(8)
    rng = np.random.default_rng(3)
    views = [np.concatenate([np.stack([crop_square(image, box, margin) for box in boxes]),
                             rng.integers(0, 255, (3, CROP, CROP, 3), np.uint8)])
             for margin in (1.3, 1.6)]
    return classifier, views, (1.0, 0.5)


def test_an_early_exit_reads_only_the_unsure_crops_in_their_other_turns() -> None:
    # A crop named surely (and judged an index or not, decidedly) in its first two turns
    # keeps that reading; every other crop is read in every turn, exactly as without the
    # early exit.
    from vision.classifier import EARLY_INDEX

    classifier, views, weights = _two_views_of_corners_and_noise()
    for turns in (4, 8):
        full, full_index = classifier.views_reading(views, weights=weights, orientations=turns)
        two, two_index = classifier.views_reading(views, weights=weights, orientations=2)
        early, early_index = classifier.views_reading(views, weights=weights,
                                                      orientations=turns, early_sure=0.99)
        assert two_index is not None and full_index is not None and early_index is not None
        decided = (two.max(axis=1) >= 0.99) & (np.abs(two_index - 0.5) >= EARLY_INDEX)
        assert decided.any() and not decided.all()  # both kinds of crop are here
        assert np.allclose(early[decided], two[decided], atol=1e-5)
        assert np.allclose(early[~decided], full[~decided], atol=1e-5)
        assert np.allclose(early_index[decided], two_index[decided], atol=1e-5)
        assert np.allclose(early_index[~decided], full_index[~decided], atol=1e-5)
        # Off, every crop is read in every turn.
        assert np.array_equal(classifier.views_probabilities(views, weights=weights,
                                                             orientations=turns), full)


def test_an_early_exit_over_views_reads_the_other_crops_only_of_corners_left_unsure() -> None:
    # With early_views, a crop the first view names surely in its first two turns keeps
    # that view's reading alone; every other crop is read exactly as the early exit over
    # turns reads it, every view joined.
    from vision.classifier import EARLY_INDEX

    classifier, views, weights = _two_views_of_corners_and_noise()
    alone, alone_index = classifier.views_reading(views[:1], orientations=2)
    assert alone_index is not None
    decided = (alone.max(axis=1) >= 0.99) & (np.abs(alone_index - 0.5) >= EARLY_INDEX)
    assert decided.any() and not decided.all()  # both kinds of crop are here
    for turns in (2, 4, 8):
        joined, joined_index = classifier.views_reading(views, weights=weights,
                                                        orientations=turns, early_sure=0.99)
        staged, staged_index = classifier.views_reading(views, weights=weights,
                                                        orientations=turns, early_sure=0.99,
                                                        early_views=True)
        assert joined_index is not None and staged_index is not None
        assert np.allclose(staged[decided], alone[decided], atol=1e-5)
        assert np.allclose(staged_index[decided], alone_index[decided], atol=1e-5)
        assert np.allclose(staged[~decided], joined[~decided], atol=1e-5)
        assert np.allclose(staged_index[~decided], joined_index[~decided], atol=1e-5)
    # Without early_sure there is no early exit over views either.
    assert np.array_equal(
        classifier.views_probabilities(views, weights=weights, orientations=4,
                                       early_views=True),
        classifier.views_probabilities(views, weights=weights, orientations=4))


def test_a_crop_named_surely_as_it_is_is_not_read_mirrored() -> None:
    # early_one: a crop its first view names at early_one or surer as it is keeps that one
    # reading; every other crop is read exactly as the early exits read it without.
    from vision.classifier import EARLY_INDEX

    classifier, views, weights = _two_views_of_corners_and_noise()
    one, one_index = classifier.views_reading(views[:1], orientations=1)
    assert one_index is not None
    for sure in (0.99, 0.999):
        decided = (one.max(axis=1) >= sure) & (np.abs(one_index - 0.5) >= EARLY_INDEX)
        assert decided.any() and not decided.all()  # both kinds of crop are here
        for turns, early_views in ((2, True), (4, True), (2, False), (8, False)):
            count = 2 if early_views else 1  # live mode reads one view
            before, before_index = classifier.views_reading(
                views[:count], weights=weights[:count], orientations=turns,
                early_sure=0.99, early_views=early_views)
            now, now_index = classifier.views_reading(
                views[:count], weights=weights[:count], orientations=turns,
                early_sure=0.99, early_views=early_views, early_one=sure)
            assert now_index is not None and before_index is not None
            assert np.allclose(now[decided], one[decided], atol=1e-5)
            assert np.allclose(now_index[decided], one_index[decided], atol=1e-5)
            assert np.allclose(now[~decided], before[~decided], atol=1e-5)
            assert np.allclose(now_index[~decided], before_index[~decided], atol=1e-5)


def test_photo_mode_reads_again_tight_only_unsure_corners_judged_an_index() -> None:
    import dataclasses

    from vision.classifier import blended_readings
    from vision.detections import Detections
    from vision.detector import ModelError, default_model

    # Three corners: named surely, unsurely, and unsurely where the head sees no index.
    first = np.full((3, 52), 0.4 / 51, np.float32)
    first[:, 0] = 0.6
    first[0] = 0.001 / 51
    first[0, 0] = 0.999
    judged = np.array([0.9, 0.9, 0.2], np.float32)
    tight = np.full((1, 52), 0.1 / 51, np.float32)
    tight[0, 5] = 0.9
    calls: list[tuple[int, int]] = []
    Recording = _recording_classifier(first, judged, tight, 0.95, calls)

    boxes = np.array([[10, 10, 30, 40]] * 3, np.float32) + np.arange(3)[:, None] * 50
    found = Detections(boxes, np.full(3, 0.6, np.float32), np.zeros(3, np.int64), ("item",))
    image = np.zeros((400, 400, 3), np.uint8)
    info = dataclasses.replace(default_model(), photo_margins=(1.3, 1.6),
                               photo_view_weights=(1.0, 0.5), photo_min_index=0.5,
                               photo_tight_margin=1.1, photo_tight_share=0.25,
                               min_class_conf=0.3)
    reader = CardDetector(info)
    reader.photo_classifier = Recording()  # type: ignore[assignment]
    named = reader._name_corners(image, found, reader.photo_classifier, info.photo_margins,
                                 info.photo_view_weights, judge_index=True, tight_margin=1.1)
    # One tight crop was read: the unsure corner the head keeps.
    assert calls == [(2, 3), (1, 1)]
    assert len(named) == 2
    expected = blended_readings(first[1:2], tight, 0.25)[0]
    assert np.allclose(named.class_probabilities[1], expected)  # type: ignore[index]
    # Off (0), or out of photo mode (the caller passes 0), nothing is read again.
    calls.clear()
    reader._name_corners(image, found, reader.photo_classifier, info.photo_margins,
                         info.photo_view_weights, judge_index=True)
    assert calls == [(2, 3)]
    with pytest.raises(ModelError, match=r"photo_tight_share 1\.0"):
        dataclasses.replace(default_model(), photo_tight_share=1.0)
    with pytest.raises(ModelError, match=r"photo_crowded_mask 0\.5"):
        dataclasses.replace(default_model(), photo_crowded_mask=0.5)
    with pytest.raises(ModelError, match=r"photo_crowded_share 1\.0"):
        dataclasses.replace(default_model(), photo_crowded_mask=1.15, photo_crowded_share=1.0)
    with pytest.raises(ModelError, match=r"photo_tight_margin -1\.0"):
        dataclasses.replace(default_model(), photo_tight_margin=-1.0)


def test_the_centre_head_starts_as_the_network_it_joins_and_trains_alone(tmp_path,
                                                                       capsys) -> None:
    """The centre head joins a trained network without changing what it reads, and trains
    alone on its frozen features. The crops carry a mark in the centre that names them (a
    bar upright or lying) and the other mark at the edge, as a fan's neighbour index."""
    import onnxruntime as ort
    import torch

    from vision.training.train_classifier import build_network, main

    rng = np.random.default_rng(5)
    images = np.full((256, CROP, CROP, 3), 240, np.uint8)
    labels = rng.integers(0, 2, 256) * 13  # an ace of spades or of hearts, by the centre bar
    for image, label in zip(images, labels, strict=True):
        upright, lying = (slice(12, 28), slice(18, 22)), (slice(18, 22), slice(12, 28))
        edge_upright, edge_lying = (slice(2, 18), slice(0, 4)), (slice(0, 4), slice(2, 18))
        image[upright if label == 0 else lying] = 20
        image[edge_lying if label == 0 else edge_upright] = 20
    crops = tmp_path / "crops.npz"
    np.savez(crops, images=images, labels=labels)
    trained = build_network((8, 8, 8), True)
    x = torch.from_numpy(images).permute(0, 3, 1, 2).float() / 255
    for module in trained.modules():  # batch norm's statistics of these crops, as trained
        if isinstance(module, torch.nn.BatchNorm2d):
            module.momentum = None
            module.reset_running_stats()
    with torch.no_grad():
        trained(x)
    state = tmp_path / "trained.pt"
    torch.save(trained.state_dict(), state)
    joined = build_network((8, 8, 8), True, True)
    joined.load_state_dict(trained.state_dict(), strict=False)
    trained.eval(), joined.eval()
    assert torch.equal(trained(x)[0], joined(x)[0])  # its last layer starts at zero

    out = tmp_path / "centred.onnx"
    assert main(["train", "--train", str(crops), "--val", str(crops), "--out", str(out),
                 "--epochs", "3", "--per-epoch", "256", "--batch", "32", "--lr", "1e-2",
                 "--channels", "8", "8", "8", "--init", str(state), "--index-head",
                 "--centre-head", "--centre-only"]) == 0
    after = torch.load(out.with_suffix(".pt"))
    for name, value in trained.state_dict().items():
        assert torch.equal(after[name], value), name  # the network and its index head
    assert any(not torch.equal(value, torch.zeros_like(value))
               for key, value in after.items() if key.startswith("centre.4"))
    joined.load_state_dict(after)
    joined.eval()
    names, judged = ort.InferenceSession(str(out)).run(None, {"crops": x[:8].numpy()})
    assert np.allclose(names, joined(x[:8])[0].detach().numpy(), atol=1e-4)
    assert np.allclose(judged, trained(x[:8])[1].detach().numpy(), atol=1e-4)
    right_before = (trained(x)[0].argmax(1).numpy() == labels).mean()
    right_after = (joined(x)[0].argmax(1).numpy() == labels).mean()
    assert right_after > max(right_before, 0.9)
    capsys.readouterr()
    assert main(["train", "--train", str(crops), "--val", str(crops), "--out", str(out),
                 "--channels", "8", "8", "8", "--centre-only"]) == 2
    assert "--centre-head, a trained network" in capsys.readouterr().err


def test_a_second_classifier_reads_only_unsure_corners_the_head_judges_an_index() -> None:
    import dataclasses

    from vision.detections import Detections
    from vision.detector import ModelError, default_model, joined_readings

    # Four corners: named surely; unsurely, judged an index surely; unsurely, judged an
    # index less surely; unsurely, judged no index.
    first = np.full((4, 52), 0.4 / 51, np.float32)
    first[:, 0] = 0.6
    first[:, 5] = 0.35
    first[0] = 0.001 / 51
    first[0, 0] = 0.999
    judged = np.array([0.99, 0.95, 0.7, 0.2], np.float32)
    other = np.full((2, 52), 0.1 / 51, np.float32)
    other[:, 5] = 0.9  # the second network's likeliest name is the first's second
    read: dict[str, list[int]] = {"first": [], "second": []}

    class First:
        judges_index = True

        def views_reading(self, views: list[np.ndarray], weights: tuple[float, ...] = (1.0,),
                          orientations: int = 2, early_sure: float = 0.0,
                          early_views: bool = False, early_one: float = 0.0
                          ) -> tuple[np.ndarray, np.ndarray]:
            read["first"].append(len(views[0]))
            return first.copy(), judged.copy()

    class Second:
        def views_probabilities(self, views: list[np.ndarray],
                                orientations: int = 2, early_sure: float = 0.0,
                                early_views: bool = False,
                                early_one: float = 0.0) -> np.ndarray:
            read["second"].append(len(views[0]))
            return other[:len(views[0])].copy()

    boxes = np.array([[10, 10, 30, 40]] * 4, np.float32) + np.arange(4)[:, None] * 50
    found = Detections(boxes, np.full(4, 0.6, np.float32), np.zeros(4, np.int64), ("item",))
    image = np.zeros((400, 400, 3), np.uint8)
    for gate, reread in ((0.0, 2), (0.9, 1)):
        read["second"].clear()
        info = dataclasses.replace(default_model(), photo_min_index=0.5,
                                   photo_second_weight=1.0, photo_second_top=2,
                                   photo_second_min_index=gate, min_class_conf=0.3)
        reader = CardDetector(info)
        named = reader._name_corners(image, found, First(),  # type: ignore[arg-type]
                                     judge_index=True,
                                     second=Second())  # type: ignore[arg-type]
        assert read["second"] == [reread]
        # The head's "no index" drops the fourth; the second reading renames the second
        # corner (and the third, when the gate lets it through) within its two likeliest
        # names, which keep the share they had together.
        assert len(named) == 3
        expected = joined_readings(first[1:2], np.log(other[:1]), 1.0, 2)[0]
        assert np.allclose(named.class_probabilities[1], expected)  # type: ignore[index]
        assert named.class_id[1] == 5 and named.class_id[0] == 0
        assert named.class_id[2] == (5 if reread == 2 else 0)
        assert np.isclose(named.class_probabilities[1, [0, 5]].sum(), 0.95)  # type: ignore[index]
    # Without a second classifier (live and table modes pass none) nothing is read again.
    read["second"].clear()
    reader._name_corners(image, found, First(), judge_index=True)  # type: ignore[arg-type]
    assert read["second"] == []
    for field, value in (("photo_second_weight", -1.0), ("photo_second_top", 1),
                         ("photo_second_min_index", 1.0)):
        with pytest.raises(ModelError, match=field):
            dataclasses.replace(default_model(), **{field: value})


def test_the_shipped_second_classifier_is_named_by_cards_json_and_read_in_photo_mode(
        tmp_path) -> None:
    import json
    import shutil

    from vision.detector import MODELS, ModelError, default_model

    info = default_model()
    assert info.photo_second_classifier is not None and info.photo_second_weight > 0
    reader = CardDetector(info)
    assert reader.second_classifier is not None
    assert reader.second_classifier is not reader.photo_classifier
    # Without the file cards.json names, the reader says which.
    models = tmp_path / "models"
    models.mkdir()
    shutil.copy(info.weights, models / info.weights.name)
    settings = json.loads((MODELS / "cards.json").read_text())
    for key in ("table_detector", "photo_classifier", "photo_text_reader"):
        settings.pop(key, None)
    (models / "cards.json").write_text(json.dumps(settings))
    with pytest.raises(ModelError, match="photo_second_classifier corner-classifier-second"):
        default_model(models)


@pytest.mark.skipif(not DEFAULT_WEIGHTS.exists(), reason="classifier weights not shipped")
def test_only_crowded_corners_are_read_again_blanked() -> None:
    import dataclasses

    from vision.classifier import blended_readings

    first = np.full((3, 52), 0.5 / 51, np.float32)
    first[:, 0] = 0.5
    judged = np.array([0.9, 0.9, 0.9], np.float32)
    blanked = np.full((2, 52), 0.1 / 51, np.float32)
    blanked[:, 0] = 0.9  # surer of the same name, so that no corner falls under the bar
    calls: list[tuple[int, int]] = []
    Recording = _recording_classifier(first, judged, blanked, 0.99, calls)

    found, image, info = _fan_and_a_lone_corner(photo_crowded_mask=1.15,
                                                photo_crowded_share=0.35)
    reader = CardDetector(info)
    reader.photo_classifier = Recording()  # type: ignore[assignment]
    named = reader._name_corners(image, found, reader.photo_classifier, info.photo_margins,
                                 info.photo_view_weights, judge_index=True)
    assert calls == [(2, 3), (1, 2)]  # the two stacked corners read again, the lone one not
    assert named.class_probabilities is not None
    expected = blended_readings(first[:2], blanked, 0.35)
    assert len(named) == 3
    assert np.allclose(named.class_probabilities[:2], expected)
    assert (expected[:, 0] > first[:2, 0]).all()
    assert np.allclose(named.class_probabilities[2], first[2])
    # Off (0), nothing is read again.
    calls.clear()
    off = CardDetector(dataclasses.replace(info, photo_crowded_mask=0.0))
    off.photo_classifier = Recording()  # type: ignore[assignment]
    off._name_corners(image, found, off.photo_classifier, info.photo_margins,
                      info.photo_view_weights, judge_index=True)
    assert calls == [(2, 3)]


@pytest.mark.skipif(not DEFAULT_WEIGHTS.exists(), reason="classifier weights not shipped")
def test_only_crowded_corners_are_read_by_the_crowded_classifier() -> None:
    import dataclasses

    from vision.classifier import blended_readings
    from vision.detector import ModelError, default_model

    # The fan's first index is named surely (a whole index), the second not (half under
    # it), and the lone corner unsurely.
    first = np.full((3, 52), 0.5 / 51, np.float32)
    first[:, 0] = 0.5
    first[0] = 0.05 / 51
    first[0, 3] = 0.95
    judged = np.array([0.9, 0.9, 0.9], np.float32)
    Recording = _recording_classifier(first, judged, first, 0.9, [])
    fan = np.full((3, 52), 0.001 / 51, np.float32)
    fan[:, 7] = 0.999  # the fan network names the covered index otherwise, surely
    read: list[tuple[int, int, tuple[float, ...], int]] = []

    class Crowded:
        def views_probabilities(self, views: list[np.ndarray],
                                weights: tuple[float, ...] = (1.0,),
                                orientations: int = 2, **_: float) -> np.ndarray:
            read.append((len(views), len(views[0]), tuple(weights), orientations))
            return fan[:len(views[0])].copy()

    found, image, info = _fan_and_a_lone_corner(photo_crowded_classifier_share=0.5)
    reader = CardDetector(info)
    named = reader._name_corners(image, found, Recording(), info.photo_margins,
                                 info.photo_view_weights, orientations=4, judge_index=True,
                                 crowded=Crowded())  # type: ignore[arg-type]
    # Only the covered index, beside a surely named one, in both margins' crops and the
    # same turns: the sure one's neighbour is named unsurely, and the lone one has none.
    assert read == [(2, 1, (1.0, 0.5), 4)]
    assert named.class_probabilities is not None and len(named) == 3
    expected = blended_readings(first[1:2], fan[:1], 0.5)
    assert np.allclose(named.class_probabilities[1], expected[0])
    assert named.class_id.tolist() == [3, 7, 0]
    assert np.allclose(named.class_probabilities[[0, 2]], first[[0, 2]])
    # Beside a box named flatly (a pip), an index is not crowded.
    read.clear()
    first[0] = first[1]
    reader._name_corners(image, found, Recording(), info.photo_margins,
                         info.photo_view_weights, judge_index=True,
                         crowded=Crowded())  # type: ignore[arg-type]
    assert read == []
    # Without one (live and table modes pass none) the photo classifier names them all.
    alone = reader._name_corners(image, found, Recording(), info.photo_margins,
                                 info.photo_view_weights, judge_index=True)
    assert read == [] and alone.class_id.tolist() == [0, 0, 0]
    for field, value in (("photo_crowded_classifier_share", -0.5),
                         ("photo_crowded_classifier_share", 1.5), ("photo_crowded_below", 0.0)):
        with pytest.raises(ModelError, match=field):
            dataclasses.replace(default_model(), **{field: value})


def test_the_shipped_crowded_classifier_is_named_by_cards_json_and_loaded() -> None:
    from vision.detector import default_model

    info = default_model()
    assert info.photo_crowded_classifier is not None
    assert info.photo_crowded_classifier.exists() and info.photo_crowded_classifier_share > 0
    reader = CardDetector(info)
    assert reader.crowded_classifier is not None
    assert reader.crowded_classifier is not reader.photo_classifier


def _fan_and_a_lone_corner(**changes: float) -> tuple[Detections, np.ndarray, ModelInfo]:
    """A fan's two stacked indices and one corner alone, boxed on a grey photo, and the
    shipped model reading two margins, without a tight re-read, with ``changes``."""
    import dataclasses

    from vision.detections import Detections
    from vision.detector import default_model

    boxes = np.array([[100, 100, 180, 120], [100, 128, 180, 148], [300, 300, 320, 340]],
                     np.float32)
    found = Detections(boxes, np.full(3, 0.6, np.float32), np.zeros(3, np.int64), ("item",))
    image = np.full((400, 400, 3), 200, np.uint8)
    info = dataclasses.replace(default_model(), photo_margins=(1.3, 1.6),
                               photo_view_weights=(1.0, 0.5), photo_min_index=0.5,
                               photo_tight_margin=0.0, min_class_conf=0.3, **changes)
    return found, image, info


def _recording_classifier(first: np.ndarray, judged: np.ndarray, again: np.ndarray,
                          again_index: float, calls: list[tuple[int, int]]) -> type:
    """A photo classifier that records each read (views, crops) and answers ``first`` and
    ``judged`` for the first reading of all corners, and ``again`` (its first rows) with
    ``again_index`` for a single view of some of them, read again."""

    class Recording:
        judges_index = True

        def views_probabilities(self, views: list[np.ndarray],
                                weights: tuple[float, ...] = (1.0,),
                                orientations: int = 2, early_sure: float = 0.0,
                                early_views: bool = False,
                                early_one: float = 0.0) -> np.ndarray:
            return self.views_reading(views, weights, orientations)[0]

        def views_reading(self, views: list[np.ndarray], weights: tuple[float, ...] = (1.0,),
                          orientations: int = 2, early_sure: float = 0.0,
                          early_views: bool = False, early_one: float = 0.0
                          ) -> tuple[np.ndarray, np.ndarray]:
            calls.append((len(views), len(views[0])))
            if len(views) == 1:  # corners read again
                count = len(views[0])
                return again[:count].copy(), np.full(count, again_index, np.float32)
            return first.copy(), judged.copy()

    return Recording


def test_the_detector_takes_the_letterboxed_canvas_scaled_to_one() -> None:
    """(1, 3, H, W) float32: each channel of the canvas divided by 255, value for value."""
    rng = np.random.default_rng(0)
    image = rng.integers(0, 256, (90, 160, 3), dtype=np.uint8)
    canvas, scale, (left, top) = letterbox(image, (128, 160))
    assert canvas.shape == (128, 160, 3) and scale == 1.0 and (left, top) == (0, 19)
    tensor = detector_input(canvas)
    assert tensor.shape == (1, 3, 128, 160) and tensor.dtype == np.float32
    for channel in range(3):
        assert np.array_equal(tensor[0, channel], canvas[:, :, channel] / np.float32(255))
    assert np.array_equal(tensor[0, :, top:top + 90], image.transpose(2, 0, 1) / np.float32(255))


def _taught_and_alone(tmp_path, index_head: bool) -> tuple[float, float, Path, Path]:
    """A 4-4-4 network trained three epochs with an 8-8-8 teacher (random, with or without
    an index head) and without: each one's divergence from the teacher's names, then the
    teacher's state and the crops."""
    import torch
    import torch.nn.functional as F

    from vision.training.train_classifier import build_network, main

    torch.manual_seed(1)
    teacher = build_network((8, 8, 8), index_head=index_head)
    teacher_path = tmp_path / "teacher.pt"
    torch.save(teacher.state_dict(), teacher_path)
    rng = np.random.default_rng(0)
    images = rng.integers(0, 255, (64, CROP, CROP, 3), dtype=np.uint8)
    crops_file = tmp_path / "crops.npz"
    np.savez(crops_file, images=images, labels=np.zeros(64, np.int64))
    teacher.eval()
    crops = torch.from_numpy(images).permute(0, 3, 1, 2).float() / 255
    with torch.no_grad():
        taught = teacher(crops)
    taught = taught[0] if index_head else taught

    def divergence(*options: str) -> float:
        out = tmp_path / f"run{len(options)}" / "c.onnx"
        assert main(["train", "--train", str(crops_file), "--val", str(crops_file),
                     "--out", str(out), "--epochs", "3", "--per-epoch", "64", "--batch", "16",
                     "--channels", "4", "4", "4", "--lr", "1e-2", *options]) == 0
        student = build_network((4, 4, 4))
        student.load_state_dict(torch.load(out.with_suffix(".pt")))
        student.eval()
        with torch.no_grad():
            return float(F.kl_div(student(crops), taught, log_target=True,
                                  reduction="batchmean"))

    return (divergence("--teacher", f"{teacher_path}:8,8,8", "--teacher-weight", "5"),
            divergence(), teacher_path, crops_file)


def test_a_taught_network_learns_its_teachers_soft_names(tmp_path, capsys) -> None:
    # --teacher: the network also learns to give a trained network's 52-way reading. The
    # same run with the teacher ends nearer the teacher's reading than without it.
    from vision.training.train_classifier import main

    taught_too, alone, teacher_path, crops_file = _taught_and_alone(tmp_path, False)
    assert taught_too < alone
    capsys.readouterr()
    assert main(["train", "--train", str(crops_file), "--val", str(crops_file), "--out",
                 str(tmp_path / "x.onnx"), "--teacher", f"{teacher_path}:8,8"]) == 2
    assert "three or four whole numbers" in capsys.readouterr().err


def test_a_teacher_with_an_index_head_teaches_its_names(tmp_path) -> None:
    # Photo mode's classifier has an index head, live mode's none: the teacher is built
    # with the heads its state holds, and teaches its names alone.
    taught_too, alone, _, _ = _taught_and_alone(tmp_path, True)
    assert taught_too < alone


def test_a_state_that_does_not_fit_is_named_not_a_traceback(tmp_path, capsys) -> None:
    # --init, --teacher and average load trained states: one of other widths, or a file
    # that is no classifier state, is an error that names the file and what differs.
    import torch

    from vision.training.train_classifier import build_network, main

    narrow = tmp_path / "narrow.pt"
    torch.save(build_network((4, 4, 4)).state_dict(), narrow)
    not_state = tmp_path / "notes.pt"
    not_state.write_text("not a network")
    whole = tmp_path / "whole.pt"
    torch.save({"model": build_network((4, 4, 4)).state_dict(), "epoch": 3}, whole)
    rng = np.random.default_rng(0)
    crops_file = tmp_path / "crops.npz"
    np.savez(crops_file, images=rng.integers(0, 255, (16, CROP, CROP, 3), dtype=np.uint8),
             labels=np.zeros(16, np.int64))
    train = ["train", "--train", str(crops_file), "--val", str(crops_file), "--epochs", "1",
             "--per-epoch", "16", "--batch", "16", "--channels", "8", "8", "8"]
    capsys.readouterr()

    assert main([*train, "--out", str(tmp_path / "a.onnx"), "--init", str(narrow)]) == 2
    error = capsys.readouterr().err
    assert f"{narrow} does not fit this network" in error
    assert "features.0.weight (4, 3, 3, 3) against (8, 3, 3, 3)" in error
    assert "--channels" in error
    assert main([*train, "--out", str(tmp_path / "b.onnx"),
                 "--teacher", f"{narrow}:8,8,8"]) == 2
    assert f"{narrow} does not fit a network (8, 8, 8) wide" in capsys.readouterr().err
    assert main([*train, "--out", str(tmp_path / "c.onnx"), "--init", str(not_state)]) == 2
    assert f"{not_state} is not a saved classifier state" in capsys.readouterr().err
    assert main([*train, "--out", str(tmp_path / "d.onnx"), "--init", str(whole)]) == 2
    assert f"{whole} is not a classifier's state dict" in capsys.readouterr().err
    assert main(["average", "--states", str(narrow), f"{narrow}:4,4,4",
                 "--out", str(tmp_path / "e.onnx")]) == 2
    assert f"{narrow} does not fit a network (24, 48, 96) wide" in capsys.readouterr().err
    assert not any(tmp_path.glob("*.onnx"))


def test_a_network_trained_at_a_smaller_side_reads_crops_averaged_down(tmp_path, capsys) -> None:
    # --input-px: the network reads each crop averaged down to that side, in training and
    # in the reader, which takes the side from the model; its heads at CROP are refused.
    import cv2
    import torch

    from vision.training.train_classifier import build_network, main

    # Dark ink on a light card, as an index is (the reader reads a crop light on dark
    # inverted as well).
    rng = np.random.default_rng(0)
    images = rng.integers(200, 255, (32, CROP, CROP, 3), dtype=np.uint8)
    for image in images:
        x, y = rng.integers(4, 20, 2)
        image[y:y + 16, x:x + 10] = rng.integers(0, 80, (16, 10, 3))
    crops_file = tmp_path / "crops.npz"
    np.savez(crops_file, images=images, labels=rng.integers(0, 52, 32))
    train = ["train", "--train", str(crops_file), "--val", str(crops_file), "--epochs", "1",
             "--per-epoch", "32", "--batch", "16", "--channels", "4", "8", "8"]
    out = tmp_path / "small.onnx"
    assert main([*train, "--out", str(out), "--input-px", "24"]) == 0
    reader = CornerClassifier(out)
    assert reader.side == 24 and reader.session.get_inputs()[0].shape[1:] == [3, 24, 24]
    net = build_network((4, 8, 8))
    net.load_state_dict(torch.load(out.with_suffix(".pt")))
    net.eval()

    def read(crops: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return torch.exp(net(torch.from_numpy(crops).permute(0, 3, 1, 2).float() / 255)
                             ).numpy()

    shrunk = np.stack([cv2.resize(crop, (24, 24), interpolation=cv2.INTER_AREA)
                       for crop in images[:5]])
    assert np.allclose(reader.probabilities(images[:5], mirrored=False), read(shrunk),
                       atol=1e-5)
    # Softened under its side first, as soften_px asks.
    softer = np.stack([cv2.resize(cv2.resize(crop, (16, 16), interpolation=cv2.INTER_AREA),
                                  (24, 24), interpolation=cv2.INTER_LINEAR)
                       for crop in images[:5]])
    assert np.allclose(CornerClassifier(out, soften_px=16).probabilities(
        images[:5], mirrored=False), read(softer), atol=1e-5)
    assert not np.allclose(read(softer), read(shrunk), atol=1e-5)
    # A model of CROP reads as it always did.
    assert CornerClassifier(DEFAULT_WEIGHTS).side == CROP
    # Quantized, it is calibrated on crops averaged down to its side, and reads them so.
    from vision.training.quantize import main as quantize

    int8 = tmp_path / "small-int8.onnx"
    assert quantize(["classifier", "--source", str(out), "--crops", str(crops_file),
                     "--count", "32", "--out", str(int8)]) == 0
    assert CornerClassifier(int8).side == 24
    assert np.abs(CornerClassifier(int8).probabilities(images[:5], mirrored=False)
                  - read(shrunk)).max() < 0.01

    capsys.readouterr()
    assert main([*train, "--out", str(tmp_path / "a.onnx"), "--input-px", "48"]) == 2
    assert "--input-px 48: the training crops are 40 pixels; a crop is never enlarged" \
        in capsys.readouterr().err
    assert main([*train, "--out", str(tmp_path / "a.onnx"), "--input-px", "400"]) == 2
    assert "--input-px 400: choose 16 to 128 pixels" in capsys.readouterr().err
    assert main([*train, "--out", str(tmp_path / "b.onnx"), "--input-px", "24",
                 "--index-head"]) == 2
    assert "train them at --input-px 40" in capsys.readouterr().err
    assert not (tmp_path / "a.onnx").exists() and not (tmp_path / "b.onnx").exists()


@pytest.mark.parametrize("widths", [(4, 8, 8), (4, 8, 8, 8)])
def test_a_face_reader_trains_and_reads_at_its_crops_larger_side(tmp_path, widths) -> None:
    # Face crops may be cut larger than corner crops (``face_crops --side``): the network
    # trains on them at that side, and the reader takes the side from the model as it is,
    # neither shrunk to CROP nor enlarged. Four widths give a fourth stage, whose features
    # see a 64-pixel face whole.
    import torch

    from vision.training.train_classifier import build_network, main

    rng = np.random.default_rng(4)
    images = rng.integers(200, 255, (24, 64, 64, 3), dtype=np.uint8)
    for image in images:
        x, y = rng.integers(8, 40, 2)
        image[y:y + 12, x:x + 12] = rng.integers(0, 80, (12, 12, 3))
    faces = tmp_path / "faces.npz"
    np.savez(faces, images=images, labels=rng.integers(0, 52, 24))
    out = tmp_path / "face.onnx"
    assert main(["train", "--train", str(faces), "--val", str(faces), "--epochs", "1",
                 "--per-epoch", "24", "--batch", "8", "--channels", *map(str, widths),
                 "--reshape", "--grain", "0.5", "--input-px", "64", "--out", str(out)]) == 0
    reader = CornerClassifier(out)
    assert reader.side == 64 and reader.session.get_inputs()[0].shape[1:] == [3, 64, 64]
    net = build_network(widths)
    assert sum(isinstance(layer, torch.nn.MaxPool2d) for layer in net.features) == len(widths)
    net.load_state_dict(torch.load(out.with_suffix(".pt")))
    net.eval()
    with torch.no_grad():
        expected = torch.exp(net(torch.from_numpy(images[:4]).permute(0, 3, 1, 2).float()
                                 / 255)).numpy()
    assert np.allclose(reader.probabilities(images[:4], mirrored=False), expected, atol=1e-5)


def test_a_run_stopped_and_resumed_trains_as_one_unstopped_run(tmp_path) -> None:
    """A run too long for one sitting of the 2-core machine trains in parts (``until``,
    then ``resume``); the network comes out exactly as one unstopped run's."""
    import torch

    from vision.training.train_classifier import resume_path, train

    rng = np.random.default_rng(3)
    path = tmp_path / "crops.npz"
    np.savez(path, images=rng.integers(0, 255, (48, CROP, CROP, 3), np.uint8),
             labels=rng.integers(0, 52, 48))
    settings = dict(epochs=3, seed=5, batch_size=16, per_epoch=32, channels=(4, 8, 8),
                    reshape=True, state_only=True)
    whole = train([path], [path], tmp_path / "whole" / "net.onnx", **settings)
    parts = tmp_path / "parts" / "net.onnx"
    first = train([path], [path], parts, until=1, **settings)
    assert first["epoch"] == 1 and resume_path(parts).exists()
    last = train([path], [path], parts, resume=True, **settings)
    assert last == {**whole, "minutes": last["minutes"]}
    one = torch.load(tmp_path / "whole" / "net.pt")
    other = torch.load(parts.with_suffix(".pt"))
    assert all(torch.equal(one[key], other[key]) for key in one)
    with pytest.raises(ValueError, match=r"other settings \(lr\)"):
        train([path], [path], parts, resume=True, **{**settings, "lr": 1e-3})
    with pytest.raises(ValueError, match="--until 4: choose 1 to --epochs"):
        train([path], [path], parts, until=4, **settings)


def test_a_run_resumed_in_bfloat16_goes_on_and_learns(tmp_path) -> None:
    """``precision="bf16"`` (the CPU's bfloat16 passes) may take over a run between
    sittings; it trains (two plain colours, two names, learned), keeps fp32 weights, and
    says in each epoch's line which arithmetic it ran in."""
    import torch

    from vision.training.train_classifier import train

    rng = np.random.default_rng(4)
    labels = rng.integers(0, 2, 64) * 13  # the A of spades and the A of hearts
    images = np.where((labels == 0)[:, None, None, None], 30, 220).astype(np.uint8)
    images = np.broadcast_to(images, (64, CROP, CROP, 3)).copy()
    path = tmp_path / "crops.npz"
    np.savez(path, images=images, labels=labels)
    settings = dict(epochs=6, seed=2, batch_size=16, per_epoch=64, channels=(4, 8, 8),
                    state_only=True, lr=1e-2)
    out = tmp_path / "net.onnx"
    first = train([path], [path], out, until=2, **settings)
    # Not yet learned in fp32, so what follows is the bfloat16 passes' learning.
    assert first["precision"] == "fp32" and first["val_accuracy"]["crops"] < 1.0
    last = train([path], [path], out, resume=True, precision="bf16", **settings)
    assert last["epoch"] == 6 and last["precision"] == "bf16"
    assert last["val_accuracy"] == {"crops": 1.0}
    state = torch.load(out.with_suffix(".pt"))
    assert all(value.dtype != torch.bfloat16 for value in state.values())
    with pytest.raises(ValueError, match="--precision fp16: choose one of fp32, bf16"):
        train([path], [path], out, precision="fp16", **settings)


@pytest.mark.parametrize("index_head", [False, True])
def test_one_state_exported_reads_as_its_network(tmp_path, capsys, index_head: bool) -> None:
    """A run trained with --state-only writes a state dict alone (the runs of
    tools/gpu_photo_classifiers.sh): ``export`` makes it the ONNX model the reader takes."""
    import onnxruntime as ort
    import torch

    from vision.training.train_classifier import build_network, main

    torch.manual_seed(3)
    net = build_network((8, 16, 24), index_head=index_head)
    net.eval()
    state = tmp_path / "run.pt"
    torch.save({key: value.half() if value.is_floating_point() else value
                for key, value in net.state_dict().items()}, state)
    net.load_state_dict(torch.load(state))  # the weights as rounded
    out = tmp_path / "run.onnx"
    assert main(["export", "--state", f"{state}:8,16,24", "--out", str(out)]) == 0
    assert ("with an index head" if index_head else "without an index head") in (
        capsys.readouterr().out)
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    crops = torch.rand(4, 3, CROP, CROP)
    with torch.no_grad():
        expected = net(crops)
    outputs = session.run(None, {"crops": crops.numpy()})
    if index_head:
        assert [output.name for output in session.get_outputs()] == ["logits", "index"]
        assert np.allclose(outputs[1], expected[1].numpy(), atol=1e-3)
        expected = expected[0]
    assert np.allclose(outputs[0], expected.numpy(), atol=1e-3)

    # Another width than the state's, or no state: refused, named, nothing written.
    assert main(["export", "--state", str(state), "--out", str(tmp_path / "x.onnx")]) == 2
    assert "other widths" in capsys.readouterr().err
    assert main(["export", "--state", str(tmp_path / "gone.pt"),
                 "--out", str(tmp_path / "x.onnx")]) == 2
    assert "gone.pt not found" in capsys.readouterr().err
    assert not (tmp_path / "x.onnx").exists()


@pytest.mark.parametrize("widths", [["8", "8"], ["8", "8", "8", "8", "8"]])
def test_channels_take_three_or_four_widths(tmp_path, capsys, widths) -> None:
    from vision.training.train_classifier import main, parse_state

    crops = tmp_path / "crops.npz"
    np.savez(crops, images=np.zeros((4, CROP, CROP, 3), np.uint8), labels=np.arange(4))
    with pytest.raises(SystemExit):
        main(["train", "--train", str(crops), "--val", str(crops), "--out",
              str(tmp_path / "net.onnx"), "--channels", *widths])
    assert f"--channels takes three or four widths (one a stage), not {len(widths)}" \
        in capsys.readouterr().err
    assert not (tmp_path / "net.onnx").exists()
    assert parse_state("a.pt:8,16,24,32", (1, 1, 1)) == (Path("a.pt"), (8, 16, 24, 32))
    with pytest.raises(ValueError, match="three or four whole numbers"):
        parse_state("a.pt:8,16", (1, 1, 1))


def _adaptable(tmp_path: Path) -> tuple[Path, Path]:
    """A small trained-shape network with an index head, exported as a deck adapts it: the
    adaptable classifier and its statistics network."""
    import torch

    from vision.training.adaptable import adaptable_model, listed_norms, statistics_model
    from vision.training.train_classifier import build_network

    torch.manual_seed(0)
    net = build_network((8, 16, 16), index_head=True)
    # Trained statistics unlike a fresh network's zeros and ones, so that re-estimating
    # them changes something.
    for module in net.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    state = tmp_path / "net.pt"
    torch.save(net.state_dict(), state)
    out, statistics = tmp_path / "adaptable.onnx", tmp_path / "adaptable-norms.onnx"
    out.write_bytes(adaptable_model(state, (8, 16, 16)))
    statistics.write_bytes(statistics_model(state, listed_norms(out.read_bytes()),
                                            (8, 16, 16)))
    return out, statistics


def _sequential_statistics(model: Path, crops: np.ndarray,
                           quarter_turns: tuple[int, ...] = (0, 1, 2, 3)
                           ) -> dict[str, np.ndarray]:
    """AdaBN measured the slow way, on the adaptable classifier itself (its norms' inputs are
    outputs too): each norm in turn, over the crops as the reader reads them in their
    ``quarter_turns``, each turn a batch and the turns averaged, the norms before it fed
    the statistics already measured."""
    from vision.classifier import adaptable_norms
    from vision.netinput import classifier_input, light_on_dark

    session = CornerClassifier(model).session
    seen = crops.copy()
    light = light_on_dark(seen)
    seen[light] = 255 - seen[light]
    batch = classifier_input(seen)
    turns = [np.ascontiguousarray(np.rot90(batch, k, axes=(2, 3))) for k in quarter_turns]
    own: dict[str, np.ndarray] = {}
    for norm in adaptable_norms(model):
        inputs = [session.run([norm["input"]], {"crops": turn, **own})[0] for turn in turns]
        count = inputs[0].size // inputs[0].shape[1]
        own[norm["mean"]] = np.mean([x.mean(axis=(0, 2, 3)) for x in inputs], axis=0)
        own[norm["var"]] = np.mean([x.var(axis=(0, 2, 3)) * count / (count - 1)
                                    for x in inputs], axis=0)
    return own


def test_an_adaptable_classifier_reads_as_trained_until_a_deck_adapts_it(tmp_path) -> None:
    """The exported network lists its five batch norms; read with their trained statistics
    (a deck's share 0) it names crops exactly as without any; with the deck's own (share
    1) it reads otherwise. The statistics network measures in one pass what measuring each
    norm in turn on the adaptable network gives, in all four quarter turns or in the turns
    asked for, and mixes them with the trained ones at the share asked for."""
    from vision.classifier import adaptable_norms, batch_norm_statistics
    from vision.detector import PHOTO_STATISTICS_TURNS
    from vision.netinput import classifier_input

    model, statistics = _adaptable(tmp_path)
    norms = adaptable_norms(model)
    assert len(norms) == 5 and all(norm["mean"].startswith("names.") for norm in norms)
    assert adaptable_norms(statistics) == norms
    crops = np.random.default_rng(1).integers(0, 255, (24, CROP, CROP, 3), dtype=np.uint8)
    crops[:6] = 255 - crops[:6] // 4  # some light crops, read inverted
    plain = CornerClassifier(model).views_reading([crops], orientations=4)
    kept = batch_norm_statistics(statistics, crops, share=0.0)
    same = CornerClassifier(model, initializers=kept).views_reading([crops], orientations=4)
    assert np.allclose(plain[0], same[0], atol=1e-6) and np.allclose(plain[1], same[1])
    own = batch_norm_statistics(statistics, crops, share=1.0)
    slow = _sequential_statistics(model, crops)
    assert set(own) == set(slow) == {norm[key] for norm in norms for key in ("mean", "var")}
    for name, values in slow.items():
        assert np.allclose(own[name], values, rtol=1e-4, atol=1e-5), name
    # A dark photo measures its own in fewer turns (upright and upside down), and gets what
    # the slow way gives in those turns.
    photo = batch_norm_statistics(statistics, crops, share=1.0, turns=PHOTO_STATISTICS_TURNS)
    upright = _sequential_statistics(model, crops, PHOTO_STATISTICS_TURNS)
    for name, values in upright.items():
        assert np.allclose(photo[name], values, rtol=1e-4, atol=1e-5), name
    assert max(np.abs(photo[name] - own[name]).max() for name in own) > 1e-3
    half = batch_norm_statistics(statistics, crops, share=0.5)
    first = norms[0]["var"]
    assert np.allclose(half[first], (own[first] + np.asarray(norms[0]["trained_var"])) / 2,
                       rtol=1e-5)
    adapted = CornerClassifier(model, initializers=own).views_reading([crops], orientations=4)
    assert np.abs(adapted[0] - plain[0]).max() > 1e-3
    # The index head reads the network as trained, whatever the deck's statistics.
    session = CornerClassifier(model).session
    batch = classifier_input(crops)
    assert np.array_equal(session.run(["index"], {"crops": batch, **own})[0],
                          session.run(["index"], {"crops": batch})[0])


def test_a_classifier_that_lists_no_norms_cannot_be_adapted() -> None:
    from vision.classifier import ClassifierError, adaptable_norms

    with pytest.raises(ClassifierError, match="lists no batch norms"):
        adaptable_norms(DEFAULT_WEIGHTS)


def test_adaptable_writes_the_classifier_and_its_statistics_network(tmp_path) -> None:
    """``python -m vision.training.adaptable`` writes the adaptable classifier and, with
    ``--statistics-out``, the network that measures its norms, which lists the same norms;
    a missing state is refused and writes nothing."""
    from vision.classifier import adaptable_norms
    from vision.training.adaptable import main

    model, _ = _adaptable(tmp_path)  # its state dict is tmp_path / "net.pt"
    out, statistics = tmp_path / "cli.onnx", tmp_path / "cli-norms.onnx"
    args = ["--state", str(tmp_path / "net.pt"), "--channels", "8", "16", "16"]
    assert main([*args, "--out", str(out), "--statistics-out", str(statistics)]) == 0
    assert adaptable_norms(statistics) == adaptable_norms(out) == adaptable_norms(model)
    assert main(["--state", str(tmp_path / "none.pt"), "--out", str(tmp_path / "x.onnx"),
                 "--statistics-out", str(tmp_path / "y.onnx")]) == 2
    assert not (tmp_path / "x.onnx").exists() and not (tmp_path / "y.onnx").exists()


def test_statistics_are_measured_by_the_statistics_network_only(tmp_path) -> None:
    """The adaptable classifier lists the norms but does not measure them in one pass:
    given in the statistics network's place, it is refused with a message, not a
    traceback from onnxruntime."""
    from vision.classifier import ClassifierError, batch_norm_statistics

    model, _ = _adaptable(tmp_path)
    crops = np.zeros((4, CROP, CROP, 3), np.uint8)
    with pytest.raises(ClassifierError, match="cannot measure the batch norms it lists"):
        batch_norm_statistics(model, crops, share=0.5)
