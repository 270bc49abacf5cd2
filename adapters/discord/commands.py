"""The slash command group `/tractor ...`: the host's words, with options and autocomplete.

Each subcommand only turns its options into the host's argument words; the
host decides everything. Descriptions are bilingual since Discord shows
them before any chat language is chosen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

if TYPE_CHECKING:
    from adapters.discord.inbound import Inbound

Choice = app_commands.Choice


def _inbound(interaction: discord.Interaction[Any]) -> Inbound:
    return interaction.client.inbound  # type: ignore[no-any-return]


def _words(*parts: object) -> tuple[str, ...]:
    """Options as the host's argument words: set ones only, free text split on spaces."""
    out: list[str] = []
    for part in parts:
        if part is None or part == "":
            continue
        out.extend(str(part).split())
    return tuple(out)


async def _run(interaction: discord.Interaction[Any], name: str, *parts: object) -> None:
    await _inbound(interaction).on_command(interaction, name, _words(*parts))


async def _preset_choices(interaction: discord.Interaction[Any], current: str) -> list[Choice[str]]:
    names = await _inbound(interaction).presets(current)
    return [Choice(name=n, value=n) for n in names]


async def _level_choices(interaction: discord.Interaction[Any], current: str) -> list[Choice[str]]:
    levels = await _inbound(interaction).ai_levels(current)
    return [Choice(name=n, value=n) for n in levels]


SEAT = app_commands.Range[int, 1, 4]


class TractorGroup(app_commands.Group):
    """/tractor: every command of the host, plus `dm` (where your hand is shown)."""

    def __init__(self) -> None:
        super().__init__(name="tractor", description="80分 / Tractor: play in this channel · 在本频道打升级",
                         guild_only=True)

    @app_commands.command(name="new", description="Open a new match here · 开新局")
    @app_commands.describe(preset="Rule preset · 规则", options="More options, e.g. target=A · 其他选项")
    @app_commands.autocomplete(preset=_preset_choices)
    async def new(self, interaction: discord.Interaction[Any], preset: str | None = None,
                  options: str | None = None) -> None:
        await _run(interaction, "new", preset, options)

    @app_commands.command(name="join", description="Take a seat · 入座")
    @app_commands.describe(seat="Seat 1-4 (1 & 3, 2 & 4 are partners) · 座位")
    async def join(self, interaction: discord.Interaction[Any], seat: SEAT | None = None) -> None:
        await _run(interaction, "join", seat)

    @app_commands.command(name="leave", description="Leave your seat before the start · 离座")
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        await _run(interaction, "leave")

    @app_commands.command(name="start", description="Deal the first hand · 开始")
    async def start(self, interaction: discord.Interaction[Any]) -> None:
        await _run(interaction, "start")

    @app_commands.command(name="addbot", description="Seat an AI player · 添加电脑玩家")
    @app_commands.describe(level="AI level · 电脑水平")
    @app_commands.autocomplete(level=_level_choices)
    async def addbot(self, interaction: discord.Interaction[Any], level: str | None = None) -> None:
        await _run(interaction, "addbot", level)

    @app_commands.command(name="kick", description="Remove a player (creator or admin) · 移除玩家")
    async def kick(self, interaction: discord.Interaction[Any], seat: SEAT) -> None:
        await _run(interaction, "kick", seat)

    @app_commands.command(name="hand", description="Show my hand, only to me · 看我的手牌")
    async def hand(self, interaction: discord.Interaction[Any]) -> None:
        await _run(interaction, "hand")

    @app_commands.command(name="table", description="Show the table again · 重新显示牌桌")
    async def table(self, interaction: discord.Interaction[Any]) -> None:
        await _run(interaction, "table")

    @app_commands.command(name="rules", description="The rules of a preset · 规则")
    @app_commands.autocomplete(preset=_preset_choices)
    async def rules(self, interaction: discord.Interaction[Any], preset: str | None = None) -> None:
        await _run(interaction, "rules", preset)

    @app_commands.command(name="lang", description="Language of this channel · 语言")
    @app_commands.choices(language=[Choice(name="简体中文", value="zh"), Choice(name="繁體中文", value="zh-Hant"),
                                    Choice(name="English", value="en")])
    async def lang(self, interaction: discord.Interaction[Any], language: Choice[str]) -> None:
        await _run(interaction, "lang", language.value)

    @app_commands.command(name="help", description="How to play here · 帮助")
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        await _run(interaction, "help")

    @app_commands.command(name="back", description="Take your seat back from the AI · 回到座位")
    async def back(self, interaction: discord.Interaction[Any]) -> None:
        await _run(interaction, "back")

    @app_commands.command(name="pause", description="Vote to pause · 投票暂停")
    async def pause(self, interaction: discord.Interaction[Any]) -> None:
        await _run(interaction, "pause")

    @app_commands.command(name="resume", description="Vote to resume · 投票继续")
    async def resume(self, interaction: discord.Interaction[Any]) -> None:
        await _run(interaction, "resume")

    @app_commands.command(name="abandon", description="Vote to abandon the match · 投票放弃")
    async def abandon(self, interaction: discord.Interaction[Any]) -> None:
        await _run(interaction, "abandon")

    @app_commands.command(name="forfeit", description="Concede for your team (both partners) · 认输")
    async def forfeit(self, interaction: discord.Interaction[Any]) -> None:
        await _run(interaction, "forfeit")

    @app_commands.command(name="ping", description="Be mentioned when it is your turn, or not · 轮到我时提醒")
    @app_commands.choices(mode=[Choice(name="on · 提醒", value="on"), Choice(name="off · 不提醒", value="off")])
    async def ping(self, interaction: discord.Interaction[Any], mode: Choice[str]) -> None:
        await _run(interaction, "ping", mode.value)

    @app_commands.command(name="board", description="A board: the same deal at every table · 牌套")
    async def board(self, interaction: discord.Interaction[Any], args: str | None = None) -> None:
        await _run(interaction, "board", args)

    @app_commands.command(name="daily", description="Today's boards, the same for everyone · 每日牌")
    async def daily(self, interaction: discord.Interaction[Any], args: str | None = None) -> None:
        await _run(interaction, "daily", args)

    @app_commands.command(name="duplicate", description="Duplicate team match or pairs (002) · 复式赛")
    async def duplicate(self, interaction: discord.Interaction[Any], args: str | None = None) -> None:
        await _run(interaction, "duplicate", args)

    @app_commands.command(name="dm", description="Get your hand by direct message, or here · 私信发牌")
    @app_commands.choices(mode=[Choice(name="on · 私信", value="on"), Choice(name="off · 仅自己可见", value="off")])
    async def dm(self, interaction: discord.Interaction[Any], mode: Choice[str]) -> None:
        await _inbound(interaction).on_command(interaction, "dm", (mode.value,))


class LeagueGroup(app_commands.Group):
    """/league: the chat's league and tournaments (`/tractor` keeps the table's commands: Discord
    allows 25 subcommands a group)."""

    def __init__(self) -> None:
        super().__init__(name="league", description="League, replays and tournaments here · 联赛、回放与比赛",
                         guild_only=True)

    @app_commands.command(name="standings", description="League standings · 排行榜")
    async def standings(self, interaction: discord.Interaction[Any], args: str | None = None) -> None:
        await _run(interaction, "standings", args)

    @app_commands.command(name="stats", description="A player's statistics · 个人统计")
    async def stats(self, interaction: discord.Interaction[Any], player: discord.User | None = None) -> None:
        await _run(interaction, "stats", player.id if player is not None else None)

    @app_commands.command(name="history", description="Recent matches · 最近对局")
    async def history(self, interaction: discord.Interaction[Any], args: str | None = None) -> None:
        await _run(interaction, "history", args)

    @app_commands.command(name="replay", description="Replay a finished match, or one hand of it · 回放")
    @app_commands.describe(match="Match id from history · 对局编号", hand="One hand, trick by trick · 第几副")
    async def replay(self, interaction: discord.Interaction[Any], match: int, hand: int | None = None) -> None:
        await _run(interaction, "replay", match, hand)

    @app_commands.command(name="season", description="League season · 赛季")
    async def season(self, interaction: discord.Interaction[Any], args: str | None = None) -> None:
        await _run(interaction, "season", args)

    @app_commands.command(name="export", description="Export results as CSV · 导出")
    async def export(self, interaction: discord.Interaction[Any], args: str | None = None) -> None:
        await _run(interaction, "export", args)

    @app_commands.command(name="ranking", description="The league's ranking method · 排名方式")
    async def ranking(self, interaction: discord.Interaction[Any], method: str | None = None) -> None:
        await _run(interaction, "ranking", method)

    @app_commands.command(name="tournament", description="Knockout, round robin or Swiss in this channel · 比赛")
    @app_commands.describe(args="e.g. new knockout · team NAME · join NAME · ai 6 · start · forfeit TEAM · 例如")
    async def tournament(self, interaction: discord.Interaction[Any], args: str | None = None) -> None:
        await _run(interaction, "tournament", args)
