"""Standings as a PNG table, drawn with Pillow and the bundled CJK font, emoji from a system font.

The font (WenQuanYi Micro Hei, Apache-2.0 / GPLv3 with font exception) ships
in `bot/league/fonts/` because users' machines may have no CJK font at all.
It has no emoji, and people put emoji in their names: a character the CJK
font lacks is drawn from the first installed fallback that has it (Noto
Color Emoji from Debian's fonts-noto-color-emoji, in colour; Symbola;
DejaVu Sans), and a character no font has is left out rather than drawn as
an empty box (a name of nothing but such characters shows as "?").

Pillow is loaded by the functions that draw, not with the module: most of a process's life (the
terminal table, a worker that never draws standings) has no use for it, and it took about 40 ms of
the terminal table's 0.58 s of imports.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from bot.league.tables import Table

if TYPE_CHECKING:
    from PIL import ImageDraw, ImageFont

FONT_PATH = Path(__file__).with_name("fonts") / "wqy-microhei.ttc"
# (path, size its glyphs exist at (colour bitmap fonts have one), colour): tried in order.
FALLBACKS: tuple[tuple[str, int | None, bool], ...] = (
    ("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf", 109, True),
    ("/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf", None, False),
    ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", None, False),
)
# Joiners, variation selectors and skin tones: drawn as part of the emoji before them, or not at all.
INVISIBLE = frozenset({0x200D, 0xFE0E, 0xFE0F, *range(0x1F3FB, 0x1F400), *range(0xE0020, 0xE0080)})

FONT_SIZE = 22
TITLE_SIZE = 28
PAD_X = 14
ROW_H = 38
MARGIN = 24
MAX_NAME_PX = 320

BG = (255, 255, 255)
FG = (30, 30, 30)
MUTED = (110, 110, 110)
HEADER_BG = (44, 62, 80)
HEADER_FG = (255, 255, 255)
STRIPE = (241, 244, 248)
UP = (22, 140, 60)
DOWN = (190, 40, 40)


@lru_cache(maxsize=4)
def font(size: int = FONT_SIZE) -> ImageFont.FreeTypeFont:
    """The bundled CJK font at `size` (face 0 of the collection: Micro Hei)."""
    from PIL import ImageFont

    return ImageFont.truetype(str(FONT_PATH), size=size, index=0)


@dataclass(frozen=True)
class _Fallback:
    path: str
    face: ImageFont.FreeTypeFont
    colour: bool


@lru_cache(maxsize=1)
def fallbacks(paths: tuple[tuple[str, int | None, bool], ...] = FALLBACKS) -> tuple[_Fallback, ...]:
    """The fallback fonts installed on this machine, at the size their glyphs are drawn."""
    from PIL import ImageFont

    out = []
    for path, size, colour in paths:
        if Path(path).is_file():
            try:
                out.append(_Fallback(path, ImageFont.truetype(path, size=size or 64), colour))
            except OSError:
                continue
    return tuple(out)


def _mask(f: ImageFont.FreeTypeFont, ch: str) -> bytes:
    return bytes(f.getmask(ch))


@lru_cache(maxsize=8192)
def _has(face: ImageFont.FreeTypeFont, ch: str) -> bool:
    """Whether `face` has a glyph for `ch`: one that is not the font's own missing-glyph box."""
    try:
        bbox = face.getbbox(ch)
    except (OSError, ValueError):
        return False
    if bbox[2] <= bbox[0]:
        return False
    return _mask(face, ch) != _mask(face, "\U0010fffd")


def _runs(text: str, f: ImageFont.FreeTypeFont, use: tuple[_Fallback, ...]) -> list[tuple[str, _Fallback | None]]:
    """The text cut into runs of the main font (None) and of fallbacks; characters nobody has are dropped."""
    runs: list[tuple[str, _Fallback | None]] = []
    for ch in text:
        if ord(ch) in INVISIBLE:
            continue
        src: _Fallback | None = None
        if not (ch.isspace() or _has(f, ch)):
            src = next((fb for fb in use if _has(fb.face, ch)), None)
            if src is None:
                continue  # no font has it: leave it out, never an empty box
        if runs and runs[-1][1] is src:
            runs[-1] = (runs[-1][0] + ch, src)
        else:
            runs.append((ch, src))
    return runs


def visible(text: str, f: ImageFont.FreeTypeFont | None = None, use: tuple[_Fallback, ...] | None = None) -> str:
    """The characters of `text` that will be drawn ("?" when none are)."""
    out = "".join(r for r, _ in _runs(text, f or font(), fallbacks() if use is None else use))
    return out if out.strip() or not text.strip() else "?"


def _run_width(run: str, src: _Fallback | None, f: ImageFont.FreeTypeFont) -> float:
    if src is None:
        return float(f.getlength(run))
    scale = f.size / src.face.size * 1.15
    return float(src.face.getlength(run)) * scale


def text_width(text: str, f: ImageFont.FreeTypeFont, use: tuple[_Fallback, ...] | None = None) -> int:
    """Width of `text` as `draw_text` draws it."""
    use = fallbacks() if use is None else use
    runs = _runs(text, f, use)
    if not runs and text.strip():
        return int(f.getlength("?"))
    return int(sum(_run_width(r, src, f) for r, src in runs))


def draw_text(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, f: ImageFont.FreeTypeFont,
              fill: tuple[int, int, int], *, anchor: str = "la", use: tuple[_Fallback, ...] | None = None) -> None:
    """Draws `text` at `xy` (left edge; top for anchor "la", middle for "lm"), emoji from the fallbacks."""
    use = fallbacks() if use is None else use
    runs = _runs(text, f, use)
    if not runs and text.strip():
        runs = [("?", None)]
    x, y = xy
    for run, src in runs:
        w = _run_width(run, src, f)
        if src is None:
            draw.text((x, y), run, font=f, fill=fill, anchor=anchor)
        else:
            _paste_fallback(draw, (x, y), run, src, f, fill, anchor)
        x += w


def _paste_fallback(draw: ImageDraw.ImageDraw, xy: tuple[float, float], run: str, src: _Fallback,
                    f: ImageFont.FreeTypeFont, fill: tuple[int, int, int], anchor: str) -> None:
    """A run of the fallback font, drawn at its own size and scaled to the line's."""
    from PIL import Image, ImageDraw

    _, _, right, bottom = src.face.getbbox(run)
    tile = Image.new("RGBA", (max(1, int(right)), max(1, int(bottom))), (0, 0, 0, 0))
    ImageDraw.Draw(tile).text((0, 0), run, font=src.face, fill=(*fill, 255), embedded_color=src.colour)
    height = max(1, round(f.size * 1.15))
    width = max(1, round(tile.width * height / tile.height))
    tile = tile.resize((width, height), Image.Resampling.LANCZOS)
    x, y = int(xy[0]), int(xy[1] - height / 2 if anchor.endswith("m") else xy[1])
    image = draw._image  # the image this Draw paints on (Pillow keeps it there)
    image.paste(tile, (x, y), tile)


def _width(draw: ImageDraw.ImageDraw, text: str, f: ImageFont.FreeTypeFont) -> int:
    return text_width(text, f)


def _fit(draw: ImageDraw.ImageDraw, text: str, f: ImageFont.FreeTypeFont, limit: int) -> str:
    """Shorten a long name with an ellipsis so the table keeps its shape."""
    if _width(draw, text, f) <= limit:
        return text
    while text and _width(draw, text + "…", f) > limit:
        text = text[:-1]
    return text + "…"


def render_table(table: Table) -> bytes:
    """The table as PNG bytes: a title, a dark header row, striped rows, notes below."""
    from PIL import Image, ImageDraw

    body, title_font, small = font(FONT_SIZE), font(TITLE_SIZE), font(FONT_SIZE - 4)
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    name_col = 2
    rows = [
        tuple(_fit(probe, cell, body, MAX_NAME_PX) if i == name_col else cell for i, cell in enumerate(row))
        for row in table.rows
    ]
    widths = [_width(probe, h, body) for h in table.headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], _width(probe, cell, body))
    col_w = [w + 2 * PAD_X for w in widths]
    table_w = sum(col_w)
    width = max(
        table_w, _width(probe, table.title, title_font), *(_width(probe, n, small) for n in table.notes), 200
    )
    width += 2 * MARGIN
    title_h = TITLE_SIZE + 20
    notes_h = len(table.notes) * (FONT_SIZE + 6) + (10 if table.notes else 0)
    height = MARGIN + title_h + ROW_H * (len(rows) + 1) + notes_h + MARGIN

    img = Image.new("RGB", (width, height), BG)
    draw = ImageDraw.Draw(img)
    draw_text(draw, (MARGIN, MARGIN), table.title, title_font, FG)
    y = MARGIN + title_h
    draw.rectangle((MARGIN, y, MARGIN + table_w, y + ROW_H), fill=HEADER_BG)
    _draw_row(draw, table.headers, col_w, y, body, HEADER_FG, name_col)
    for i, row in enumerate(rows):
        y += ROW_H
        if i % 2 == 1:
            draw.rectangle((MARGIN, y, MARGIN + table_w, y + ROW_H), fill=STRIPE)
        _draw_row(draw, row, col_w, y, body, FG, name_col)
    y += ROW_H + 10
    for note in table.notes:
        draw_text(draw, (MARGIN, y), note, small, MUTED)
        y += FONT_SIZE + 6
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def _draw_row(
    draw: ImageDraw.ImageDraw,
    cells: tuple[str, ...],
    col_w: list[int],
    y: int,
    f: ImageFont.FreeTypeFont,
    fill: tuple[int, int, int],
    name_col: int,
) -> None:
    x = MARGIN
    for i, cell in enumerate(cells):
        colour = fill
        if i == 1 and fill == FG:
            colour = UP if cell.startswith("▲") else DOWN if cell.startswith("▼") else MUTED
        # names left-aligned, figures right-aligned
        tx = x + PAD_X if i == name_col else x + col_w[i] - PAD_X - _width(draw, cell, f)
        draw_text(draw, (tx, y + ROW_H // 2), cell, f, colour, anchor="lm")
        x += col_w[i]
