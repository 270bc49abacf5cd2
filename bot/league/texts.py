"""Every string the league shows, in English and 简体中文."""

from __future__ import annotations

from typing import Any

TEXTS: dict[str, dict[str, str]] = {
    "help": {
        "en": "League commands: standings [N] [all] [method] · stats [player] · history [N] · season [new [method]] · "
        "ranking [rating|bigsmall|matchpoints|plain] · export [all]",
        "zh": "联赛命令：standings [N] [all] [排名方式] 排名 · stats [玩家] 战绩 · history [N] 最近对局 · "
        "season [new [排名方式]] 赛季 · ranking [rating|bigsmall|matchpoints|plain] 排名方式 · export [all] 导出",
    },
    "group_only": {
        "en": "Leagues belong to group chats: use this command in the group.",
        "zh": "联赛属于群聊，请在群里使用这个命令。",
    },
    "admins_only": {"en": "Only a chat admin can do that.", "zh": "只有群管理员可以这样做。"},
    "no_matches": {
        "en": "No finished matches in this league yet.",
        "zh": "本联赛还没有完成的对局。",
    },
    "standings_title": {
        "en": "Standings · season {season} · {method}",
        "zh": "排名 · 第{season}赛季 · {method}",
    },
    "standings_title_all": {"en": "Standings · all time · {method}", "zh": "排名 · 历史总榜 · {method}"},
    "provisional_note": {
        "en": "? = provisional (fewer than {n} rated matches)",
        "zh": "? = 暂定（评分对局少于{n}场）",
    },
    "method_rating": {"en": "skill rating (OpenSkill)", "zh": "技术等级分（OpenSkill）"},
    "method_bigsmall": {"en": "大分/小分 (doc 001)", "zh": "大分/小分（文件001）"},
    "method_matchpoints": {"en": "场分 (doc 004)", "zh": "场分（文件004）"},
    "method_plain": {"en": "wins", "zh": "胜场"},
    "col_pos": {"en": "#", "zh": "名次"},
    "col_move": {"en": "±", "zh": "升降"},
    "col_player": {"en": "Player", "zh": "玩家"},
    "col_matches": {"en": "M", "zh": "场"},
    "col_wins": {"en": "W", "zh": "胜"},
    "col_rating": {"en": "Rating", "zh": "等级分"},
    "col_big": {"en": "大分", "zh": "大分"},
    "col_small": {"en": "小分", "zh": "小分"},
    "col_points": {"en": "场分", "zh": "场分"},
    "col_standard": {"en": "Std", "zh": "标准分"},
    "col_winrate": {"en": "Win %", "zh": "胜率"},
    "move_new": {"en": "new", "zh": "新"},
    "player_not_found": {
        "en": "No player called {name!r} in this league.",
        "zh": "本联赛没有叫 {name!r} 的玩家。",
    },
    "player_no_matches": {"en": "{name} has no finished matches yet.", "zh": "{name} 还没有完成的对局。"},
    "stats_title": {"en": "{name}", "zh": "{name}"},
    "stats_scope_season": {"en": "This season", "zh": "本赛季"},
    "stats_scope_chat": {"en": "All time here", "zh": "本群历史"},
    "stats_scope_career": {"en": "All chats", "zh": "所有群"},
    "stats_line": {
        "en": "{scope}: {matches} matches, {wins} wins ({rate}%) · hands won as declarers {decl}, "
        "as defenders {defn} · avg defenders' points {avg}",
        "zh": "{scope}：{matches}场 {wins}胜（{rate}%）· 坐庄赢{decl}副 · 抢分赢{defn}副 · 平均抢分 {avg}",
    },
    "stats_scores": {
        "en": "  rating {rating}{prov} · 大分 {big} 小分 {small} · 场分 {points} (std {standard})",
        "zh": "  等级分 {rating}{prov} · 大分 {big} 小分 {small} · 场分 {points}（标准分 {standard}）",
    },
    "stats_partner": {
        "en": "  best partner: {partner} (won {wins} of {matches} together)",
        "zh": "  最佳搭档：{partner}（{matches}场{wins}胜）",
    },
    "history_title": {
        "en": "Recent matches (replay one with /replay ID)",
        "zh": "最近对局（用 /replay 编号 回放）",
    },
    "history_line": {
        "en": "#{id} {date} · {team0} vs {team1} · {level0}:{level1} · {result} · {hands} hands, {minutes} min",
        "zh": "#{id} {date} · {team0} 对 {team1} · {level0}:{level1} · {result} · {hands}副 {minutes}分钟",
    },
    "result_won": {"en": "{team} won ({how})", "zh": "{team} 胜（{how}）"},
    "ending_target": {"en": "passed the target", "zh": "打过终点"},
    "ending_time_limit": {"en": "time limit", "zh": "超时判定"},
    "ending_forfeit": {"en": "the others forfeited", "zh": "对方弃权"},
    "ending_abandoned": {"en": "abandoned", "zh": "中止"},
    "season_info": {
        "en": "Season {season} since {date} · ranking: {method}",
        "zh": "第{season}赛季，始于 {date} · 排名方式：{method}",
    },
    "season_started": {
        "en": "Season {season} has begun. All-time standings keep every season.",
        "zh": "第{season}赛季开始了。历史总榜保留所有赛季。",
    },
    "ranking_set": {"en": "This league now ranks by {method}.", "zh": "本联赛现在按{method}排名。"},
    "ranking_unknown": {
        "en": "Unknown ranking {name!r}: use rating, bigsmall, matchpoints or plain.",
        "zh": "未知排名方式 {name!r}：可选 rating、bigsmall、matchpoints、plain。",
    },
    "ranking_info": {"en": "This league ranks by {method}.", "zh": "本联赛按{method}排名。"},
    "export_done": {"en": "Matches exported: {n}.", "zh": "联赛导出：{n}场对局。"},
    "ai": {"en": "AI", "zh": "电脑"},
}


def t(key: str, lang: str, **params: Any) -> str:
    """The text for `key` in `lang` ("zh" or English for anything else), formatted."""
    entry = TEXTS[key]
    text = entry["zh"] if lang.startswith("zh") else entry["en"]
    return text.format(**params) if params else text
