"""Standings as a PNG table, drawn with Pillow and the bundled CJK font.

The font (WenQuanYi Micro Hei, Apache-2.0 / GPLv3 with font exception) ships
in `bot/league/fonts/` because users' machines may have no CJK font at all.
"""

from __future__ import annotations

import io
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from bot.league.tables import Table

FONT_PATH = Path(__file__).with_name("fonts") / "wqy-microhei.ttc"

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
    return ImageFont.truetype(str(FONT_PATH), size=size, index=0)


def _width(draw: ImageDraw.ImageDraw, text: str, f: ImageFont.FreeTypeFont) -> int:
    left, _, right, _ = draw.textbbox((0, 0), text, font=f)
    return int(right - left)


def _fit(draw: ImageDraw.ImageDraw, text: str, f: ImageFont.FreeTypeFont, limit: int) -> str:
    """Shorten a long name with an ellipsis so the table keeps its shape."""
    if _width(draw, text, f) <= limit:
        return text
    while text and _width(draw, text + "…", f) > limit:
        text = text[:-1]
    return text + "…"


def render_table(table: Table) -> bytes:
    """The table as PNG bytes: a title, a dark header row, striped rows, notes below."""
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
    draw.text((MARGIN, MARGIN), table.title, font=title_font, fill=FG)
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
        draw.text((MARGIN, y), note, font=small, fill=MUTED)
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
        draw.text((tx, y + ROW_H // 2), cell, font=f, fill=colour, anchor="lm")
        x += col_w[i]
