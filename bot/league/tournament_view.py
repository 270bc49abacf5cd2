"""A tournament as people see it: the bracket or the table as text, and as a PNG.

The text is for the chat (proportional fonts: no column padding); the
picture draws a knockout as a bracket, boxes joined round to round, and a
round robin or Swiss as the same standings table the league draws.
"""

from __future__ import annotations

import io

from bot.league.picture import (
    FG,
    HEADER_BG,
    HEADER_FG,
    MUTED,
    STRIPE,
    UP,
    draw_text,
    font,
    render_table,
    text_width,
)
from bot.league.tables import Table
from bot.league.texts import t
from bot.league.tournament import BOTH, Pairing, Tournament

BOX_W, BOX_H, GAP_X, GAP_Y, MARGIN, TITLE_H = 250, 64, 46, 18, 24, 56


def round_name(tour: Tournament, round_no: int, lang: str) -> str:
    if tour.fmt != "knockout":
        return t("tour_round", lang, n=round_no)
    left = tour.rounds - round_no
    if left == 0:
        if tour.final_best_of > 1:
            return t("tour_final", lang, n=tour.final_best_of, need=tour.final_best_of // 2 + 1)
        return t("tour_final_one", lang)
    if left == 1:
        return t("tour_semi", lang)
    if left == 2:
        return t("tour_quarter", lang)
    return t("tour_round", lang, n=round_no)


def team_label(tour: Tournament, no: int | None, lang: str) -> str:
    if no is None:
        return t("tour_bye", lang)
    e = tour.entrant(no)
    who = " & ".join(m.name if not m.is_ai else t("ai", lang) for m in e.members)
    seed = f"[{e.seed}] " if e.seed else ""
    return f"{seed}{e.name} ({who})" if who and who != e.name else f"{seed}{e.name}"


def _short(tour: Tournament, no: int | None, lang: str) -> str:
    if no is None:
        return t("tour_bye", lang)
    e = tour.entrant(no)
    return f"[{e.seed}] {e.name}" if e.seed else e.name


def pairing_line(tour: Tournament, p: Pairing, lang: str) -> str:
    a, b = _short(tour, p.a, lang), _short(tour, p.b, lang)
    if (p.a is not None and p.b is None) or (p.a is None and p.b is not None):
        if tour.fmt == "knockout" and p.round > 1 and not p.done:  # the other side is still playing
            known = a if p.a is not None else b
            return f"{known} — ? · {t('tour_waiting', lang)}"
        return t("tour_line_bye", lang, team=a if p.a is not None else b)
    wins = p.game_wins()
    score = f"{wins[0]}:{wins[1]}" if p.best_of > 1 and p.games else ""
    if p.forfeit == BOTH:
        state = t("tour_double_forfeit", lang)
    elif p.forfeit is not None and p.winner is not None:
        state = t("tour_won_forfeit", lang, team=_short(tour, p.winner, lang))
    elif p.winner is not None:
        state = t("tour_won", lang, team=_short(tour, p.winner, lang)) + (f" {score}" if score else "")
    elif p.match_id is not None:
        state = t("tour_playing", lang, id=p.match_id) + (f" {score}" if score else "")
    elif p.a is None or p.b is None:
        state = t("tour_waiting", lang)
    else:
        state = t("tour_next", lang) + (f" {score}" if score else "")
    return f"{a} — {b} · {state}"


def standings_table(tour: Tournament, lang: str) -> Table:
    headers = (t("col_pos", lang), "", t("col_team", lang), t("col_matches", lang), t("col_wins", lang),
               t("col_big", lang), t("col_small", lang))
    rows = tuple((str(r.position), "", r.entrant.name, str(r.played), str(r.won), str(r.big), str(r.small))
                 for r in tour.table())
    return Table(title(tour, lang), headers, rows, (t("tour_rank_note", lang),))


def title(tour: Tournament, lang: str) -> str:
    how = t("tour_seeded", lang) if tour.seeded else t("tour_drawn", lang)
    fmt = t(f"tour_fmt_{tour.fmt}", lang)
    return t("tour_title", lang, id=tour.id, fmt=fmt, how=how, preset=tour.preset)


def tournament_text(tour: Tournament, lang: str) -> str:
    lines = [title(tour, lang)]
    if tour.status == "open":
        lines.append(t("tour_entrants", lang, n=len(tour.entrants)))
        lines += [f"{e.no}. {team_label(tour, e.no, lang)}" + ("" if e.full else " " + t("tour_needs_partner", lang))
                  for e in tour.entrants]
        return "\n".join(lines)
    if tour.fmt != "knockout":
        table = standings_table(tour, lang)
        lines += [f"{r[0]}. {r[2]} — {' · '.join(r[3:])}" for r in table.rows]
        lines.append(" · ".join(table.headers[3:]))
    shown = range(1, tour.rounds + 1) if tour.fmt == "knockout" else [tour.current_round()]
    for r in shown:
        ps = sorted((p for p in tour.pairings if p.round == r), key=lambda p: p.slot)
        if not ps:
            continue
        lines.append(round_name(tour, r, lang))
        lines += ["  " + pairing_line(tour, p, lang) for p in ps]
    champ = tour.champion()
    if champ is not None:
        lines.append(t("tour_champion", lang, team=team_label(tour, champ.no, lang)))
    elif tour.status == "cancelled":
        lines.append(t("tour_cancelled", lang))
    return "\n".join(lines)


def tournament_png(tour: Tournament, lang: str) -> bytes | None:
    if tour.status == "open":
        return None
    if tour.fmt != "knockout":
        return render_table(standings_table(tour, lang))
    return _bracket_png(tour, lang)


def _bracket_png(tour: Tournament, lang: str) -> bytes:
    from PIL import Image, ImageDraw  # loaded when drawn (bot/league/picture.py says why)

    body, small, big = font(18), font(14), font(24)
    first = sorted((p for p in tour.pairings if p.round == 1), key=lambda p: p.slot)
    rows = len(first)
    width = MARGIN * 2 + tour.rounds * BOX_W + (tour.rounds - 1) * GAP_X
    width = max(width, text_width(title(tour, lang), big) + 2 * MARGIN)
    height = MARGIN * 2 + TITLE_H + 28 + rows * (BOX_H + GAP_Y)
    img = Image.new("RGB", (width, height), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    draw_text(draw, (MARGIN, MARGIN), title(tour, lang), big, FG)
    top = MARGIN + TITLE_H
    centres: dict[tuple[int, int], float] = {}
    for r in range(1, tour.rounds + 1):
        x = MARGIN + (r - 1) * (BOX_W + GAP_X)
        draw_text(draw, (x, top), round_name(tour, r, lang), small, MUTED)
        span = (BOX_H + GAP_Y) * (1 << (r - 1))
        for p in sorted((p for p in tour.pairings if p.round == r), key=lambda p: p.slot):
            cy = top + 28 + p.slot * span + span / 2 - GAP_Y / 2
            centres[(r, p.slot)] = cy
            y0 = int(cy - BOX_H / 2)
            draw.rectangle((x, y0, x + BOX_W, y0 + BOX_H), fill=STRIPE, outline=HEADER_BG)
            wins = p.game_wins()
            for i, no in enumerate((p.a, p.b)):
                y = y0 + 6 + i * (BOX_H // 2)
                won = p.winner is not None and p.winner == no
                if won:
                    draw.rectangle((x + 1, y - 5, x + BOX_W - 1, y + BOX_H // 2 - 7), fill=HEADER_BG)
                label = _short(tour, no, lang) if (no is not None or p.done or r == 1) else ""
                colour = HEADER_FG if won else (MUTED if no is None else FG)
                draw_text(draw, (x + 8, y), _fit(label, body, BOX_W - 50), body, colour)
                if p.games and p.best_of > 1:
                    draw_text(draw, (x + BOX_W - 24, y), str(wins[i]), body, HEADER_FG if won else UP)
            if r > 1:
                for feeder in (2 * p.slot, 2 * p.slot + 1):
                    fy = centres.get((r - 1, feeder))
                    if fy is not None:
                        mid = x - GAP_X // 2
                        draw.line((x - GAP_X, fy, mid, fy), fill=HEADER_BG, width=2)
                        draw.line((mid, fy, mid, cy), fill=HEADER_BG, width=2)
                draw.line((x - GAP_X // 2, cy, x, cy), fill=HEADER_BG, width=2)
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def _fit(text: str, f: object, limit: int) -> str:
    if text_width(text, f) <= limit:  # type: ignore[arg-type]
        return text
    while text and text_width(text + "…", f) > limit:  # type: ignore[arg-type]
        text = text[:-1]
    return text + "…"
