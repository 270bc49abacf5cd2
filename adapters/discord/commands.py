"""The slash commands `/tractor …` and `/league …`, built from the host's command registry.

Why from the registry. Each feature declares its commands once (`bot.commands`): the subcommands
here are those, with their options typed as declared (a seat 1-4 is an integer from 1 to 4, a
closed choice offers its choices, an open one autocompletes), so Discord checks what it can before
the host checks the rest. An argument whose feature suggests values (`Arg.suggest`: a board's id,
a tournament's team) autocompletes with what the host finds where the person types it. Names and descriptions carry localisations for zh-CN, zh-TW and en-US
from the host's catalogs (`CatalogTranslator`): `help.cmd.<name>` and `help.arg.<cmd>.<arg>` as
descriptions, `name.cmd.<name>` and `name.arg.<arg>` as names where a catalog gives one.

A subcommand only turns its options back into the host's argument words (`_words`); the host
decides everything. The table's commands go under `/tractor`, the league's and tournaments under
`/league` (Discord allows 25 subcommands a group); `/tractor dm` is the adapter's own.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from bot.commands import Arg, Choice, Command, Number, Person, Registry
from bot.i18n import N_, catalog, tr

if TYPE_CHECKING:
    from adapters.discord.inbound import Inbound

AChoice = app_commands.Choice
Interaction = discord.Interaction[discord.Client]

#: The locales our catalogs speak, as Discord names them.
LOCALES: dict[discord.Locale, str] = {discord.Locale.chinese: "zh", discord.Locale.taiwan_chinese: "zh-Hant",
                                      discord.Locale.american_english: "en"}
GROUPS: dict[str, tuple[str, str]] = {"table": ("tractor", N_("help.group.tractor")),
                                      "league": ("league", N_("help.group.league")),
                                      "admin": ("tractoradmin", N_("help.group.admin"))}
#: Who sees the admin group at first (a server's admins may change it in its Integrations settings):
#: those who may manage the server, as the host's own check (`Inbound._extra`) has it.
ADMIN_PERMISSIONS = discord.Permissions(manage_guild=True)
DM_HELP = (N_("help.cmd.dm"), N_("help.arg.dm.mode"))
# names by language where a catalog gives one, read as f"name.cmd.{name}" and f"name.arg.{arg}"
NAME_KEYS = (N_("name.cmd.tractor"), N_("name.cmd.league"), N_("name.cmd.tractoradmin"), N_("name.cmd.new"), N_("name.cmd.join"),
             N_("name.cmd.leave"), N_("name.cmd.start"), N_("name.cmd.addbot"), N_("name.cmd.kick"),
             N_("name.cmd.back"), N_("name.cmd.pause"), N_("name.cmd.resume"), N_("name.cmd.abandon"),
             N_("name.cmd.forfeit"), N_("name.cmd.hand"), N_("name.cmd.table"), N_("name.cmd.ping"),
             N_("name.cmd.lang"), N_("name.cmd.rules"), N_("name.cmd.help"), N_("name.cmd.board"),
             N_("name.cmd.daily"), N_("name.cmd.duplicate"), N_("name.cmd.dm"), N_("name.cmd.standings"),
             N_("name.cmd.stats"), N_("name.cmd.history"), N_("name.cmd.replay"), N_("name.cmd.season"),
             N_("name.cmd.ranking"), N_("name.cmd.export"), N_("name.cmd.tournament"), N_("name.arg.seat"),
             N_("name.arg.level"), N_("name.arg.mode"), N_("name.arg.language"), N_("name.arg.preset"),
             N_("name.arg.all"), N_("name.arg.command"), N_("name.arg.options"), N_("name.arg.action"),
             N_("name.arg.more"), N_("name.arg.what"), N_("name.arg.player"), N_("name.arg.count"),
             N_("name.arg.match"), N_("name.arg.hand"), N_("name.arg.method"), N_("name.arg.payload"))

MAX_AUTOCOMPLETE = 25
MAX_CHOICE = 100  # characters of an autocomplete choice's name or value


def _inbound(interaction: Interaction) -> Inbound:
    inbound: Inbound = getattr(interaction.client, "inbound")  # noqa: B009 (set on the client: client.py)
    return inbound


def _words(*parts: object) -> tuple[str, ...]:
    """Options as the host's argument words: set ones only, free text split on spaces."""
    out: list[str] = []
    for part in parts:
        if part is None or part == "":
            continue
        out.extend(str(part).split())
    return tuple(out)


def _say(key: str) -> app_commands.locale_str:
    """A description: English as Discord's default, the catalog key for the translator."""
    return app_commands.locale_str(tr("en", key)[:100], key=key)


def _name(name: str, key: str) -> app_commands.locale_str:
    return app_commands.locale_str(name, key=key)


class CatalogTranslator(app_commands.Translator):
    """Names and descriptions in each locale of `LOCALES`, from the host's catalogs; none elsewhere."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        lang = LOCALES.get(locale)
        key = string.extras.get("key")
        if lang is None or not isinstance(key, str):
            return None
        if context.location in (Where.command_name, Where.group_name, Where.parameter_name):
            text = catalog(lang).get(key)  # a name only where the catalog gives one
            return text if text else None
        return tr(lang, key)[:100]


def _annotation(arg: Arg) -> object:
    """The Python type discord.py reads an option from: integers and numbers with their range,
    closed choices as a Literal, everything else text."""
    kind = arg.kind
    base: object
    if isinstance(kind, Number) and not kind.zero:
        base = (app_commands.Range[int, int(kind.lo), int(kind.hi)] if kind.integer
                else app_commands.Range[float, kind.lo, kind.hi])
    elif isinstance(kind, Choice) and not kind.open:
        base = Literal.__getitem__(kind.values)
    elif isinstance(kind, Person):
        base = discord.User
    else:
        base = str
    return base if arg.required else typing.Optional[base]  # noqa: UP045 (a type built at run time)


def _value(arg: Arg, value: object) -> object:
    if isinstance(arg.kind, Person) and isinstance(value, discord.abc.User):
        return value.id
    return value


def _suggest(values: Sequence[str]) -> Callable[[Interaction, str],
                                               Coroutine[object, object, list[AChoice[str]]]]:
    async def suggest(interaction: Interaction, current: str) -> list[AChoice[str]]:
        low = current.lower()
        return [AChoice(name=v, value=v) for v in values if v.startswith(low)][:MAX_AUTOCOMPLETE]
    return suggest


def _ask(command: str, arg: str, others: Sequence[str]) -> Callable[
        [Interaction, str], Coroutine[object, object, list[AChoice[str]]]]:
    """Autocomplete from the host (`Host.suggest`), with the command's other options as they stand."""
    async def ask(interaction: Interaction, current: str) -> list[AChoice[str]]:
        ns = interaction.namespace
        given = {n: str(v) for n in others if n != arg and (v := getattr(ns, n, None)) is not None}
        found = await _inbound(interaction).suggest(interaction, command, arg, current, given)
        # Discord takes names and values of 1-100 characters: a longer value would be another word
        return [AChoice(name=(s.label or s.value)[:100], value=s.value) for s in found
                if 0 < len(s.value) <= MAX_CHOICE][:MAX_AUTOCOMPLETE]
    return ask


def subcommand(command: Command, parent: app_commands.Group) -> app_commands.Command[app_commands.Group, ..., None]:
    """One registry command as a subcommand of `parent`."""
    args = list(command.args)
    name = command.name

    async def callback(interaction: Interaction, **values: object) -> None:
        words = _words(*(_value(a, values.get(a.name)) for a in args))
        await _inbound(interaction).on_command(interaction, name, words)

    params = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                annotation=discord.Interaction)]
    ordered = sorted(args, key=lambda a: not a.required)  # Discord: required options first
    for a in ordered:
        params.append(inspect.Parameter(a.name, inspect.Parameter.KEYWORD_ONLY, annotation=_annotation(a),
                                        default=inspect.Parameter.empty if a.required else None))
    callback.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    callback.__discord_app_commands_param_description__ = {  # type: ignore[attr-defined]
        a.name: _say(a.help) for a in args}
    callback.__discord_app_commands_param_rename__ = {  # type: ignore[attr-defined]
        a.name: _name(a.name, f"name.arg.{a.name}") for a in args}
    cmd: app_commands.Command[app_commands.Group, ..., None] = app_commands.Command(
        name=_name(name, f"name.cmd.{name}"), description=_say(command.summary), callback=callback,
        parent=parent)
    for a in args:
        if a.suggest is not None:
            cmd.autocomplete(a.name)(_ask(name, a.name, [b.name for b in args]))
        elif isinstance(a.kind, Choice) and a.kind.open:
            cmd.autocomplete(a.name)(_suggest(a.kind.values))
    return cmd


async def _dm(interaction: Interaction, mode: Literal["on", "off"]) -> None:
    await _inbound(interaction).on_command(interaction, "dm", (mode,))


def groups(registry: Registry) -> list[app_commands.Group]:
    """`/tractor` and `/league`: every command usable in a group, by section, and `/tractor dm`; the
    admin commands (`who="admin"`) in `/tractoradmin`, which Discord shows to server managers only
    (`default_member_permissions`: Discord takes it for a whole top-level command, not a subcommand)."""
    out: dict[str, app_commands.Group] = {}
    for section, (name, key) in GROUPS.items():
        out[section] = app_commands.Group(name=_name(name, f"name.cmd.{name}"), description=_say(key),
                                          guild_only=True,
                                          default_permissions=ADMIN_PERMISSIONS if section == "admin" else None)
    for command in sorted(registry.commands(), key=lambda c: c.name):
        if command.fits(in_group=True):
            group = out["admin" if command.who == "admin" else command.section]
            group.add_command(subcommand(command, group))
    _dm.__discord_app_commands_param_description__ = {"mode": _say(DM_HELP[1])}  # type: ignore[attr-defined]
    _dm.__discord_app_commands_param_rename__ = {"mode": _name("mode", "name.arg.mode")}  # type: ignore[attr-defined]
    out["table"].add_command(app_commands.Command(name=_name("dm", "name.cmd.dm"), description=_say(DM_HELP[0]),
                                                  callback=_dm, parent=out["table"]))
    return [group for group in out.values() if group.commands]


__all__ = ["CatalogTranslator", "groups", "subcommand"]
