"""The card-corner detector: a YOLO model trained on rendered scenes (see models/README.md).

The model loads once and answers many photos. Only its ONNX export is read here, by
onnxruntime: no torch, no ultralytics at run time. The PyTorch weights are the workshop's
(``vision.training.torch_detector`` reads them for measurements).
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np

from engine.cards import CARD_NAMES

from .classifier import (
    ORIENTATIONS,
    ClassifierError,
    CornerClassifier,
    TextReader,
    batch_norm_statistics,
    blended_index,
    blended_readings,
    statistics_session,
)
from .detections import Detections, quarter_turned
from .netinput import (
    CROP,
    MARGIN,
    blanked,
    crop_square,
    detector_input,
    face_square,
    letterbox,
    mostly_light_on_dark,
)
from .outline import CardOutline, card_outline, opposite_index, shows_whole
from .reading import (
    NESTED_SHARE,
    face_pairs,
    measured_diagonal,
    merge_corners,
    named_by_faces,
    named_by_lone_faces,
    nested_shares,
    within_one_card,
)
from .session import cpu_session

MODELS = Path(__file__).resolve().parent.parent / "models"
STRIDE = 32  # YOLO's coarsest stride: a dynamic input's sides are multiples of it
# Two passes whose longer sides lie within this share of each other see the same indices
# alike: photo mode reads a photo again only at a side further from those it read at.
SAME_SIDE = 1 / 6
SMALLEST_SHORT_SIDE = 192  # a short photo's pass at a scale under 1 reads no smaller
# Table mode names the table detector's box on an index photo mode's detector boxed too
# only when photo mode's box was named under this (``CardDetector.detect``): naming every
# crop twice cost a whole table 1,153 ms against 701 in photo mode.
SURE_NAME = 0.99
# A short photo's faces read at most (``_read_faces``, ``vision.reading.face_pairs``): a
# hand short of a card or two pairs a few corners; a photo of many stray boxes would pair
# hundreds.
MAX_FACE_PAIRS = 64
# A short photo's lone corners outlined and their faces read at most
# (``_read_lone_faces``), the surest named first: a photo of stray boxes holds hundreds.
MAX_LONE_FACES = 64
# A lone corner's likeliest name needs this much for its face to be read: under it the box
# is seldom an index (session 77: 0.1 added a wrong card on the tune sets, 0.2 none).
LONE_FACE_MIN_NAME = 0.2
# The corners whose cards are outlined to measure a whole card's length, the surest named
# first: a 13-card photo shows a few dozen.
MAX_OUTLINED = 128

# "photo": accuracy first, each photo read at the scale its corner indices need (a person
# waits a moment for a photo, and a wrong card costs more than 200 ms). "live": one pass
# at the network's size, for a camera stream. "table": photo mode for a photo of the whole
# table (``cpoker table``), which a second detector, fine-tuned on tables, reads as well
# when one is shipped (``ModelInfo.table_weights``).
Mode = Literal["photo", "live", "table"]
MODES: tuple[Mode, ...] = ("photo", "live", "table")


class ModelError(RuntimeError):
    """The detector's weights are missing or unusable."""


@dataclass(frozen=True)
class ModelInfo:
    weights: Path
    imgsz: int = 640
    conf: float = 0.35
    iou: float = 0.5
    classifier: Path | None = None  # second stage (vision.classifier), when shipped
    min_class_conf: float = 0.4  # a crop the classifier cannot name is not a corner
    # A card read from one corner alone needs this confidence; a misread corner is most
    # often a lone one, while a card's real corners agree with each other.
    min_lone_conf: float = 0.0
    # A faint corner (detector score between faint_conf and conf) is kept only when the
    # classifier is at least faint_class_conf sure of its name: on real photos the right
    # corner is often found at a low score, while low-scored boxes on pips and backs are
    # named with little confidence. None: no faint corners.
    faint_conf: float | None = None
    faint_class_conf: float = 0.9
    # Photo mode reads a photo at the scale where its median corner index is this many
    # pixels (its longer side) in the network's input: inside the range the detector was
    # trained on, and never by enlarging the photo.
    photo_index_px: float = 24.0
    # The largest side photo mode feeds the network (cost grows with its square).
    max_pass_side: int = 2048
    # Photo mode names each corner from crops cut at these margins (times the box's longer
    # side), their readings' log-probabilities averaged with these weights: a wider crop
    # shows the suit under a rank the detector boxed alone, and which way up a 6 or a 9 is,
    # but also more of the next card. Live mode cuts one, at MARGIN.
    photo_margins: tuple[float, ...] = (MARGIN,)
    photo_view_weights: tuple[float, ...] = (1.0,)
    # Photo mode may name corners with a larger classifier than live mode's: its budget
    # (250 ms for a 1280x960 photo) leaves room that a camera stream's 60 ms does not.
    # None: photo mode uses ``classifier`` too.
    photo_classifier: Path | None = None
    # Photo mode reads each crop in this many orientations (vision.classifier.ORIENTATIONS);
    # live mode in ``live_orientations``. Held-out crops named right, photo classifier,
    # 2 -> 8: rendered designs 0.949 -> 0.959, fans 0.914 -> 0.931, real-decks-dev's white
    # deck 0.895 -> 0.947 (2026-11-24).
    photo_orientations: int = 2
    # Table mode's second detector, whose boxes join those of ``weights``. Fine-tuned on
    # whole tables (52 small indices, rows facing the centre), it finds indices of a
    # table photo that ``weights`` misses, but boxes more pips in close photos of a few
    # cards (models/README.md, "Session 15"), so it reads tables, and in photo mode only
    # where the index head keeps its pips out (``photo_uses_table_detector``). None: table
    # mode is photo mode.
    table_weights: Path | None = None
    # The table detector's boxes count from this score (no faint ones): its strays on pips
    # and court art cost a seat its rows, where the boxes it adds gain seats.
    table_conf: float = 0.35
    # Photo and table modes may name corners with a second reader beside the classifier: a
    # pretrained text recogniser's features with a head fitted on our crops
    # (vision.classifier.TextReader). Its log-probabilities, times ``photo_text_weight``,
    # are added to the classifier's. None: the classifier alone.
    photo_text_reader: Path | None = None
    photo_text_weight: float = 0.25
    # ... and weighs again only the classifier's ``photo_text_top`` likeliest names of a
    # crop, within what the classifier gave them (``joined_readings``).
    photo_text_top: int = 3
    # Photo mode drops a box whose crops the photo classifier judges to show a corner
    # index with less than this probability, when its model judges that (an index head,
    # vision.classifier.CornerClassifier.judges_index): a pip or court art boxed by the
    # detector is then no card. 0: every box is named. Table mode does not ask: on rendered
    # tables it cost a seat (models/README.md, "Session 19").
    photo_min_index: float = 0.0
    # Photo mode reads the photo with the table detector too, as table mode does: its
    # strays on pips, which kept it to tables (session 15), are what the index head drops.
    photo_uses_table_detector: bool = False
    # Photo mode reads a corner again in a tighter crop (this margin; 0: off) when its name
    # is unsure (under SURE_NAME) and the index head keeps it, that reading joining the
    # others at ``photo_tight_share`` of the whole: a tight crop shows less of a fan's
    # stacked neighbours, and a sure name is not read again, which keeps the cost at a
    # few crops a photo (models/README.md, "Session 20").
    photo_tight_margin: float = 0.0
    photo_tight_share: float = 0.25
    # Photo mode may read a corner it names unsurely (under SURE_NAME) with a second
    # classifier trained apart, when the index head judges it an index with at least
    # ``photo_second_min_index``: its log-probabilities, times ``photo_second_weight``,
    # join the photo classifier's over that one's ``photo_second_top`` likeliest names
    # (``joined_readings``). Two networks trained apart err on different crops of decks
    # neither saw; a sure name is not read again (models/README.md, "Session 21"). None:
    # the photo classifier alone.
    photo_second_classifier: Path | None = None
    photo_second_weight: float = 0.5
    photo_second_top: int = 2
    photo_second_min_index: float = 0.0
    # The text reader (``photo_text_reader``) reads only in a photo of a deck the
    # classifiers know less well: one where fewer than this share of the corners judged an
    # index are named sure (SURE_NAME) before it reads. On our own deck it turned right
    # names wrong (5s as Js), on decks never trained on it named more right
    # (models/README.md, "Session 23"). 1: in every photo.
    photo_text_max_sure: float = 1.0
    # Photo mode reads a crowded corner (another box's centre lies in its first margin's
    # square, outside its box grown by this factor) once more in that square blanked
    # outside the grown box (``crop_square``'s ``mask``), that reading joining the others
    # at ``photo_crowded_share``: in a fan the square around one index holds three or
    # four of its neighbours' indices, and the classifier named such crops under 0.3
    # (models/README.md, "Session 27"). Only where the classifier judges indices (an
    # index head). 0: not.
    photo_crowded_mask: float = 0.0
    photo_crowded_share: float = 0.35
    # Each crop is read softened: averaged down to this many pixels and grown back to
    # CROP (``vision.netinput.softened``; 0: as cut): ``soften_px`` by live mode's
    # classifier, ``photo_soften_px`` by photo and table modes' and
    # ``photo_second_soften_px`` by photo mode's second network. Every network names
    # held-out crops better so; in whole photos the photo classifier softened reads
    # ambiguous corners too surely (a half-covered 7d as Jd at 0.89) and is left as cut
    # (models/README.md, "Session 28").
    soften_px: int = 0
    photo_soften_px: int = 0
    photo_second_soften_px: int = 0
    # Live mode reads each crop in this many orientations (photo mode:
    # ``photo_orientations``): a fanned card's index lies near a quarter turn. Eight cost
    # its small classifier about 16 ms a 640x480 frame (41 against 25 ms, within the 60 ms
    # budget) and read rendered hands far better (models/README.md, "Session 28").
    live_orientations: int = 2
    # Both modes read a crop in its other turns only when its first two (as it is and
    # mirrored) name it under this (``CornerClassifier.views_probabilities``' early exit;
    # 0: every crop in every turn). Most corners are named surely in two turns, and the
    # turns were half of photo mode's time and two thirds of live mode's on a slow host
    # (models/README.md, "Session 39").
    early_sure: float = 0.0
    # With ``early_sure``, photo mode reads a corner's first crop (``photo_margins[0]``)
    # alone first, and its others only for a corner that leaves unsure: most of a photo's
    # corners are named surely from one crop (models/README.md, "Session 40").
    photo_early_views: bool = False
    # Photo mode, with ``photo_uses_table_detector``, reads the table detector only where
    # the reading without it falls short: the caller says how many cards the photo holds
    # (a hand: 13), and that many are not read, or a card is read twice. A photo read
    # whole and clean it can only give a card too many, and it costs a detector pass, a
    # fifth of a 1280x960 photo's time on a slow host (models/README.md, "Session 43").
    # A photo of unknown count (a table) always reads it.
    photo_table_when_short: bool = False
    # A photo of known count still short after both detectors is read again at each of
    # these times the side it was read at, in turn, until it reads whole; a negative one
    # reads the photo turned a quarter (a tilted card's index lies differently), at minus
    # that. Only a photo that would be read wrong pays for them, and what they alone find
    # counts when named surely (models/README.md, "Session 43"). A scale under 1 reads it
    # smaller than the network's size (down to SMALLEST_SHORT_SIDE): a close-up's index,
    # larger than the detector's trained sizes, whose first look found too few corners to
    # measure (models/README.md, "Session 72"). (): not.
    photo_short_scales: tuple[float, ...] = ()
    # Photo mode's first look only measures the indices (``photo_side``). With this share
    # (0 to 1), a photo whose longer side times it is under the network's size is first
    # looked at there, the indices at that share of their size, then read where they need
    # it (the network's size at least): at a quarter, a 1280x960 photo is looked at 320
    # pixels wide, a phone photo (decoded at MAX_SIDE, 2048) at 512. 0: the first look is
    # at the network's size, and is the reading when that is the size the indices need.
    # Measured at a quarter and 0.375, and left off (models/README.md, "Session 44").
    photo_first_look: float = 0.0
    # Photo mode, told how many cards a photo holds (``complete``): the first look's own
    # reading stands when it reads the photo whole and names every corner it kept at least
    # this surely, and the photo is not read again at the scale its indices need. 0: it is
    # always read again. At 0.9 (0.5 and 0.99 alike) every set measured read the same
    # photos wrong with the same cards, and 65 of eval-1280's 100 photos were read once:
    # its median 312 and 230 ms -> 195 and 170 (models/README.md, "Session 46"). A photo
    # not read whole at the first look pays for naming its corners there.
    photo_first_look_stands: float = 0.0
    # Photo mode reads a photo at its indices' scale only near what its first look found:
    # each box grown by this many index sizes (the first look's median, ``photo_side``),
    # the parts that touch joined (``near_parts``). A table's felt and a hand's margins
    # hold no index, and the networks' time grows with the area read. The whole photo is
    # read when the parts cover more than ``PARTS_SHARE`` of it, when the first look found
    # fewer than two sure corners, and for a deck printed light on dark (its first look
    # finds half its indices). 0: the whole photo is read. At 3, eval-table's median read
    # 2.2 -> 1.16 s, its photos all right 92.5 -> 97.5 %; at 4 and 6 as before, slower;
    # the hands' sets the same photos right but one of 300 (models/README.md, "Session 47").
    photo_read_near: float = 0.0
    # With ``early_sure``, both modes read a crop mirrored only when it is named under this
    # as it is (0: every crop mirrored too). At 0.9999 every set measured read the same
    # photos wrong with the same cards (at 0.999 and 0.99 a real photo gained a wrong
    # card), and the photo classifier read 90 crops a photo of eval-1280 against 102
    # (models/README.md, "Session 48").
    early_one_turn: float = 0.0
    # Live mode's own detector: a thinner network of the same YAML, cut from ``weights``
    # and trained on camera frames (``vision.training.prune_detector``). The nano
    # network's pass alone is most of a 640x480 frame's 60 ms on two cores. None: live
    # mode reads with ``weights``.
    live_weights: Path | None = None
    # Live mode's ``early_one_turn`` (None: the same as photo mode's). A frame has a
    # budget of 60 ms, a photo one of 250: live mode may mirror fewer crops.
    live_early_one_turn: float | None = None
    # Live mode's ``early_sure`` (None: the same as photo mode's). Read in four turns, a
    # crop named 0.8-0.99 in its first two was read twice more for no gain: at 0.8 the
    # tune sets read 2 photos of 436 more right than at 0.99, and a frame's crops cost
    # less (models/README.md, "Session 53").
    live_early_sure: float | None = None
    # A photo of known count still short after every pass above, and not taken for a
    # deck printed light on dark, is read once more in its negative (as ``_and_negative``
    # reads a dark deck's photo at every pass), at the side it was read at; what only
    # that pass finds counts when named surely (``faint_class_conf``). The dark deck's
    # vote (``printed_light_on_dark``) needs two boxes from the first look: a dim or
    # blurred photo of a black deck's two cards finds one or none, and its gold indices
    # were then never looked for in the negative. real-decks-dev's black training photos
    # 0.9898 / 0.933 / 85.54 % -> 0.99 / 0.9474 / 87.95 %, every tune set and the other
    # kinds' photos as before (models/README.md, "Session 67"). False: not.
    photo_short_negative: bool = False
    # Photo mode may read a crowded corner again with a network taught more fans: one
    # judged an index whose crops another index reaches into, named surely by the photo
    # classifier (``neighboured_boxes``, ``NEIGHBOUR_NAMED``). It reads the same crops in
    # the same turns, and its reading joins the photo classifier's at
    # ``photo_crowded_classifier_share`` (1: it names those corners alone; 0: not read).
    # A partly covered index beside its neighbour's whole one is what the photo classifier
    # misnames most (models/README.md, "Session 62"), and a network taught more fans read
    # our deck's real crops worse when it named every corner (sessions 64 and 66): so it
    # names only the crowded ones (session 68). None: not.
    photo_crowded_classifier: Path | None = None
    photo_crowded_classifier_share: float = 0.5
    # ... and only the crowded corners the photo classifier names under this (1: all).
    photo_crowded_below: float = 1.0
    # A photo still short after every pass may hold a card whose two corners are named
    # apart (a webcam's blurred index reads 4s as 6s): a network reads the face between
    # two corners a card's diagonal apart (``vision.reading.face_pairs``), and its reading,
    # raised to ``photo_face_weight``, joins the corners' own (``named_by_faces``): a pair
    # is one card when the joint name has ``photo_face_sure`` of it, its rank
    # ``photo_face_rank`` of the face's, and it is one of either corner's two likeliest
    # (models/README.md, "Session 70"). None (or a weight of 0): not read.
    photo_face_reader: Path | None = None
    photo_face_weight: float = 1.0
    photo_face_sure: float = 0.6
    photo_face_rank: float = 0.8
    # ... and still short after the pairs, a corner whose partner index is not boxed has
    # the face read where its card's outline places it (``vision.outline``), and is one
    # card when the joint name has the lone-corner bar (``min_lone_conf``) of it and its
    # rank ``photo_face_rank`` of the face's (``named_by_lone_faces``; models/README.md,
    # "Session 77").
    photo_face_lone: bool = False
    # ... and a pair is one card only when each corner's own likeliest name shares its
    # rank or its colour (``named_by_faces``' ``agree``; models/README.md, "Session 78").
    photo_face_agree: bool = False
    # A photo its first look votes a deck printed light on dark (``printed_light_on_dark``),
    # read with no learned deck: photo and table modes name its corners with
    # ``photo_adaptable_classifier`` (photo mode's classifier, its batch norms adaptable,
    # ``vision.training.adaptable``), the norms' statistics measured on the corners being
    # named and taken at this share against the trained ones (0: off). Held out, the black
    # deck of real-decks-dev read 0.9747 / 0.9625 -> 0.9873 / 0.975, every other set as
    # before; adapting in a light photo's negative pass too added a wrong card to two
    # rendered hands (models/README.md, "Session 87"). ``photo_adaptable_statistics``
    # measures the statistics in one pass (``vision.training.adaptable``'s
    # ``--statistics-out``).
    photo_dark_adapt: float = 0.0
    photo_adaptable_classifier: Path | None = None
    photo_adaptable_statistics: Path | None = None

    def __post_init__(self) -> None:
        if not self.photo_margins or len(self.photo_view_weights) != len(self.photo_margins) \
                or min(self.photo_view_weights) < 0 or sum(self.photo_view_weights) <= 0:
            raise ModelError(f"cards.json: photo_margins {list(self.photo_margins)} needs one "
                             "weight each, at least one above 0 (photo_view_weights "
                             f"{list(self.photo_view_weights)})")
        if not 0 <= self.photo_dark_adapt <= 1:
            raise ModelError(f"cards.json: photo_dark_adapt {self.photo_dark_adapt} is a "
                             "share: give 0 (off) to 1")
        if self.photo_text_weight < 0:
            raise ModelError(f"cards.json: photo_text_weight {self.photo_text_weight} is "
                             "below 0")
        if not 2 <= self.photo_text_top <= 52:
            raise ModelError(f"cards.json: photo_text_top {self.photo_text_top}: choose 2 "
                             "to 52 names")
        if not 0 < self.photo_text_max_sure <= 1:
            raise ModelError(f"cards.json: photo_text_max_sure {self.photo_text_max_sure} is "
                             "a share of a photo's corners: choose above 0 up to 1 (every "
                             "photo)")
        if not 0 <= self.photo_min_index < 1:
            raise ModelError(f"cards.json: photo_min_index {self.photo_min_index} is a "
                             "probability: choose 0 (off) up to below 1")
        if self.photo_tight_margin < 0 or not 0 < self.photo_tight_share < 1:
            raise ModelError(f"cards.json: photo_tight_margin {self.photo_tight_margin} "
                             f"(0: off) and photo_tight_share {self.photo_tight_share}: the "
                             "margin is a size, at least 0, and the share lies between 0 "
                             "and 1")
        if self.photo_second_weight < 0 or not 2 <= self.photo_second_top <= 52 or \
                not 0 <= self.photo_second_min_index < 1:
            raise ModelError(f"cards.json: photo_second_weight {self.photo_second_weight} "
                             f"(at least 0), photo_second_top {self.photo_second_top} (2 to 52 "
                             f"names), photo_second_min_index {self.photo_second_min_index} (a "
                             "probability, 0 up to below 1)")
        if self.photo_crowded_mask < 0 or 0 < self.photo_crowded_mask < 1 or \
                not 0 < self.photo_crowded_share < 1:
            raise ModelError(f"cards.json: photo_crowded_mask {self.photo_crowded_mask} "
                             "(0: off, or a growth of the box of 1 or more) and "
                             f"photo_crowded_share {self.photo_crowded_share} (between 0 "
                             "and 1)")
        if not 0 < self.photo_crowded_below <= 1:
            raise ModelError(f"cards.json: photo_crowded_below {self.photo_crowded_below} is a "
                             "probability: choose above 0 up to 1 (every crowded corner)")
        if self.photo_face_weight < 0 or not 0 < self.photo_face_sure <= 1 or \
                not 0 <= self.photo_face_rank <= 1:
            raise ModelError(f"cards.json: photo_face_weight {self.photo_face_weight} (at "
                             f"least 0), photo_face_sure {self.photo_face_sure} (a "
                             f"probability above 0 up to 1) and photo_face_rank "
                             f"{self.photo_face_rank} (a probability, 0 to 1)")
        if not 0 <= self.photo_crowded_classifier_share <= 1:
            raise ModelError("cards.json: photo_crowded_classifier_share "
                             f"{self.photo_crowded_classifier_share} is a share of a crowded "
                             "corner's reading: choose 0 (not read) up to 1")
        for name in ("soften_px", "photo_soften_px", "photo_second_soften_px"):
            side = getattr(self, name)
            if side != 0 and not 8 <= side <= CROP:
                raise ModelError(f"cards.json: {name} {side}: choose 0 (crops as cut) or "
                                 f"8 to {CROP} pixels")
        if any(scale == 0 or abs(scale) > 4 for scale in self.photo_short_scales):
            raise ModelError(f"cards.json: photo_short_scales {list(self.photo_short_scales)}: "
                             "each is a scale of the side a photo was read at, above 0 and up "
                             "to 4 (negative: the photo turned a quarter, at that scale)")
        if not 0 <= self.photo_first_look_stands <= 1:
            raise ModelError(f"cards.json: photo_first_look_stands "
                             f"{self.photo_first_look_stands} is a confidence: give 0 (off) "
                             "to 1")
        if self.photo_read_near != 0 and not 2 <= self.photo_read_near <= 64:
            raise ModelError(f"cards.json: photo_read_near {self.photo_read_near} is a "
                             "number of index sizes around each corner found: give 0 (read "
                             "the whole photo) or 2 to 64")
        if not 0 <= self.photo_first_look < 1:
            raise ModelError(f"cards.json: photo_first_look {self.photo_first_look} is a share "
                             "of a photo's longer side: choose 0 (the network's size) up to "
                             "below 1")
        for name in ("early_sure", "early_one_turn", "live_early_one_turn",
                     "live_early_sure"):
            if getattr(self, name) is not None and not 0 <= getattr(self, name) <= 1:
                raise ModelError(f"cards.json: {name} {getattr(self, name)} is a "
                                 "probability: choose 0 (off) up to 1")
        for name in ("photo_orientations", "live_orientations"):
            if getattr(self, name) not in ORIENTATIONS:
                raise ModelError(f"cards.json: {name} {getattr(self, name)}: "
                                 f"choose one of {', '.join(map(str, ORIENTATIONS))}")

    def with_classifiers(self, classifier: Path | None = None,
                         photo_classifier: Path | None = None) -> ModelInfo:
        """This model with other classifier files (the workshop measures candidates so): a
        ``classifier`` given alone names corners in both modes."""
        if classifier is None and photo_classifier is None:
            return self
        return dataclasses.replace(self, classifier=classifier or self.classifier,
                                   photo_classifier=photo_classifier)

    def reads_table_detector(self, mode: Mode) -> bool:
        """Whether ``mode`` joins the table detector's boxes to the detector's (when one is
        shipped): table mode always, photo mode where ``photo_uses_table_detector``."""
        return self.table_weights is not None and (
            mode == "table" or (mode == "photo" and self.photo_uses_table_detector))

    @property
    def detector_threshold(self) -> float:
        return self.conf if self.faint_conf is None else min(self.conf, self.faint_conf)

    @property
    def reading_settings(self) -> dict[str, object]:
        """How ``vision.reading.merge_corners`` should merge this model's corners."""
        return {"min_lone_confidence": self.min_lone_conf}


def _named_file(settings: dict[str, object], key: str, models: Path) -> Path | None:
    """The optional model file ``cards.json`` names under ``key``; None when it names none.
    Raises ModelError when the file it names is not in ``models``."""
    if key not in settings:
        return None
    path = models / str(settings[key])
    if not path.exists():
        raise ModelError(f"cards.json names {key} {path.name}, which is not in {models}")
    return path


def default_model(models: Path = MODELS) -> ModelInfo:
    """The shipped model: files and thresholds from ``cards.json``.

    ``cards.json`` names the detector and classifier files to run (the int8 copies, see
    ``vision.quantize``); without those keys, ONNX is preferred to the PyTorch weights."""
    settings = {}
    meta = models / "cards.json"
    if meta.exists():
        settings = json.loads(meta.read_text())
    classifier = models / str(settings.get("classifier", "corner-classifier.onnx"))
    photo_classifier = _named_file(settings, "photo_classifier", models)
    table_weights = _named_file(settings, "table_detector", models)
    text_reader = _named_file(settings, "photo_text_reader", models)
    second_classifier = _named_file(settings, "photo_second_classifier", models)
    named = [str(settings["detector"])] if "detector" in settings else []
    for name in (*named, "cards.onnx"):
        if (models / name).exists():
            return ModelInfo(models / name, int(settings.get("imgsz", 640)),
                             float(settings.get("conf", 0.35)), float(settings.get("iou", 0.5)),
                             classifier if classifier.exists() else None,
                             float(settings.get("min_class_conf", 0.4)),
                             float(settings.get("min_lone_conf", 0.0)),
                             None if settings.get("faint_conf") is None
                             else float(settings["faint_conf"]),
                             float(settings.get("faint_class_conf", 0.9)),
                             float(settings.get("photo_index_px", 24.0)),
                             int(settings.get("max_pass_side", 2048)),
                             tuple(float(m) for m in settings.get("photo_margins", [MARGIN])),
                             tuple(float(w) for w in settings.get("photo_view_weights",
                                                                  [1.0])),
                             photo_classifier,
                             int(settings.get("photo_orientations", 2)),
                             table_weights,
                             float(settings.get("table_conf", 0.35)),
                             text_reader,
                             float(settings.get("photo_text_weight", 0.25)),
                             int(settings.get("photo_text_top", 3)),
                             float(settings.get("photo_min_index", 0.0)),
                             bool(settings.get("photo_uses_table_detector", False)),
                             float(settings.get("photo_tight_margin", 0.0)),
                             float(settings.get("photo_tight_share", 0.25)),
                             second_classifier,
                             float(settings.get("photo_second_weight", 0.5)),
                             int(settings.get("photo_second_top", 2)),
                             float(settings.get("photo_second_min_index", 0.0)),
                             float(settings.get("photo_text_max_sure", 1.0)),
                             float(settings.get("photo_crowded_mask", 0.0)),
                             float(settings.get("photo_crowded_share", 0.35)),
                             int(settings.get("soften_px", 0)),
                             int(settings.get("photo_soften_px", 0)),
                             int(settings.get("photo_second_soften_px", 0)),
                             int(settings.get("live_orientations", 2)),
                             float(settings.get("early_sure", 0.0)),
                             bool(settings.get("photo_early_views", False)),
                             bool(settings.get("photo_table_when_short", False)),
                             tuple(float(f) for f in settings.get("photo_short_scales", [])),
                             float(settings.get("photo_first_look", 0.0)),
                             float(settings.get("photo_first_look_stands", 0.0)),
                             float(settings.get("photo_read_near", 0.0)),
                             float(settings.get("early_one_turn", 0.0)),
                             live_weights=_named_file(settings, "live_detector", models),
                             live_early_one_turn=None if settings.get(
                                 "live_early_one_turn") is None
                             else float(settings["live_early_one_turn"]),
                             live_early_sure=None if settings.get("live_early_sure") is None
                             else float(settings["live_early_sure"]),
                             photo_short_negative=bool(settings.get("photo_short_negative",
                                                                    False)),
                             photo_crowded_classifier=_named_file(
                                 settings, "photo_crowded_classifier", models),
                             photo_crowded_classifier_share=float(settings.get(
                                 "photo_crowded_classifier_share", 0.5)),
                             photo_crowded_below=float(settings.get("photo_crowded_below",
                                                                    1.0)),
                             photo_face_reader=_named_file(settings, "photo_face_reader",
                                                           models),
                             photo_face_weight=float(settings.get("photo_face_weight", 1.0)),
                             photo_face_sure=float(settings.get("photo_face_sure", 0.6)),
                             photo_face_rank=float(settings.get("photo_face_rank", 0.8)),
                             photo_face_lone=bool(settings.get("photo_face_lone", False)),
                             photo_face_agree=bool(settings.get("photo_face_agree", False)),
                             photo_dark_adapt=float(settings.get("photo_dark_adapt", 0.0)),
                             photo_adaptable_classifier=_named_file(
                                 settings, "photo_adaptable_classifier", models),
                             photo_adaptable_statistics=_named_file(
                                 settings, "photo_adaptable_statistics", models))
    raise ModelError(f"no detector weights in {models}: expected {' or '.join(named)} "
                     "cards.onnx (export one with `python -m vision.training.train_detector`)")


class OnnxYolo:
    """An ultralytics ONNX export run by onnxruntime alone: letterbox, one forward pass,
    class-agnostic non-maximum suppression. No torch, no ultralytics at run time: the app
    starts faster and a photo costs less than through ultralytics' own predictor."""

    def __init__(self, weights: Path, threads: int = 2) -> None:
        try:
            self.session = cpu_session(weights, threads)
        except Exception as error:  # onnxruntime raises its own exception types
            raise ModelError(f"cannot load detector {weights}: {error}") from None
        meta = self.session.get_modelmeta().custom_metadata_map
        try:
            names = ast.literal_eval(meta["names"])
            self.imgsz = tuple(ast.literal_eval(meta["imgsz"]))
        except (KeyError, ValueError, SyntaxError):
            raise ModelError(f"{weights} is not an ultralytics detector export (no names or "
                             "imgsz in its metadata)") from None
        self.names = tuple(names[i] for i in range(len(names)))
        model_input = self.session.get_inputs()[0]
        self.input = model_input.name
        # An export with dynamic axes takes any size (sides multiples of STRIDE); a fixed
        # one only its own.
        self.dynamic = not all(isinstance(d, int) for d in model_input.shape[2:])

    def input_size(self, image: np.ndarray, side: int | None) -> tuple[int, int]:
        """(height, width) of the canvas ``image`` is read on when its longer side is
        brought to ``side`` (default: the export's size): a fixed export's own size, or,
        for a dynamic one, the scaled photo padded to multiples of STRIDE only (a 640x480
        frame is read on 640x480, not on a 640 square)."""
        if not self.dynamic:
            return self.imgsz
        side = side or max(self.imgsz)
        height, width = image.shape[:2]
        scale = side / max(height, width)
        return (max(STRIDE, -(-round(height * scale) // STRIDE) * STRIDE),
                max(STRIDE, -(-round(width * scale) // STRIDE) * STRIDE))

    def predict(self, image: np.ndarray, conf: float, iou: float,
                max_det: int = 300, side: int | None = None) -> Detections:
        """``image``: RGB uint8; boxes come back in its pixels. ``side``: the longer side
        the photo is read at (dynamic exports; default: the export's size)."""
        canvas, scale, offset = letterbox(image, self.input_size(image, side))
        return self._found(canvas, (0, 0), scale, offset, image.shape, conf, iou, max_det)

    def predict_parts(self, image: np.ndarray, conf: float, iou: float, side: int,
                      parts: np.ndarray, max_det: int = 300) -> Detections:
        """The boxes found in ``parts`` of ``image`` (x1 y1 x2 y2 in its pixels) read at
        ``side``: windows of the very canvas ``predict`` reads the whole photo on, each
        grown to the network's stride, so a part's pixels reach the network as in the
        whole photo's pass (only what lies outside a window is not seen). Boxes that two
        windows both hold are one (class-agnostic suppression)."""
        canvas, scale, (left, top) = letterbox(image, self.input_size(image, side))
        height, width = canvas.shape[:2]
        found = Detections.empty(self.names)
        for x1, y1, x2, y2 in np.asarray(parts, np.float64).tolist():
            # The part on the canvas, grown out to multiples of the stride.
            cx1 = max(0, int(x1 * scale + left) // STRIDE * STRIDE)
            cy1 = max(0, int(y1 * scale + top) // STRIDE * STRIDE)
            cx2 = min(width, -(-math.ceil(x2 * scale + left) // STRIDE) * STRIDE)
            cy2 = min(height, -(-math.ceil(y2 * scale + top) // STRIDE) * STRIDE)
            if cx2 <= cx1 or cy2 <= cy1:
                continue
            window = canvas[cy1:cy2, cx1:cx2]
            found = _either(found, self._found(window, (cx1, cy1), scale, (left, top),
                                               image.shape, conf, iou, max_det), iou)
        return found

    def _found(self, window: np.ndarray, at: tuple[int, int], scale: float,
               offset: tuple[int, int], shape: tuple[int, ...], conf: float, iou: float,
               max_det: int) -> Detections:
        """One forward pass over ``window``, which lies at ``at`` on a canvas holding the
        photo (of ``shape``) at ``scale`` from ``offset``: its boxes in the photo's
        pixels, suppressed class-agnostically."""
        import cv2

        height, width = shape[:2]
        # (4 + classes, anchors)
        output = self.session.run(None, {self.input: detector_input(window)})[0][0]
        scores = output[4:]
        class_id = scores.argmax(axis=0)
        confidence = scores[class_id, np.arange(scores.shape[1])]
        keep = confidence > conf
        if not keep.any():
            return Detections.empty(self.names)
        cx, cy, w, h = output[:4, keep]
        confidence, class_id = confidence[keep], class_id[keep]
        boxes = np.stack([cx - w / 2, cy - h / 2, w, h], axis=1)
        chosen = cv2.dnn.NMSBoxes(boxes.tolist(), confidence.tolist(), conf, iou)
        chosen = np.asarray(chosen, np.int64).reshape(-1)
        chosen = chosen[np.argsort(-confidence[chosen])][:max_det]
        x1 = (boxes[chosen, 0] + at[0] - offset[0]) / scale
        y1 = (boxes[chosen, 1] + at[1] - offset[1]) / scale
        x2 = x1 + boxes[chosen, 2] / scale
        y2 = y1 + boxes[chosen, 3] / scale
        xyxy = np.stack([x1.clip(0, width), y1.clip(0, height), x2.clip(0, width),
                         y2.clip(0, height)], axis=1).astype(np.float32)
        return Detections(xyxy, confidence[chosen].astype(np.float32),
                          class_id[chosen].astype(np.int64), self.names)


def _onnx_locator(weights: Path) -> OnnxYolo:
    if weights.suffix != ".onnx":
        raise ModelError(f"{weights.name}: the reader runs ONNX exports only; PyTorch "
                         "weights are read by the workshop (vision.training.torch_detector)")
    return OnnxYolo(weights)


class CornerLocator(Protocol):
    """What finds corner boxes in a photo: the ONNX export here, the PyTorch weights in the
    workshop. ``names``: the class names its ``class_id`` indexes; ``dynamic``: whether it
    reads a photo at any ``side`` (else only at its own size)."""

    names: tuple[str, ...]
    dynamic: bool

    def predict(self, image: np.ndarray, conf: float, iou: float, max_det: int = 300,
                side: int | None = None) -> Detections: ...


class LearnedDeckReader(Protocol):
    """A learned deck (``vision.decks.LearnedDeck``): names corner crops as the classifier
    does, (N, 52) probabilities in ``CARD_NAMES`` order, with what it learned of its deck;
    None when it has learned nothing, and the classifier reads them. ``unlike``: (N, 52)
    probabilities to give the crops unlike the deck's, which its correction leaves alone
    (default: the features model's own reading)."""

    def probabilities(self, crops: np.ndarray, unlike: np.ndarray | None = None
                      ) -> np.ndarray | None: ...

    @property
    def photo_network(self) -> tuple[Path, dict[str, np.ndarray]] | None:
        """Photo mode's classifier adapted to the deck: (its model, the initializers that
        adapt it), or None: photo mode reads with its own."""
        ...

    @property
    def prints_light_on_dark(self) -> bool:
        """Whether the deck prints its indices lighter than its cards (gold or silver on
        black), as its calibration photos showed."""
        ...


# A photo is taken for a deck printed light on dark when at least LIGHT_ON_DARK_SHARE of the
# boxes its first look found, and at least MIN_POLARITY_VOTES of them, look so
# (vision.netinput.light_on_dark). Faint boxes vote too: most are a card's pips, printed
# like its indices. Measured on first looks: it fires on 92 of real-decks-dev's 138 black
# photos (most hold 1-3 cards), 1 of 150 white-deck photos, 5 of 100 webcam frames, none
# of 120 real-photos-dev shots nor of 80 rendered scenes.
MIN_POLARITY_VOTES = 2


# ``photo_dark_adapt`` measures a photo's statistics only on this many corners or more (the
# prototype measured in session 87).
DARK_ADAPT_BOXES = 3
# It measures them upright and upside down (``np.rot90``'s k), as a card's two indices lie,
# not in all four quarter turns as a learned deck does (``batch_norm_statistics``'
# default). The black deck's held-out photos read at F1 0.9937 against 0.9811, the dark
# tune hands one more right, every other tune photo the same, and a dark tune hand took
# 1442.5 against 1638.3 ms (models/README.md, "Session 90"); in one turn alone the black
# deck lost a tune card.
PHOTO_STATISTICS_TURNS = (0, 2)


def printed_light_on_dark(image: np.ndarray, boxes: Detections) -> bool:
    """Whether the boxes found in ``image`` say its deck prints its indices lighter than
    the card (gold or silver on black)."""
    if len(boxes) < MIN_POLARITY_VOTES:
        return False
    return mostly_light_on_dark(np.stack([crop_square(image, box) for box in boxes.xyxy]))


def _either(first: Detections, second: Detections, iou: float) -> Detections:
    """The boxes of both, one where they overlap (the higher-scored), best first."""
    import cv2

    if len(first) == 0 or len(second) == 0:
        return first if len(second) == 0 else second
    xyxy = np.concatenate([first.xyxy, second.xyxy])
    confidence = np.concatenate([first.confidence, second.confidence])
    class_id = np.concatenate([first.class_id, second.class_id])
    boxes = np.concatenate([xyxy[:, :2], xyxy[:, 2:] - xyxy[:, :2]], axis=1)
    chosen = np.asarray(cv2.dnn.NMSBoxes(boxes.tolist(), confidence.tolist(), 0.0, iou),
                        np.int64).reshape(-1)
    chosen = chosen[np.argsort(-confidence[chosen])]
    return Detections(xyxy[chosen], confidence[chosen], class_id[chosen], first.names)


def _turned_back(found: Detections, width: int) -> Detections:
    """Boxes found in ``np.rot90`` of a photo ``width`` pixels wide, in the photo's own
    pixels (its pixel (x, y) lies at (y, width - 1 - x) turned)."""
    x1, y1, x2, y2 = found.xyxy.T
    xyxy = np.stack([width - y2, x1, width - y1, x2], axis=1).astype(found.xyxy.dtype)
    return Detections(xyxy, found.confidence, found.class_id, found.names,
                      found.class_probabilities)


def measured_index_px(first_look: Detections) -> float | None:
    """How large a photo's indices are, in its pixels: the median longer side of the
    corners a first look found surely; None from fewer than two (indices too small to
    find, or no cards)."""
    if len(first_look) < 2:
        return None
    return float(np.median(first_look.longer_sides))


# ``photo_read_near``: parts covering more than this share of a photo are read as one
# photo (a pass over the whole costs less than passes over nearly all of it).
PARTS_SHARE = 0.75


def near_parts(xyxy: np.ndarray, shape: tuple[int, ...], pad: float) -> np.ndarray:
    """(K, 4) int x1 y1 x2 y2: rectangles inside a photo of ``shape`` (height, width, ...)
    that hold every point within ``pad`` pixels of the boxes ``xyxy``. Boxes whose grown
    rectangles overlap, directly or through others, share one rectangle (a seat's cards,
    a hand); two rectangles become one where that covers no more of the photo than both
    did. Rectangles may overlap: what they both hold is read twice."""
    height, width = shape[:2]
    if len(xyxy) == 0:
        return np.zeros((0, 4), np.int64)
    grown = np.concatenate([np.floor(xyxy[:, :2] - pad), np.ceil(xyxy[:, 2:] + pad)], axis=1)
    grown = np.clip(grown, 0, [width, height, width, height]).astype(np.int64)
    # The boxes that reach each other through grown overlaps, as labels (a fixed point of
    # each box taking the lowest label of those it overlaps).
    touches = (grown[:, None, 0] < grown[None, :, 2]) & (grown[None, :, 0] < grown[:, None, 2]) \
        & (grown[:, None, 1] < grown[None, :, 3]) & (grown[None, :, 1] < grown[:, None, 3])
    labels = np.arange(len(grown))
    while True:
        lowest = np.where(touches, labels[None, :], len(grown)).min(axis=1)
        if np.array_equal(lowest, labels):
            break
        labels = lowest
    parts = [np.array([*grown[labels == label, :2].min(axis=0),
                       *grown[labels == label, 2:].max(axis=0)]) for label in np.unique(labels)]

    def area(rect: np.ndarray) -> int:
        return int((rect[2] - rect[0]) * (rect[3] - rect[1]))

    joined = True
    while joined:
        joined = False
        for i in range(len(parts)):
            for j in range(i + 1, len(parts)):
                both = np.array([*np.minimum(parts[i][:2], parts[j][:2]),
                                 *np.maximum(parts[i][2:], parts[j][2:])])
                if area(both) <= area(parts[i]) + area(parts[j]):
                    parts[i] = both
                    del parts[j]
                    joined = True
                    break
            if joined:
                break
    return np.stack(parts)


def _shifted(found: Detections, left: int, top: int) -> Detections:
    """Boxes found in a part of a photo whose top left corner lies at (left, top), in the
    photo's own pixels."""
    offset = np.array([left, top, left, top], found.xyxy.dtype)
    return Detections(found.xyxy + offset, found.confidence, found.class_id, found.names,
                      found.class_probabilities)


def joined(found: Detections, more: Detections) -> Detections:
    """The boxes of both, overlapping or not (with their names' probabilities, when both
    have them)."""
    if len(more) == 0 or len(found) == 0:
        return found if len(more) == 0 else more
    probabilities = None
    if found.class_probabilities is not None and more.class_probabilities is not None:
        probabilities = np.concatenate([found.class_probabilities, more.class_probabilities])
    return Detections(np.concatenate([found.xyxy, more.xyxy]),
                      np.concatenate([found.confidence, more.confidence]),
                      np.concatenate([found.class_id, more.class_id]), found.names,
                      probabilities)


OVERLAP_SHARE = 0.2  # ``crowded_boxes``: a box this much inside another is not its neighbour
# ``photo_crowded_classifier``: a neighbour is a box the photo classifier names this surely.
# With any box counted, a 10d's own pips made its index crowded on a real photo, and the fan
# network named it worse; at 0.5 tune-1280b read the same hands with a card more wrong
# (models/README.md, "Session 68").
NEIGHBOUR_NAMED = 0.9


def crowded_boxes(xyxy: np.ndarray, margin: float, grow: float) -> np.ndarray:
    """(N,) bool: the boxes whose crop square (``margin`` times the longer side) holds
    another box's centre outside the box grown by ``grow``: a neighbour's index."""
    centres = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    halves = (xyxy[:, 2:] - xyxy[:, :2]) / 2
    apart = np.abs(centres[None, :, :] - centres[:, None, :])  # (N, N, 2)
    reach = halves.max(axis=1) * margin  # half the square's side
    in_square = (apart <= reach[:, None, None]).all(axis=2)
    outside_box = (apart > halves[:, None, :] * grow).any(axis=2)
    # A box that overlaps this one much is the same index boxed again, not a neighbour.
    neighbours = in_square & outside_box & (nested_shares(xyxy, xyxy) < OVERLAP_SHARE)
    np.fill_diagonal(neighbours, False)
    return neighbours.any(axis=1)


def neighboured_boxes(xyxy: np.ndarray, margin: float,
                      indices: np.ndarray | None = None) -> np.ndarray:
    """(N,) bool: the boxes whose crop square (``margin`` times the longer side, as
    ``crop_square`` cuts it) another box reaches into: part of a neighbour's index shows
    in the crop. A box much inside this one (``OVERLAP_SHARE``) is this index boxed
    again, not a neighbour. ``indices`` (N,) bool: only these boxes count as neighbours
    (the ones judged an index, not a pip); None: all."""
    centres = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    reach = (xyxy[:, 2:] - xyxy[:, :2]).max(axis=1) * margin / 2
    square = np.concatenate([centres - reach[:, None], centres + reach[:, None]], axis=1)
    # A box meets the square where they share any area.
    meets = nested_shares(square, xyxy) > 0
    neighbours = meets & (nested_shares(xyxy, xyxy) < OVERLAP_SHARE)
    if indices is not None:
        neighbours &= indices[None, :]
    np.fill_diagonal(neighbours, False)
    return neighbours.any(axis=1)


def _covered(boxes: np.ndarray, others: np.ndarray) -> np.ndarray:
    """(N,): whether each of ``boxes`` and one of ``others`` are one index boxed twice (as
    ``vision.reading.fold_nested`` judges it)."""
    if len(boxes) == 0 or len(others) == 0:
        return np.zeros(len(boxes), bool)
    return (nested_shares(boxes, others) >= NESTED_SHARE).any(axis=1)


def joined_readings(probabilities: np.ndarray, log_probabilities: np.ndarray,
                    weight: float, top: int | None = None) -> np.ndarray:
    """The classifier's (N, 52) ``probabilities`` and a second reader's
    ``log_probabilities`` of the same crops, the second's times ``weight``, added as
    log-probabilities -> (N, 52) probabilities. With ``top``, only the classifier's
    ``top`` likeliest names of each crop are weighed again, and share what the classifier
    gave them: a box on a pip, which the classifier names with a flat spread, is not made
    surer than its likeliest names were together."""
    joint = np.log(np.clip(probabilities, 1e-12, None)) + weight * log_probabilities
    joint = np.exp(joint - joint.max(axis=1, keepdims=True))
    if top is None:
        return (joint / joint.sum(axis=1, keepdims=True)).astype(np.float32)
    rows = np.arange(len(probabilities))[:, None]
    likeliest = np.argsort(-probabilities, axis=1)[:, :top]
    mass = probabilities[rows, likeliest].sum(axis=1, keepdims=True)
    chosen = joint[rows, likeliest]
    out = probabilities.astype(np.float32).copy()
    out[rows, likeliest] = mass * chosen / chosen.sum(axis=1, keepdims=True)
    return out


class CardDetector:
    """Finds corner indices; ``detect`` returns :class:`Detections` in photo pixels."""

    def __init__(self, info: ModelInfo | None = None, locate_only: bool = False,
                 locator: CornerLocator | None = None,
                 deck: LearnedDeckReader | None = None,
                 table_locator: CornerLocator | None = None) -> None:
        """``locate_only``: boxes without names are wanted (e.g. to cut training crops).
        ``locator``: finds the boxes instead of ``info.weights``' ONNX session.
        ``deck``: the table's learned deck names the corners with the classifier.
        ``table_locator``: table mode's second detector, instead of
        ``info.table_weights``' (loaded when a table is first read: a hand's reader never
        pays for it)."""
        self.info = info or default_model()
        self.deck = deck
        self.locator = locator or _onnx_locator(self.info.weights)
        # Live mode's own detector (``ModelInfo.live_weights``); a given ``locator`` reads
        # every mode.
        self.live_locator = self.locator if locator is not None or \
            self.info.live_weights is None else _onnx_locator(self.info.live_weights)
        self._table_locator = table_locator
        self.names = self.locator.names
        self.classifier: CornerClassifier | None = None
        self.photo_classifier: CornerClassifier | None = None
        self.text_reader: TextReader | None = None
        self.second_classifier: CornerClassifier | None = None
        self.crowded_classifier: CornerClassifier | None = None
        self.face_reader: CornerClassifier | None = None
        self._adaptable: CornerClassifier | None = None  # ``photo_dark_adapt``'s network
        self._statistics: Any = None  # and its statistics network's session
        if self.info.classifier is not None:
            try:
                self.classifier = CornerClassifier(self.info.classifier,
                                                   soften_px=self.info.soften_px)
                # A learned deck's adapted network reads instead of photo mode's own, which
                # is then not opened.
                adapted = getattr(deck, "photo_network", None)
                if adapted is not None:
                    self.photo_classifier = CornerClassifier(
                        adapted[0], soften_px=self.info.photo_soften_px,
                        initializers=adapted[1])
                elif self.info.photo_classifier is None:
                    self.photo_classifier = self.classifier
                else:
                    self.photo_classifier = CornerClassifier(self.info.photo_classifier,
                                                             soften_px=self.info.photo_soften_px)
                if self.info.photo_text_reader is not None and self.info.photo_text_weight > 0:
                    self.text_reader = TextReader(self.info.photo_text_reader)
                if self.info.photo_second_classifier is not None and \
                        self.info.photo_second_weight > 0:
                    self.second_classifier = CornerClassifier(
                        self.info.photo_second_classifier,
                        soften_px=self.info.photo_second_soften_px)
                if self.info.photo_crowded_classifier is not None and \
                        self.info.photo_crowded_classifier_share > 0:
                    self.crowded_classifier = CornerClassifier(
                        self.info.photo_crowded_classifier,
                        soften_px=self.info.photo_soften_px)
                if self.info.photo_face_reader is not None and self.info.photo_face_weight > 0:
                    self.face_reader = CornerClassifier(self.info.photo_face_reader)
            except ClassifierError as error:
                raise ModelError(str(error)) from None
        elif not locate_only and not set(self.names) <= set(CARD_NAMES):
            # A single-class detector finds corners without naming them.
            raise ModelError(f"detector {self.info.weights.name} finds corners without naming "
                             "them: it needs the corner classifier (models/"
                             "corner-classifier.onnx)")

    def detect(self, image: np.ndarray, mode: Mode = "photo",
               complete: Callable[[Detections], bool] | None = None) -> Detections:
        """``image``: RGB uint8 (H, W, 3). ``mode``: see ``Mode``. ``complete``: whether
        named corners already read the photo whole (``vision.pipeline.read_image`` knows
        how many cards it holds); with ``photo_table_when_short``, photo mode then spares
        the table detector's pass, and with ``photo_first_look_stands`` a first look it
        judges whole, each corner named surely enough, is the reading."""
        # Class-agnostic suppression: two corner indices never lie on top of each other,
        # so overlapping boxes are one index, whatever names the detector gave them.
        threshold = self.info.detector_threshold
        if mode == "live":  # one pass at the network's size, its own detector's
            return self._named_live(image, self.live_locator.predict(image, threshold,
                                                                     self.info.iou))
        look = self._first_look_side(image)
        found = self.locator.predict(image, threshold, self.info.iou, side=look)
        photo_classifier = self.photo_classifier
        adapt_dark = False  # set once the first look has voted (``photo_dark_adapt``)
        # A dark photo's statistics are measured once, on the first corners named that are
        # enough (the photo's own boxes, before any later pass): a later pass's few added
        # corners are read with them, not with statistics of their own. The dark tune hands
        # read a card more and a wrong one less, the real decks' tune photos the same, in
        # 1355.9 against 1442.5 ms (models/README.md, "Session 90").
        adapted: CornerClassifier | None = None

        def name(boxes: Detections, text_reader: TextReader | None,
                 every: list[Detections] | None = None) -> Detections:
            nonlocal adapted
            assert photo_classifier is not None
            classifier = photo_classifier
            if adapt_dark and len(boxes) >= DARK_ADAPT_BOXES:
                if adapted is None:
                    adapted = self._adapted_to(image, boxes)
                classifier = adapted
            return self._name_corners(image, boxes, classifier,
                                      self.info.photo_margins, self.info.photo_view_weights,
                                      self.info.photo_orientations, deck_reads_all=False,
                                      text_reader=text_reader,
                                      judge_index=mode == "photo",
                                      tight_margin=self.info.photo_tight_margin
                                      if mode == "photo" else 0.0,
                                      second=self.second_classifier
                                      if mode == "photo" else None,
                                      crowded=self.crowded_classifier
                                      if mode == "photo" else None, every=every)

        more: Detections | None = None  # table mode: the table detector's boxes
        table: CornerLocator | None = None
        parts: np.ndarray | None = None  # photo mode: the parts read at ``side``; None: all
        side = self.photo_side(image, found[found.confidence >= self.info.conf])
        sized: dict[str, int] = {} if side is None else {"side": side}
        # A learned deck printed light on dark is read as one in every photo: a dim photo of
        # one or two of its cards gives its first look too few boxes to vote
        # (models/README.md, "Session 84").
        light_on_dark = (self.deck is not None and self.deck.prints_light_on_dark) \
            or printed_light_on_dark(image, found)
        adapt_dark = light_on_dark and self.deck is None and self.info.photo_dark_adapt > 0 \
            and self.info.photo_adaptable_classifier is not None \
            and self.info.photo_adaptable_statistics is not None
        stands = self.info.photo_first_look_stands
        if stands > 0 and mode == "photo" and complete is not None and look is None \
                and side is not None and not light_on_dark \
                and self.classifier is not None and photo_classifier is not None:
            first = name(found, self.text_reader)
            if len(first) and float(first.confidence.min()) >= stands and complete(first):
                return first
        if side is not None or look is not None:
            # A dark deck's first look finds half its indices (they show in the
            # negative): its photo is read whole.
            parts = None if light_on_dark else self._parts_to_read(image, found, side)
            found = self._read_parts(self.locator, image, threshold, sized, parts)
        # Photo mode: the table detector waits until the corners are named.
        waits = mode == "photo" and self.info.photo_table_when_short and \
            complete is not None and self.classifier is not None
        table = self.table_locator() if self.info.reads_table_detector(mode) else None
        if table is not None and not waits:
            more = self._read_parts(table, image, self.info.table_conf, sized, parts)
        if light_on_dark:
            found = self._and_negative(image, found, sized)
        if self.classifier is None:
            if more is not None:
                found = joined(found, more)
            return found[found.confidence >= self.info.conf]
        # The photo's own boxes, each named, whatever the naming gates drop: the faces
        # of a reading still short are read between them (``_read_faces``).
        every: list[Detections] = []
        named = name(found, self.text_reader, every)
        if waits and table is not None and complete is not None and not complete(named):
            more = self._read_parts(table, image, self.info.table_conf, sized, parts)
        if more is not None:
            # The text reader reads the added boxes only where it read the photo's own.
            text_reader = None if named.class_probabilities is not None and \
                self._familiar(named.class_probabilities) else self.text_reader
            # The table detector finds indices of a table that photo mode's misses
            # (models/README.md, "Session 15"). Its box on an index photo mode's detector
            # boxed too is named only when that box's name is unsure: the reading then
            # keeps the surer of the two (vision.reading.fold_nested), as the crop of the
            # higher-scored box may be the one the classifier misreads.
            # In photo mode (``photo_uses_table_detector``) it only adds indices photo
            # mode's detector did not box, and, like a faint box, each needs a sure name
            # (``faint_class_conf``): on real 13-card photos its second crop of a boxed
            # index overrode a right name with a surer wrong one (3d as Kd; models/
            # README.md, "Session 19").
            if mode == "photo":
                added = name(more[~_covered(more.xyxy, named.xyxy)], text_reader)
                added = added[added.confidence >= self.info.faint_class_conf]
            else:
                added = name(more[~_covered(more.xyxy,
                                            named.xyxy[named.confidence >= SURE_NAME])],
                             text_reader)
            named = joined(named, added)
        if mode == "photo" and complete is not None and (
                self.info.photo_short_scales or self.info.photo_short_negative):
            read_at = sized.get("side") or self.info.imgsz
            named = self._read_short_again(image, named, read_at, light_on_dark, complete,
                                           parts, name)
        if mode == "photo" and complete is not None and self.face_reader is not None \
                and not complete(named):
            opened = every[0] if every else named
            named = self._read_faces(image, named, opened)
            if self.info.photo_face_lone and not complete(named):
                named = self._read_lone_faces(image, named, opened, complete)
        if mode == "photo" and every:
            named = dataclasses.replace(named, held_back=every[0])
        return named

    def _held_and_taken(self, named: Detections, opened: Detections
                        ) -> tuple[list[int], np.ndarray]:
        """The class ids of the cards ``named`` counts, and which of ``opened`` are their
        corners: every corner of a card the reading counts stays that card's."""
        merged = merge_corners(named, **self.reading_settings)
        held = [CARD_NAMES.index(card.card) for card in merged.cards]
        return held, _covered(opened.xyxy, named.xyxy[np.isin(named.class_id, held)])

    def _read_faces(self, image: np.ndarray, named: Detections, opened: Detections
                    ) -> Detections:
        """A reading still short after every pass: pairs of corners that may be one card's
        two indices (``vision.reading.face_pairs``), among ``opened`` (the photo's boxes
        named without the naming gates) and outside the cards ``named`` already counts,
        have the face between them read (``face_reader``, four turns), and
        the pairs it names with their corners (``named_by_faces``) join the reading as
        cards, in place of the boxes they are."""
        assert self.face_reader is not None
        held, taken = self._held_and_taken(named, opened)
        pairs = face_pairs(opened, taken, MAX_FACE_PAIRS, measured_diagonal(named))
        if not pairs:
            return named
        faces = self.face_reader.probabilities(
            np.stack([face_square(image, opened.xyxy[i], opened.xyxy[j],
                                  size=self.face_reader.side) for i, j in pairs]),
            orientations=4)
        cards = named_by_faces(opened, pairs, faces, self.info.photo_face_weight,
                               self.info.photo_face_sure, self.info.photo_face_rank,
                               held=held, agree=self.info.photo_face_agree)
        if len(cards) == 0:
            return named
        # The pairs named make the photo's cards measure their diagonal anew: a pair that
        # lies further apart than the merge then links (``within_one_card``) would be
        # counted as its card twice, so its corners stay as they were read.
        read = joined(named[~_covered(named.xyxy, cards.xyxy)], cards)
        linked = within_one_card(cards[0::2], cards[1::2], measured_diagonal(read))
        if linked.all():
            return read
        cards = cards[np.repeat(linked, 2)]
        return joined(named[~_covered(named.xyxy, cards.xyxy)], cards)

    def _read_lone_faces(self, image: np.ndarray, named: Detections, opened: Detections,
                         complete: Callable[[Detections], bool]) -> Detections:
        """A reading still short after the face pairs (``_read_faces``): each corner of
        ``opened`` outside the cards ``named`` counts, whose likeliest name is at least
        ``LONE_FACE_MIN_NAME`` and not a card already read, and whose card's outline
        holds it (``vision.outline.card_outline``) and is as long as a whole card of
        this photo (``shows_whole``: the longest outline its corners show), has the face
        read between it and where the card's other index lies (four turns); the corners
        it names with their own reading (``named_by_lone_faces``) join the reading as
        cards, surest first, until the reading is whole."""
        assert self.face_reader is not None
        if len(opened) == 0 or opened.class_probabilities is None:
            return named
        held, taken = self._held_and_taken(named, opened)
        probabilities = opened.class_probabilities
        candidates = ~taken & (probabilities.max(axis=1) >= LONE_FACE_MIN_NAME) & \
            ~np.isin(probabilities.argmax(axis=1), held)
        surest_first = np.argsort(-probabilities.max(axis=1), kind="stable")[:MAX_OUTLINED]
        outlines: dict[int, CardOutline | None] = {}
        for i in surest_first[candidates[surest_first]][:MAX_LONE_FACES]:
            outlines[int(i)] = card_outline(image, opened.xyxy[i].astype(np.float64))
        found = {i: outline for i, outline in outlines.items() if outline is not None}
        if not found:
            return named
        # The photo's other corners' cards measure how long a whole card is here.
        for i in surest_first:
            if int(i) not in outlines:
                outlines[int(i)] = card_outline(image, opened.xyxy[i].astype(np.float64))
        longest = max(max(outline.sides) for outline in outlines.values() if outline is not None)
        found = {i: outline for i, outline in found.items() if shows_whole(outline, longest)}
        if not found:
            return named
        lone = list(found)
        squares = [face_square(image, opened.xyxy[i], opposite_index(opened.xyxy[i], outline),
                               size=self.face_reader.side) for i, outline in found.items()]
        faces = self.face_reader.probabilities(np.stack(squares), orientations=4)
        cards = named_by_lone_faces(opened, lone, faces, self.info.photo_face_weight,
                                    self.info.min_lone_conf, self.info.photo_face_rank,
                                    held=held)
        for k in range(len(cards)):
            if complete(named):
                break
            card = cards[np.array([k])]
            named = joined(named[~_covered(named.xyxy, card.xyxy)], card)
        return named

    def detect_live_parts(self, image: np.ndarray, parts: np.ndarray) -> Detections:
        """Live mode's reading of ``parts`` of ``image`` only (x1 y1 x2 y2 in its pixels):
        the corners found there at live mode's scale, named as ``detect`` names a frame's.
        A camera stream (``vision.live.LiveStream``) reads again only where its frame
        changed. The windows read may reach past ``parts``: the caller keeps what it
        needs."""
        return self._named_live(image, self._read_parts(
            self.live_locator, image, self.info.detector_threshold, {"side": self.info.imgsz},
            parts))

    def _named_live(self, image: np.ndarray, found: Detections) -> Detections:
        """Live mode's corners from the boxes ``found`` in ``image``: named by its
        classifier, or those the detector is sure of when there is none."""
        if self.classifier is None:
            return found[found.confidence >= self.info.conf]
        return self._name_corners(image, found, self.classifier,
                                  orientations=self.info.live_orientations,
                                  early_one=self.info.live_early_one_turn,
                                  early_sure=self.info.live_early_sure)

    def _and_negative(self, image: np.ndarray, found: Detections, sized: dict[str, int]
                      ) -> Detections:
        """``found`` in ``image`` joined with the boxes found in its negative.

        The detector finds a black deck's gold indices far better in the photo's negative
        (real-decks-dev's held-out black photos: 118 of 144 corners against 62; both
        together 121). Both are kept, so a light deck taken for a dark one loses nothing.
        The classifier reads the photo's own crops (it inverts those itself,
        vision.classifier)."""
        negative = self.locator.predict(255 - image, self.info.detector_threshold,
                                        self.info.iou, **sized)
        return _either(found, negative, self.info.iou)

    def _parts_to_read(self, image: np.ndarray, first_look: Detections, side: int | None
                       ) -> np.ndarray | None:
        """The parts of ``image`` photo mode reads at ``side`` (``photo_read_near``, from
        the boxes its first look found); None: the whole photo."""
        near = self.info.photo_read_near
        index_px = measured_index_px(first_look[first_look.confidence >= self.info.conf])
        if not near or side is None or index_px is None:
            return None
        parts = near_parts(first_look.xyxy, image.shape, near * index_px)
        height, width = image.shape[:2]
        area = float(((parts[:, 2] - parts[:, 0]) * (parts[:, 3] - parts[:, 1])).sum())
        return None if area > PARTS_SHARE * height * width else parts

    def _read_parts(self, locator: CornerLocator, image: np.ndarray, conf: float,
                    sized: dict[str, int], parts: np.ndarray | None) -> Detections:
        """``locator``'s boxes in ``image`` read at ``sized`` (photo mode's side), over the
        whole photo or, given ``parts``, over each part at the same scale."""
        if parts is None or "side" not in sized:
            return locator.predict(image, conf, self.info.iou, **sized)
        if isinstance(locator, OnnxYolo):
            return locator.predict_parts(image, conf, self.info.iou, sized["side"], parts)
        # Another locator (the workshop's PyTorch weights, a test's): each part as a photo.
        scale = sized["side"] / max(image.shape[:2])
        found = Detections.empty(locator.names)
        for x1, y1, x2, y2 in parts.tolist():
            piece = image[y1:y2, x1:x2]
            side = max(round(max(piece.shape[:2]) * scale), STRIDE)
            # Parts may overlap: an index both hold is one box (``_either``).
            found = _either(found, _shifted(locator.predict(piece, conf, self.info.iou,
                                                            side=side), x1, y1),
                            self.info.iou)
        return found

    def _read_short_again(self, image: np.ndarray, named: Detections, read_at: int,
                          light_on_dark: bool, complete: Callable[[Detections], bool],
                          parts: np.ndarray | None,
                          name: Callable[[Detections, TextReader | None], Detections]
                          ) -> Detections:
        """A reading still short after both detectors: the photo read again at each of
        ``photo_short_scales`` times the side it was read at (within the photo's own
        pixels and ``max_pass_side``), until it reads whole. Like the table detector's,
        the boxes these passes alone find count when named surely (``faint_class_conf``).
        Only a photo that would be read wrong anyway pays for them. ``parts``: where the
        photo was read (``photo_read_near``; None: all of it), read so again. Then, with
        ``photo_short_negative``, a photo still short and not read as a dark deck's is
        read once in its negative."""
        longest = max(image.shape[:2])
        ceiling = min(longest, self.info.max_pass_side)
        read = [read_at]
        threshold = self.info.detector_threshold

        def with_sure_finds(named: Detections, found: Detections) -> Detections:
            # What a pass alone found (no box of the reading covers it), named surely.
            found = found[~_covered(found.xyxy, named.xyxy)]
            if len(found) == 0:
                return named
            added = name(found, None)
            return joined(named, added[added.confidence >= self.info.faint_class_conf])

        whole = complete(named)
        for scale in self.info.photo_short_scales:
            if whole:
                break
            turned = scale < 0  # a negative scale: the photo turned a quarter, at -scale
            # Under 1, the photo read smaller than it was (a blurred index larger than the
            # detector's sizes), down to SMALLEST_SHORT_SIDE; else at the network's size at least.
            floor = SMALLEST_SHORT_SIDE if abs(scale) < 1 else self.info.imgsz
            side = int(min(max(read_at * abs(scale), floor), ceiling))
            if not turned and any(abs(side - done) <= done * SAME_SIDE for done in read):
                continue
            read.append(side)
            seen = np.ascontiguousarray(np.rot90(image)) if turned else image
            seen_parts = parts if parts is None or not turned else \
                quarter_turned(parts, image.shape[1])
            found = self._read_parts(self.locator, seen, threshold, {"side": side}, seen_parts)
            if light_on_dark:
                found = self._and_negative(seen, found, {"side": side})
            if turned:
                found = _turned_back(found, image.shape[1])
            named = with_sure_finds(named, found)
            whole = complete(named)
        if self.info.photo_short_negative and not light_on_dark and not whole:
            named = with_sure_finds(named, self._read_parts(
                self.locator, 255 - image, threshold, {"side": read_at}, parts))
        return named

    def table_locator(self) -> CornerLocator | None:
        """Table mode's second detector, when one is shipped (loaded when first asked)."""
        if self._table_locator is None and self.info.table_weights is not None:
            self._table_locator = _onnx_locator(self.info.table_weights)
        return self._table_locator

    def _first_look_side(self, image: np.ndarray) -> int | None:
        """The side photo mode's first look reads ``image`` at, when not the network's own
        (``ModelInfo.photo_first_look``): only a photo large enough that a reading pass may
        follow is looked at smaller."""
        share = self.info.photo_first_look
        if not share or not getattr(self.locator, "dynamic", False):
            return None
        longest = max(image.shape[:2])
        if longest <= self.info.imgsz * (1 + SAME_SIDE):  # the first look is the reading
            return None
        side = max(round(longest * share), STRIDE)
        return side if side < self.info.imgsz else None

    def photo_side(self, image: np.ndarray, first_look: Detections) -> int | None:
        """The longer side at which photo mode reads ``image``, from the corners a first
        look at the network's size found; None when that first look already read it at
        the right scale (or the network takes one size only).

        The corners' median longer side says how large the indices are in the photo; the
        photo is read where they measure ``photo_index_px``, but never enlarged past its
        own pixels (an enlarged index is blurred, and reads worse: issue 13's 640-pixel
        photos read at 1280 lost half their recall), nor past ``max_pass_side``. A first
        look that finds fewer than two corners saw indices too small to find: the photo is
        read at its full size (within ``max_pass_side``)."""
        if not getattr(self.locator, "dynamic", False):
            return None
        longest = max(image.shape[:2])
        first = max(self.info.imgsz, 1)
        ceiling = min(longest, self.info.max_pass_side)
        index_px = measured_index_px(first_look)
        wanted = ceiling if index_px is None else \
            longest * self.info.photo_index_px / max(index_px, 1.0)
        # Indices larger than the target (a close-up) stay at the first look's size: read
        # smaller, down to 320 px, the fanned close-ups of eval-1280 lost 5 to 14 points of
        # recall (measured 2026-11-23, shipped detector).
        side = int(min(max(wanted, first), ceiling))
        # Within SAME_SIDE of the first look's size, a second pass would see the same.
        return None if side <= first * (1 + SAME_SIDE) else side

    @property
    def reading_settings(self) -> dict[str, object]:
        """How ``vision.reading.merge_corners`` should merge this model's corners."""
        return self.info.reading_settings

    def _adapted_to(self, image: np.ndarray, boxes: Detections) -> CornerClassifier:
        """``photo_adaptable_classifier`` with its batch norms' statistics measured on the
        ``MARGIN`` crops of ``boxes`` by ``photo_adaptable_statistics``, upright and upside
        down (``PHOTO_STATISTICS_TURNS``) (``photo_dark_adapt``); each network's session
        opened once."""
        path, statistics = self.info.photo_adaptable_classifier, \
            self.info.photo_adaptable_statistics
        assert path is not None and statistics is not None
        try:
            if self._adaptable is None:
                self._adaptable = CornerClassifier(path, soften_px=self.info.photo_soften_px)
            if self._statistics is None:
                self._statistics = statistics_session(statistics)
            crops = np.stack([crop_square(image, box, MARGIN) for box in boxes.xyxy])
            adapted = copy.copy(self._adaptable)
            adapted.feeds = batch_norm_statistics(statistics, crops, self.info.photo_dark_adapt,
                                                  session=self._statistics,
                                                  turns=PHOTO_STATISTICS_TURNS)
        except ClassifierError as error:
            raise ModelError(str(error)) from None
        return adapted

    def _name_corners(self, image: np.ndarray, found: Detections,
                      classifier: CornerClassifier, margins: tuple[float, ...] = (MARGIN,),
                      weights: tuple[float, ...] = (1.0,), orientations: int = 2,
                      deck_reads_all: bool = True,
                      text_reader: TextReader | None = None,
                      judge_index: bool = False, tight_margin: float = 0.0,
                      second: CornerClassifier | None = None,
                      early_one: float | None = None,
                      early_sure: float | None = None,
                      crowded: CornerClassifier | None = None,
                      every: list[Detections] | None = None) -> Detections:
        """Second stage: ``classifier`` names each corner from the full-size photo, from
        crops cut at ``margins``, read with ``weights`` (see ``ModelInfo.photo_margins``),
        each in ``orientations`` turns (``ModelInfo.photo_orientations``). A
        ``text_reader`` reads the ``MARGIN`` crops of the corners still unsure after the
        second classifier, through the same gate, and its log-probabilities, times
        ``ModelInfo.photo_text_weight``, join the classifier's (not a learned deck's).
        ``judge_index``: drop the boxes ``classifier`` judges to show no index
        (``ModelInfo.photo_min_index``), when it judges that. ``tight_margin``: read the
        corners named under ``SURE_NAME`` (and judged an index) again in a crop cut at
        this margin, joined at ``ModelInfo.photo_tight_share`` (0: not). ``second``: a
        second classifier reads the ``MARGIN`` crops of the corners still unsure after that
        (and judged an index with ``ModelInfo.photo_second_min_index``), joined by
        ``ModelInfo.photo_second_weight`` over ``photo_second_top`` names. ``early_one``:
        the classifier's ``early_one`` (None: ``ModelInfo.early_one_turn``); ``early_sure``
        its ``early_sure`` (None: ``ModelInfo.early_sure``). ``crowded``: a network that
        reads the crowded corners (``neighboured_boxes``) in the same crops and turns, joined at
        ``ModelInfo.photo_crowded_classifier_share``. ``every``: a list the corners are
        added to each named, whatever the naming gates drop (``_read_faces`` pairs them).

        The confidence is the classifier's: the detector's score only says that a corner
        index is there, not which card it names. A learned deck reads the crop it was
        fitted on (``MARGIN``) only, with the features of live mode's classifier; unless
        ``deck_reads_all``, the crops unlike the deck's (which its correction leaves to the
        classifier) take ``classifier``'s reading, photo mode's larger one."""
        if len(found) == 0:
            return found
        one_turn = self.info.early_one_turn if early_one is None else early_one
        views: dict[float, np.ndarray] = {}

        def cut(margin: float) -> np.ndarray:  # each margin's crops cut once, when read
            if margin not in views:
                views[margin] = np.stack([crop_square(image, box, margin)
                                          for box in found.xyxy])
            return views[margin]

        # Whether each crop shows an index at all, when photo mode asks its classifier.
        index_probabilities: np.ndarray | None = None
        judge_index = judge_index and self.info.photo_min_index > 0 and \
            getattr(classifier, "judges_index", False)

        def unsure(probabilities: np.ndarray, min_index: float) -> np.ndarray:
            """The corners named under SURE_NAME that the index head, when asked, judges
            an index with at least ``min_index``: those a second look may read again."""
            doubtful = probabilities.max(axis=1) < SURE_NAME
            if index_probabilities is not None:
                doubtful &= index_probabilities >= min_index
            return np.flatnonzero(doubtful)

        def read_tight(probabilities: np.ndarray) -> None:
            again = unsure(probabilities, self.info.photo_min_index)
            if len(again) == 0:
                return
            crops = [np.stack([crop_square(image, box, tight_margin)
                               for box in found.xyxy[again]])]
            share = self.info.photo_tight_share
            if index_probabilities is None:
                tight = classifier.views_probabilities(crops, orientations=orientations)
            else:
                tight, tight_index = classifier.views_reading(crops, orientations=orientations)
                assert tight_index is not None
                index_probabilities[again] = blended_index(index_probabilities[again],
                                                           tight_index, share)
            probabilities[again] = blended_readings(probabilities[again], tight, share)

        def read_blanked(probabilities: np.ndarray, index: np.ndarray) -> None:
            """Crowded corners read again blanked outside their grown box, that reading
            joining at ``photo_crowded_share``."""
            grow = self.info.photo_crowded_mask
            again = np.flatnonzero(crowded_boxes(found.xyxy, margins[0], grow))
            if len(again) == 0:
                return
            # The first margin's crops, already cut, blanked.
            crops = [np.stack([blanked(crop, box, margins[0], grow) for crop, box in
                               zip(cut(margins[0])[again], found.xyxy[again], strict=True)])]
            reading, reading_index = classifier.views_reading(crops, orientations=orientations)
            assert reading_index is not None
            share = self.info.photo_crowded_share
            probabilities[again] = blended_readings(probabilities[again], reading, share)
            index[again] = blended_index(index[again], reading_index, share)

        def read_crowded(probabilities: np.ndarray) -> None:
            assert crowded is not None
            sureness = probabilities.max(axis=1)
            judged = np.ones(len(found), bool) if index_probabilities is None \
                else index_probabilities >= self.info.photo_min_index
            # The neighbour that misleads is a whole index the photo classifier names
            # surely; a pip's box beside an index is named flatly, and is no neighbour.
            again = judged & neighboured_boxes(found.xyxy, max(margins),
                                               judged & (sureness >= NEIGHBOUR_NAMED))
            if self.info.photo_crowded_below < 1:
                again &= sureness < self.info.photo_crowded_below
            again = np.flatnonzero(again)
            if len(again) == 0:
                return
            other = crowded.views_probabilities([cut(m)[again] for m in margins],
                                                weights=weights, orientations=orientations)
            probabilities[again] = blended_readings(
                probabilities[again], other, self.info.photo_crowded_classifier_share)

        # The second classifier and the text reader read only what this gate passes.
        reread_gate = max(self.info.photo_min_index, self.info.photo_second_min_index)

        def read_second(probabilities: np.ndarray) -> None:
            assert second is not None
            again = unsure(probabilities, reread_gate)
            if len(again) == 0:
                return
            other = second.views_probabilities([cut(MARGIN)[again]], orientations=orientations)
            probabilities[again] = joined_readings(
                probabilities[again], np.log(np.clip(other, 1e-12, None)),
                self.info.photo_second_weight, self.info.photo_second_top)

        def read() -> np.ndarray:
            nonlocal index_probabilities
            views = [cut(m) for m in margins]
            early = self.info.early_sure if early_sure is None else early_sure
            early_views = self.info.photo_early_views
            if judge_index:
                probabilities, index_probabilities = classifier.views_reading(
                    views, weights=weights, orientations=orientations, early_sure=early,
                    early_views=early_views, early_one=one_turn)
            else:
                probabilities = classifier.views_probabilities(
                    views, weights=weights, orientations=orientations, early_sure=early,
                    early_views=early_views, early_one=one_turn)
            if crowded is not None:
                read_crowded(probabilities)
            if index_probabilities is not None and self.info.photo_crowded_mask:
                read_blanked(probabilities, index_probabilities)
            if tight_margin > 0:
                read_tight(probabilities)
            if second is not None:
                read_second(probabilities)
            if text_reader is None:
                return probabilities
            # A name the classifier is sure of is not read again: the text reader costs
            # about 5 ms a crop, and a sure name is right (models/README.md, "Session 18").
            # Nor is a box the index head doubts: ungated, it named pips (session 18).
            doubtful = unsure(probabilities, reread_gate)
            if len(doubtful) and not self._familiar(probabilities, index_probabilities):
                probabilities[doubtful] = joined_readings(
                    probabilities[doubtful],
                    text_reader.log_probabilities(cut(MARGIN)[doubtful]),
                    self.info.photo_text_weight, self.info.photo_text_top)
            return probabilities

        probabilities = None
        if self.deck is not None:
            own = None if deck_reads_all else read()
            probabilities = self.deck.probabilities(cut(MARGIN), own)
            if probabilities is None:
                probabilities = own
        if probabilities is None:
            probabilities = read()
        classes, confidence = probabilities.argmax(axis=1), probabilities.max(axis=1)
        keep = (confidence >= self.info.min_class_conf) & (
            (found.confidence >= self.info.conf) | (confidence >= self.info.faint_class_conf))
        if index_probabilities is not None:
            keep &= index_probabilities >= self.info.photo_min_index
        named = Detections(found.xyxy, confidence, classes.astype(np.int64), CARD_NAMES,
                           probabilities)
        if every is not None:
            every.append(named)
        return named[keep]

    def _familiar(self, probabilities: np.ndarray,
                  index_probabilities: np.ndarray | None = None) -> bool:
        """Whether the classifiers know the photo's deck well enough that the text reader
        stays out: at least ``photo_text_max_sure`` of the corners judged an index (all of
        them, unless ``index_probabilities`` says) are named sure."""
        if self.info.photo_text_max_sure >= 1:
            return False
        sure = probabilities.max(axis=1) >= SURE_NAME
        if index_probabilities is not None:
            sure = sure[index_probabilities >= self.info.photo_min_index]
        return len(sure) > 0 and float(sure.mean()) >= self.info.photo_text_max_sure

    def warm_up(self) -> None:
        grey = np.full((self.info.imgsz, self.info.imgsz, 3), 127, np.uint8)
        self.detect(grey, "live")
        if self.live_locator is not self.locator:
            self.locator.predict(grey, self.info.detector_threshold, self.info.iou)
        if self.photo_classifier is not None and self.photo_classifier is not self.classifier:
            self.photo_classifier.probabilities(np.full((1, CROP, CROP, 3), 127, np.uint8))
