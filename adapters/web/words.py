"""The words of the web page, from the same catalogs as the chats (`bot/locales`), served as JSON.

The page draws the scene itself, so it needs the texts rather than finished lines: those of the
table, the hand's buttons and the end of a hand that the chats use too (`table.*`, `btn.*`,
`result.*`, ...), and a few of its own (`web.*`), all in 简体中文, 繁體中文 and English. A plural
text comes with its forms, and the page picks one as gettext would (English: one, else other).
"""

from __future__ import annotations

from functools import cache

from bot.i18n import LANGS, N_, forms

#: The page's own texts (marked so that `make messages` keeps them).
PAGE_KEYS = (
    N_("web.hand"), N_("web.level"), N_("web.trump"), N_("web.team_points"), N_("web.defends"), N_("web.declares"),
    N_("web.you"), N_("web.dealer"), N_("web.hint"), N_("web.your_turn"), N_("web.lobby"), N_("web.reconnecting"),
    N_("web.replay"), N_("web.close"), N_("web.prev"), N_("web.next"), N_("web.trick_of"), N_("web.last_trick"),
    N_("web.select_first"), N_("web.kitty"), N_("web.points"), N_("web.no_hand"), N_("web.go_on"),
    N_("web.refused_forged"), N_("web.refused_expired"), N_("web.refused_malformed"), N_("web.refused_no_table"),
    N_("web.refused_not_seated"), N_("web.review"), N_("web.next_flag"), N_("web.no_review"),
    N_("web.refused_flood"), N_("web.refused_replaced"), N_("web.team_level"), N_("web.stake"), N_("web.next_step"),
    N_("web.declared"), N_("web.next_game"),
    # an act refused before it reaches the table (`WebTable.act`), each with its own words
    N_("web.refused_onlooker"), N_("web.refused_bad_act"), N_("web.refused_bad_cards"), N_("web.refused_bad_version"),
    N_("web.refused_bad_frame"),
)
#: The chats' texts the page draws too, by prefix.
SHARED_PREFIXES = ("btn.", "table.", "result.", "team.", "phase.", "reason.", "seat.", "hand.trumps",
                   "hand.trump_so_far", "hand.kitty", "refuse.", "series.over", "series.next", "board.table_done",
                   "dup.dir_", "forfeit.done")


@cache
def page_words(lang: str) -> dict[str, object]:
    """Every text the page draws, in `lang` (English where a text is missing): key -> its forms."""
    lang = lang if lang in LANGS else "en"
    ours, en = forms(lang), forms("en")
    words = {key: list(ours.get(key) or texts) for key, texts in en.items()
             if key in PAGE_KEYS or key.startswith(SHARED_PREFIXES)}
    return {"lang": lang, "plural": "en" if lang == "en" else "one", "words": words}
