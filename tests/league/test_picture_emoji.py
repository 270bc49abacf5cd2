"""Emoji in names: drawn from an installed emoji font, or left out, never as the missing-glyph box."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageDraw

from bot.league.picture import draw_text, fallbacks, font, render_table, text_width, visible
from bot.league.tables import Table

BOX = "\U000f0000"  # a private-use code point: the font draws its missing-glyph box for it


def _strip(text: str, use: tuple = ()) -> Image.Image:  # type: ignore[type-arg]
    f = font(30)
    img = Image.new("RGB", (400, 60), (255, 255, 255))
    draw_text(ImageDraw.Draw(img), (5, 30), text, f, (0, 0, 0), anchor="lm", use=use)
    return img


def test_without_an_emoji_font_emoji_are_left_out_not_boxed() -> None:
    assert visible("🐼熊猫", use=()) == "熊猫"
    assert visible("👨‍👩‍👧 Ann ✨", use=()) == " Ann "
    assert visible("🐼🔥", use=()) == "?"  # nothing left: a mark, not an empty name
    assert _strip("🐼熊猫").tobytes() == _strip("熊猫").tobytes()
    assert _strip("熊猫" + BOX).tobytes() == _strip("熊猫").tobytes()  # the box itself is never drawn
    assert text_width("🐼熊猫", font(30), use=()) == text_width("熊猫", font(30), use=())


def test_the_main_font_draws_what_it_has() -> None:
    assert visible("张三 Bob ♠", use=()) == "张三 Bob ♠"


@pytest.mark.skipif(not any(fb.colour for fb in fallbacks()), reason="no colour emoji font installed")
def test_an_installed_colour_emoji_font_draws_emoji_in_colour() -> None:
    assert visible("🐼熊猫") == "🐼熊猫"
    with_emoji, without = _strip("🐼熊猫", fallbacks()), _strip("熊猫", fallbacks())
    assert with_emoji.tobytes() != without.tobytes()
    colours = {with_emoji.getpixel((x, y)) for x in range(0, 60) for y in range(10, 50)} - {(0, 0, 0), (255, 255, 255)}
    colours = {c for c in colours if isinstance(c, tuple) and len(set(c)) > 1}
    assert colours, "the panda is drawn in colour"
    png = render_table(Table("🏆", ("#", "", "Player"), (("1", "=", "🐼熊猫"),)))
    assert Image.open(io.BytesIO(png)).format == "PNG"
