"""The table's own commands, as the registry (`bot.commands`) declares them: the host sends each to
the chat's table (no handler), whose actor checks seats, the creator and the phase."""

from __future__ import annotations

from bot.commands import Arg, Choice, Command, Number
from bot.i18n import N_
from bot.settings import AI_LEVELS

SEAT = Number(1, 4, integer=True)


def table_commands() -> tuple[Command, ...]:
    """join, leave, start, addbot, kick, back, pause, resume, abandon, forfeit, hand, table, ping."""
    in_group = N_("cmd.in_group")
    return (
        Command("join", N_("help.cmd.join"), (Arg("seat", N_("help.arg.join.seat"), SEAT),), place="group",
                wrong_place=in_group),
        Command("leave", N_("help.cmd.leave"), place="group", who="seated", wrong_place=in_group),
        Command("start", N_("help.cmd.start"), place="group", who="seated"),
        Command("addbot", N_("help.cmd.addbot"),
                (Arg("level", N_("help.arg.addbot.level"), Choice(AI_LEVELS, open=True)),),
                place="group", wrong_place=in_group),
        Command("kick", N_("help.cmd.kick"), (Arg("seat", N_("help.arg.kick.seat"), SEAT, required=True),),
                place="group", who="creator", wrong_place=in_group),
        Command("back", N_("help.cmd.back"), who="seated"),
        Command("pause", N_("help.cmd.pause"), place="group", who="seated", wrong_place=in_group),
        Command("resume", N_("help.cmd.resume"), place="group", who="seated", wrong_place=in_group),
        Command("abandon", N_("help.cmd.abandon"), place="group", who="seated", wrong_place=in_group),
        Command("forfeit", N_("help.cmd.forfeit"), who="seated"),
        Command("hand", N_("help.cmd.hand"), who="seated"),
        Command("table", N_("help.cmd.table")),
        Command("ping", N_("help.cmd.ping"),
                (Arg("mode", N_("help.arg.ping.mode"), Choice(("on", "off"), open=True)),), who="seated"),
    )
