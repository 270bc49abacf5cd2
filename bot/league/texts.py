"""The league's texts: its keys in the host's catalogs (`league.<key>` in bot/locales)."""

from __future__ import annotations

from bot.i18n import N_, tr

# Marked for `make messages`: the league asks for them as t("help", lang).
KEYS: tuple[str, ...] = (
    N_("league.help"), N_("league.group_only"), N_("league.admins_only"), N_("league.no_matches"),
    N_("league.standings_title"), N_("league.standings_title_all"), N_("league.provisional_note"),
    N_("league.method_rating"), N_("league.method_bigsmall"), N_("league.method_matchpoints"),
    N_("league.method_plain"), N_("league.col_pos"), N_("league.col_move"), N_("league.col_player"),
    N_("league.col_matches"), N_("league.col_wins"), N_("league.col_rating"), N_("league.col_big"),
    N_("league.col_small"), N_("league.col_points"), N_("league.col_standard"), N_("league.col_winrate"),
    N_("league.move_new"), N_("league.player_not_found"), N_("league.player_no_matches"),
    N_("league.stats_title"), N_("league.stats_scope_season"), N_("league.stats_scope_chat"),
    N_("league.stats_scope_career"), N_("league.stats_line"), N_("league.stats_scores"),
    N_("league.stats_partner"), N_("league.history_title"), N_("league.history_line"),
    N_("league.result_won"), N_("league.ending_target"), N_("league.ending_time_limit"),
    N_("league.ending_forfeit"), N_("league.ending_abandoned"), N_("league.season_info"),
    N_("league.season_started"), N_("league.ranking_set"), N_("league.ranking_unknown"),
    N_("league.ranking_info"), N_("league.export_done"), N_("league.ai"),
    N_("league.standings_unknown"), N_("league.no_matches_season"), N_("league.pairs_title"),
    N_("league.pairs_title_all"), N_("league.col_pair"), N_("league.replay_usage"), N_("league.replay_not_found"),
    N_("league.replay_still_playing"), N_("league.replay_board_not_played"), N_("league.col_dup"),
    N_("league.dup_note"), N_("league.result_dup_won"), N_("league.result_dup_tie"), N_("league.stats_dup"),
    N_("league.replay_title"), N_("league.replay_hand_line"), N_("league.replay_board_line"),
    N_("league.replay_won_declarers"), N_("league.replay_won_defenders"), N_("league.replay_unfinished_hand"),
    N_("league.replay_no_hand"), N_("league.replay_hand_title"), N_("league.replay_more"),
    N_("league.tour_round"), N_("league.tour_final"), N_("league.tour_no_store"), N_("league.tour_final_one"), N_("league.tour_semi"),
    N_("league.tour_quarter"), N_("league.tour_bye"), N_("league.tour_line_bye"),
    N_("league.tour_double_forfeit"), N_("league.tour_won_forfeit"), N_("league.tour_won"),
    N_("league.tour_playing"), N_("league.tour_waiting"), N_("league.tour_next"), N_("league.col_team"),
    N_("league.tour_rank_note"), N_("league.tour_seeded"), N_("league.tour_drawn"),
    N_("league.tour_fmt_knockout"), N_("league.tour_fmt_roundrobin"), N_("league.tour_fmt_swiss"),
    N_("league.tour_title"), N_("league.tour_entrants"), N_("league.tour_needs_partner"),
    N_("league.tour_champion"), N_("league.tour_cancelled"), N_("league.tour_help"), N_("league.tour_none"),
    N_("league.tour_created"), N_("league.tour_exists"), N_("league.tour_bad_format"),
    N_("league.tour_bad_option"), N_("league.tour_team_created"), N_("league.tour_joined"),
    N_("league.tour_left"), N_("league.tour_ai_added"), N_("league.tour_ai_team"), N_("league.tour_started"),
    N_("league.tour_forfeited"), N_("league.tour_cancelled_now"), N_("league.tour_usage_team"),
    N_("league.tour_match_open"), N_("league.tour_result"), N_("league.tour_err_not_open"),
    N_("league.tour_err_team_name"), N_("league.tour_err_already_in"), N_("league.tour_err_name_taken"),
    N_("league.tour_err_full"), N_("league.tour_err_no_team"), N_("league.tour_err_team_full"),
    N_("league.tour_err_not_in"), N_("league.tour_err_too_few"), N_("league.tour_err_no_pairing"),
    N_("league.tour_err_already_decided"), N_("league.tour_err_not_in_pairing"),
    N_("league.tour_not_running"),
)


def t(key: str, lang: str, **params: object) -> str:
    """The league's text for `key` in `lang`, formatted."""
    return tr(lang, f"league.{key}", **params)
