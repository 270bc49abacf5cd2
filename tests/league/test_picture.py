"""The standings picture: a real PNG, not blank, with Chinese names really drawn."""

from __future__ import annotations

import io

from PIL import Image, ImageChops

from bot.league.picture import FONT_PATH, font, render_table
from bot.league.standings import standings
from bot.league.tables import Table, standings_table
from tests.league.sim import match

MISSING = "\U000f0000"  # a private-use code point the font has no glyph for


def _png(data: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(data))
    img.load()
    return img


def _table(names: tuple[str, str, str, str], lang: str = "zh") -> Table:
    season = [match(1, (names[0], names[1]), (names[2], names[3]), 0, (12, 5))]
    rows = standings(season, "bigsmall")
    return standings_table(rows, "bigsmall", {}, lang, title="排名 · 第1赛季")


class TestFont:
    def test_font_is_bundled(self) -> None:
        assert FONT_PATH.is_file() and FONT_PATH.stat().st_size > 1_000_000
        assert (FONT_PATH.parent / "COPYRIGHT-wqy-microhei.txt").is_file()

    def test_font_has_real_cjk_glyphs(self) -> None:
        f = font(40)
        missing = f.getmask(MISSING)
        for ch in "张王李赵拖拉机大分小分":
            mask = f.getmask(ch)
            assert mask.getbbox() is not None, ch
            assert (mask.size, bytes(mask)) != (missing.size, bytes(missing)), ch
        # two different characters draw differently (no shared fallback box)
        assert bytes(f.getmask("张")) != bytes(f.getmask("李"))


class TestRender:
    def test_png_shape_and_content(self) -> None:
        img = _png(render_table(_table(("张三", "李四", "Alice", "王五"))))
        assert img.format == "PNG" and img.mode == "RGB"
        width, height = img.size
        assert 300 <= width <= 2000
        assert height >= 24 * 2 + 38 * 5  # margins + header + four rows
        colours = img.getcolors(maxcolors=1_000_000)
        assert colours is not None and len(colours) > 10  # text, antialiasing, stripes, header

    def test_chinese_names_differ_from_missing_glyph_boxes(self) -> None:
        real = _png(render_table(_table(("张三", "李四", "Alice", "王五"))))
        boxes = _png(render_table(_table((MISSING * 2, MISSING * 2, "Alice", MISSING * 2))))
        if real.size == boxes.size:
            assert ImageChops.difference(real, boxes).getbbox() is not None
        # and a table with different Chinese names draws differently again
        other = _png(render_table(_table(("赵六", "李四", "Alice", "王五"))))
        if other.size == real.size:
            assert ImageChops.difference(real, other).getbbox() is not None

    def test_long_names_are_shortened(self) -> None:
        long = "很长的名字" * 30
        img = _png(render_table(_table((long, "B", "C", "D"))))
        assert img.size[0] < 1200

    def test_english_table(self) -> None:
        table = _table(("Ann", "Ben", "Cat", "Dan"), lang="en")
        assert table.headers[:3] == ("#", "±", "Player")
        img = _png(render_table(table))
        assert img.getbbox() is not None
