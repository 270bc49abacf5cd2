"""One standings table, as header + rows of strings, shared by the text and the picture."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.league.ratings import PROVISIONAL_MATCHES
from bot.league.standings import Method, Standing
from bot.league.texts import t


@dataclass(frozen=True)
class Table:
    """What a standings message shows: a title, the column headers, the rows and footnotes."""

    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...] = ()


def fmt_number(x: float) -> str:
    """1.5 stays 1.5; 3.0 shows as 3."""
    return f"{x:.1f}".rstrip("0").rstrip(".") if x != int(x) else str(int(x))


def fmt_move(move: int | None, lang: str) -> str:
    if move is None:
        return t("move_new", lang)
    if move > 0:
        return f"▲{move}"
    if move < 0:
        return f"▼{-move}"
    return "="


def method_label(method: Method, lang: str) -> str:
    return t(f"method_{method}", lang)


def method_headers(method: Method, lang: str) -> list[str]:
    """The columns a ranking method adds after place, movement, name, matches and wins.

    Players' standings and pairs' tables show the same figures for a method, so they head them alike.
    """
    if method == "rating":
        return [t("col_rating", lang)]
    if method == "bigsmall":
        return [t("col_big", lang), t("col_small", lang)]
    if method == "matchpoints":
        return [t("col_points", lang), t("col_standard", lang)]
    return [t("col_winrate", lang)]


def standings_table(
    rows: Sequence[Standing],
    method: Method,
    moves: dict[str, int | None],
    lang: str,
    *,
    title: str,
) -> Table:
    """Columns: place, movement, player, matches, wins, then the method's own figures."""
    headers = [
        t("col_pos", lang),
        t("col_move", lang),
        t("col_player", lang),
        t("col_matches", lang),
        t("col_wins", lang),
    ]
    headers += method_headers(method, lang)
    dup = any(s.record.dup_matches for s in rows)
    if dup:  # duplicate team matches in their own column: won-tied-lost, match points for:against
        headers.append(t("col_dup", lang))
    notes = [t("provisional_note", lang, n=PROVISIONAL_MATCHES)] if method == "rating" else []
    if dup:
        notes.append(t("dup_note", lang))
    out: list[tuple[str, ...]] = []
    for s in rows:
        r = s.record
        line = [str(s.position), fmt_move(moves.get(s.user_id), lang), s.name, str(r.matches), str(r.wins)]
        if method == "rating":
            line.append(f"{s.rating.ordinal:.1f}" + ("?" if s.rating.provisional else ""))
        elif method == "bigsmall":
            line += [str(r.big), str(r.small)]
        elif method == "matchpoints":
            line += [f"{r.points:.1f}", str(r.standard)]  # one decimal in every row: the points line up
        else:
            line.append(f"{round(100 * r.win_rate)}%")
        if dup:
            line.append(f"{r.dup_wins}-{r.dup_ties}-{r.dup_losses} {r.dup_for}:{r.dup_against}"
                        if r.dup_matches else "–")
        out.append(tuple(line))
    return Table(title, tuple(headers), tuple(out), tuple(notes))


def table_text(table: Table) -> str:
    """A plain-text rendering: one line per player (chat fonts are proportional, so no column padding)."""
    lines = [table.title, " · ".join(table.headers[2:])]
    for row in table.rows:
        pos, move, name, *rest = row
        shown = f"{name} ({move})" if move else name
        lines.append(f"{pos}. {shown} — " + " · ".join(rest))
    lines.extend(table.notes)
    return "\n".join(lines)
