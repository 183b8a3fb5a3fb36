"""Procedural table surfaces: felt, wood, cloth, paper, noise, a white table; stone and
tiles are kept for validation scenes only, so the val split measures unseen surfaces.

Every function takes a numpy Generator and a size and returns an SxSx3 float32 image in
[0, 1]; nothing is read from disk, so a fresh machine needs no photos.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

Rng = np.random.Generator


def smooth_noise(rng: Rng, size: int, cells: int, channels: int = 1) -> np.ndarray:
    """Value noise: a coarse random grid blown up with cubic interpolation, in [0, 1]."""
    grid = rng.random((cells + 1, cells + 1, channels)).astype(np.float32)
    out = cv2.resize(grid, (size, size), interpolation=cv2.INTER_CUBIC)
    out = out.reshape(size, size, channels)
    return np.clip(out, 0.0, 1.0)


def fractal_noise(rng: Rng, size: int, octaves: int = 4, base: int = 3) -> np.ndarray:
    """Sum of value-noise octaves (1/f), normalised to [0, 1]; single channel, SxS."""
    total = np.zeros((size, size), np.float32)
    weight = 1.0
    for octave in range(octaves):
        total += weight * smooth_noise(rng, size, base * 2**octave)[:, :, 0]
        weight *= 0.5
    total -= total.min()
    return total / max(float(total.max()), 1e-6)


def _colour(rng: Rng, palette: list[tuple[int, int, int]], jitter: float = 0.12) -> np.ndarray:
    base = np.array(palette[rng.integers(len(palette))], np.float32) / 255.0
    return np.clip(base * rng.uniform(1 - jitter, 1 + jitter, 3), 0.0, 1.0)


def felt(rng: Rng, size: int) -> np.ndarray:
    colour = _colour(rng, [(20, 100, 45), (15, 80, 40), (25, 60, 120), (110, 20, 30),
                           (60, 60, 65), (30, 30, 35), (90, 30, 90)])
    fibres = rng.normal(0.0, 0.05, (size, size, 1)).astype(np.float32)
    fibres = cv2.GaussianBlur(fibres, (0, 0), 0.7).reshape(size, size, 1)
    shade = 0.85 + 0.3 * fractal_noise(rng, size, 3)[:, :, None]
    return np.clip(colour * shade + fibres, 0.0, 1.0)


def wood(rng: Rng, size: int) -> np.ndarray:
    light = _colour(rng, [(200, 160, 110), (170, 120, 75), (220, 190, 150), (120, 80, 50),
                          (90, 60, 40)])
    dark = light * rng.uniform(0.55, 0.8)
    y, x = np.mgrid[0:size, 0:size].astype(np.float32) / size
    warp = fractal_noise(rng, size, 3, base=2) * rng.uniform(2.0, 6.0)
    freq = rng.uniform(12.0, 40.0)
    grain = 0.5 + 0.5 * np.sin((x * freq + warp) * 2 * np.pi)
    grain = grain**rng.uniform(1.0, 3.0)
    planks = rng.integers(1, 6)
    seams = (np.abs(((y * planks) % 1.0) - 0.5) > 0.497).astype(np.float32) if planks > 1 else 0
    t = (grain * 0.8 + 0.2 * fractal_noise(rng, size, 4, base=8))[:, :, None]
    out = light * (1 - t) + dark * t
    out = out * (1 - 0.5 * np.asarray(seams, np.float32)[..., None] if planks > 1 else 1)
    angle = rng.uniform(0, 180)
    rot = cv2.getRotationMatrix2D((size / 2, size / 2), angle, 1.45)
    return cv2.warpAffine(out.astype(np.float32), rot, (size, size),
                          borderMode=cv2.BORDER_REFLECT)


def cloth(rng: Rng, size: int) -> np.ndarray:
    base = _colour(rng, [(180, 40, 40), (40, 60, 140), (200, 190, 170), (60, 120, 80),
                         (230, 230, 225), (140, 110, 160), (210, 180, 60)], 0.2)
    other = _colour(rng, [(250, 250, 250), (20, 20, 30), (200, 60, 60), (60, 90, 170)], 0.2)
    y, x = np.mgrid[0:size, 0:size].astype(np.float32)
    weave_period = rng.uniform(2.5, 6.0)
    weave = 0.5 + 0.25 * (np.sin(x * 2 * np.pi / weave_period)
                          * np.sin(y * 2 * np.pi / weave_period))
    out = base * (0.8 + 0.35 * weave[:, :, None])
    if rng.random() < 0.6:  # plaid or stripes
        period = rng.uniform(size / 12, size / 3)
        width = rng.uniform(0.1, 0.4)
        bands_x = ((x / period) % 1.0) < width
        bands_y = ((y / period) % 1.0) < width if rng.random() < 0.6 else np.zeros_like(bands_x)
        mix = (bands_x.astype(np.float32) + bands_y.astype(np.float32))[:, :, None] * 0.35
        out = out * (1 - mix) + other * mix
    out *= 0.85 + 0.25 * fractal_noise(rng, size, 3)[:, :, None]
    angle = rng.uniform(0, 180)
    rot = cv2.getRotationMatrix2D((size / 2, size / 2), angle, 1.45)
    return np.clip(cv2.warpAffine(out.astype(np.float32), rot, (size, size),
                                  borderMode=cv2.BORDER_REFLECT), 0, 1)


def paper(rng: Rng, size: int) -> np.ndarray:
    colour = _colour(rng, [(245, 243, 235), (235, 230, 210), (250, 250, 250), (225, 225, 230),
                           (200, 185, 150)], 0.05)
    fibres = cv2.GaussianBlur(rng.normal(0, 0.03, (size, size)).astype(np.float32), (0, 0), 1.2)
    out = colour * (0.92 + 0.1 * fractal_noise(rng, size, 5, base=4))[:, :, None]
    out = out + fibres[:, :, None]
    if rng.random() < 0.4:  # ruled or squared paper
        step = int(rng.uniform(size / 30, size / 10))
        line = np.array([0.55, 0.65, 0.85], np.float32) * rng.uniform(0.7, 1.0)
        out[::step, :] = out[::step, :] * 0.4 + line * 0.6
        if rng.random() < 0.5:
            out[:, ::step] = out[:, ::step] * 0.4 + line * 0.6
    return np.clip(out, 0, 1)


def noise(rng: Rng, size: int) -> np.ndarray:
    channels = [fractal_noise(rng, size, int(rng.integers(2, 6)), base=int(rng.integers(2, 12)))
                for _ in range(3)]
    out = np.stack(channels, axis=2)
    low, high = sorted(rng.uniform(0.0, 1.0, 2))
    return np.clip(low + (high - low + 0.2) * out, 0, 1).astype(np.float32)


def white(rng: Rng, size: int) -> np.ndarray:
    """A white or light grey table, as in the phone photos the detector must read."""
    level = rng.uniform(0.75, 1.0)
    tint = rng.uniform(0.95, 1.03, 3)
    out = np.full((size, size, 3), level, np.float32) * tint
    out *= (0.94 + 0.08 * fractal_noise(rng, size, 3))[:, :, None]
    out += rng.normal(0, 0.01, (size, size, 1)).astype(np.float32)
    return np.clip(out, 0, 1).astype(np.float32)


def stone(rng: Rng, size: int) -> np.ndarray:
    """Marble-like veins (validation only)."""
    base = _colour(rng, [(230, 228, 222), (60, 60, 62), (190, 180, 170), (120, 130, 120)], 0.08)
    vein = _colour(rng, [(90, 90, 95), (200, 200, 200), (150, 120, 90)], 0.1)
    turbulence = fractal_noise(rng, size, 5, base=3) * rng.uniform(4, 10)
    y, x = np.mgrid[0:size, 0:size].astype(np.float32) / size
    v = np.abs(np.sin((x * rng.uniform(2, 5) + y * rng.uniform(0, 3) + turbulence) * np.pi))
    t = (1 - v)[:, :, None] ** rng.uniform(6, 20)
    return np.clip(base * (1 - t) + vein * t, 0, 1).astype(np.float32)


def tiles(rng: Rng, size: int) -> np.ndarray:
    """Square tiles with grout (validation only)."""
    colour = _colour(rng, [(200, 200, 195), (150, 90, 60), (60, 100, 130), (230, 220, 200)])
    grout = colour * rng.uniform(0.4, 0.8)
    step = int(rng.uniform(size / 8, size / 3))
    y, x = np.mgrid[0:size, 0:size]
    lines = ((x % step) < 3) | ((y % step) < 3)
    out = colour * (0.9 + 0.15 * fractal_noise(rng, size, 4))[:, :, None]
    out[lines] = grout
    return np.clip(out, 0, 1).astype(np.float32)


BACKGROUNDS: dict[str, Callable[[Rng, int], np.ndarray]] = {
    "felt": felt, "wood": wood, "cloth": cloth, "paper": paper, "noise": noise, "white": white,
    "stone": stone, "tiles": tiles,
}
TRAIN_BACKGROUNDS = ("felt", "wood", "cloth", "paper", "noise", "white")
VAL_BACKGROUNDS = ("stone", "tiles", "white")


def background(rng: Rng, size: int, kinds: tuple[str, ...] = TRAIN_BACKGROUNDS) -> np.ndarray:
    return BACKGROUNDS[kinds[rng.integers(len(kinds))]](rng, size).astype(np.float32)
