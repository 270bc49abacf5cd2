"""One registry of every command a person can type: its name, typed arguments, help, place and who.

Why one. The host used to keep five lists of names (its own three, the duplicate commands', the
adapters' menus), and every feature parsed its own words: `new turn=nan` reached the store. Now
each feature declares its commands here once (`Command`), and from that one declaration:

- the host routes a command to its feature, or to the chat's table (`Command.table`);
- the words are checked before any feature sees them (`Number` ranges, `Choice` values, `Text`
  lengths, `Options` of the `key=value` kind), and a bad value gets a refusal in the person's
  language that names the range (`Refusal`), with nothing changed;
- `help` and `help <command>` are written (`Registry.help`, `Registry.usage`);
- Telegram's "/" menu (`Registry.menu`) and Discord's slash commands are built, in every language;
- a platform that offers values as one types (Discord's autocomplete) asks the argument's feature
  (`Arg.suggest`, `bot.suggestions`) for what exists where the person is.

The host keeps the registry and imports no feature: `app/` lists the features, and each adds its
commands (see `bot.feature`). Catalog keys: `help.cmd.<name>` (one line, at most 100 characters in
every language: Discord's limit) and `help.arg.<name>.<arg>` / `help.opt.<key>`.

It runs past 400 lines because the declaration and everything read from it (the checks, help, the
menus, the suggestions) stay together; the suggestions' own types are in `bot.suggestions`.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from bot.i18n import N_, tr
from bot.platform import Incoming
from bot.suggestions import Ask, Suggester, Suggestion

Place = Literal["group", "private", "anywhere"]
"""Where a command may be used: a group (or a terminal, which is both), a private chat, or either."""

Who = Literal["anyone", "seated", "creator", "admin"]
"""Who may use it: told in help and the menus (Discord hides an admin command from others); the
feature (or the table, for seats and the creator) checks it, since only they know who is seated."""

Section = Literal["table", "league"]
"""Which menu a command is listed under (Discord: the `/tractor` and `/league` groups)."""

Unit = Literal["s", "min", ""]

#: Telegram's and Discord's rule for a command's name (Discord also takes up to 32 of these).
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
# catalog keys built at run time, marked for `make messages`
RUNTIME_KEYS = (N_("arg.range_s"), N_("arg.range_min"), N_("arg.range_n"), N_("help.section_table"),
                N_("help.section_league"), N_("help.who_seated"), N_("help.who_creator"), N_("help.who_admin"))

#: Words shown of what a person typed, at most: a refusal never echoes a long input back.
SHOWN = 40


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


class Refusal(ValueError):
    """A word that does not fit its argument: `text(lang)` says which, and what would."""

    def __init__(self, key: str, **params: str) -> None:
        super().__init__(key)
        self.key = key
        self.params = params

    def text(self, lang: str) -> str:
        return tr(lang, self.key, **self.params)


@dataclass(frozen=True, slots=True)
class Number:
    """A number from `lo` to `hi`; with `zero`, 0 is allowed too and means that (a catalog key:
    "never" for a player's timeout). NaN and infinities are never numbers here."""

    lo: float
    hi: float
    integer: bool = False
    unit: Unit = ""
    zero: str = ""

    def range_text(self, lang: str) -> str:
        text = tr(lang, f"arg.range_{self.unit or 'n'}", lo=_num(self.lo), hi=_num(self.hi))
        return tr(lang, "arg.or_zero", zero=tr(lang, self.zero), range=text) if self.zero else text

    def check(self, what: str, name: str, text: str, lang: str) -> int | float:
        """The value of `text`, else a Refusal naming `what` (the word as typed) and the range."""
        shown = what[:SHOWN]
        try:
            value = float(text.strip().lstrip("#") if self.integer else text.strip())  # "#12": an id as shown
        except ValueError:
            raise Refusal(N_("arg.not_number"), what=shown, name=name, range=self.range_text(lang)) from None
        if not math.isfinite(value):
            raise Refusal(N_("arg.not_number"), what=shown, name=name, range=self.range_text(lang))
        if self.integer and not value.is_integer():
            raise Refusal(N_("arg.not_whole"), what=shown, name=name, range=self.range_text(lang))
        if value == 0 and self.zero:
            return 0
        if not self.lo <= value <= self.hi:
            raise Refusal(N_("arg.out_of_range"), what=shown, name=name, range=self.range_text(lang))
        return int(value) if self.integer else value


@dataclass(frozen=True, slots=True)
class Choice:
    """One of a few words (`aliases` map other spellings onto them); `open` lets any other word
    through for the feature to judge (a player's name), the values then being only suggestions."""

    values: tuple[str, ...]
    aliases: Mapping[str, str] = field(default_factory=dict)
    open: bool = False

    def check(self, what: str, name: str, text: str, lang: str) -> str:
        word = text.strip().lower()
        if word in self.values:
            return word
        if word in self.aliases:
            return self.aliases[word]
        if self.open:
            return text.strip()
        raise Refusal(N_("arg.not_choice"), what=what[:SHOWN], name=name, choices=", ".join(self.values))


@dataclass(frozen=True, slots=True)
class Text:
    """Free words (the rest of the line when `rest`), at most `max_len` characters."""

    max_len: int = 200
    rest: bool = False

    def check(self, what: str, name: str, text: str, lang: str) -> str:
        if len(text) > self.max_len:
            raise Refusal(N_("arg.too_long"), what=what[:SHOWN], name=name, n=str(self.max_len))
        return text


@dataclass(frozen=True, slots=True)
class Person:
    """Someone in the chat, the rest of the line as typed (a name, @name or id); a platform that
    can may offer a pick from its members instead (Discord's user option gives the id)."""

    max_len: int = 64

    def check(self, what: str, name: str, text: str, lang: str) -> str:
        if len(text) > self.max_len:
            raise Refusal(N_("arg.too_long"), what=what[:SHOWN], name=name, n=str(self.max_len))
        return text


Setting = Number | Choice
"""What one `key=value` option takes."""


@dataclass(frozen=True, slots=True)
class Options:
    """`key=value` words: `known` keys checked here (their help is `help.opt.<key>`); any other
    key passes as typed when `others` is set (the feature checks it: the engine's rules options)."""

    known: Mapping[str, Setting]
    others: bool = False


Kind = Number | Choice | Text | Person | Options

OptionValue = int | float | str
Value = int | float | str | Mapping[str, OptionValue]


@dataclass(frozen=True, slots=True)
class Arg:
    """One argument: `help` is its catalog key, `required` says whether it may be left out;
    `suggest`, the values that exist where someone types it (see `Ask`)."""

    name: str
    help: str
    kind: Kind
    required: bool = False
    suggest: Suggester | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Args:
    """The typed values of one command's words, by argument name (left out: absent)."""

    values: Mapping[str, Value]
    words: tuple[str, ...]

    def number(self, name: str) -> int | float | None:
        v = self.values.get(name)
        return v if isinstance(v, int | float) else None

    def int(self, name: str) -> int | None:
        v = self.values.get(name)
        return int(v) if isinstance(v, int | float) else None

    def text(self, name: str) -> str | None:
        v = self.values.get(name)
        return v if isinstance(v, str) else None

    def options(self, name: str) -> Mapping[str, OptionValue]:
        v = self.values.get(name)
        return v if isinstance(v, Mapping) else {}


@dataclass(frozen=True, slots=True)
class Call:
    """One use of a command, as its feature receives it: checked, typed, in the person's language."""

    event: Incoming
    command: Command
    args: Args
    lang: str

    @property
    def words(self) -> tuple[str, ...]:
        return self.args.words


Handler = Callable[[Call], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Command:
    """A command as a feature declares it.

    `handler` answers it; None sends it to the chat's table (its actor checks seats and creator).
    `wrong_place`: the catalog key refusing it elsewhere ({command} is filled in).
    `menu`: offered in the platforms' menus (False: typed only, or offered another way)."""

    name: str
    summary: str
    args: tuple[Arg, ...] = ()
    place: Place = "anywhere"
    who: Who = "anyone"
    section: Section = "table"
    handler: Handler | None = None
    wrong_place: str = ""
    menu: bool = True

    @property
    def table(self) -> bool:
        return self.handler is None

    def fits(self, in_group: bool) -> bool:
        return self.place == "anywhere" or (self.place == "group") == in_group


def _option_help(key: str) -> str:
    return f"help.opt.{key}"


class Registry:
    """Every command, by name; a name may have one command for groups and another for private chats."""

    def __init__(self) -> None:
        self._by_name: dict[str, list[Command]] = {}

    def add(self, *commands: Command) -> None:
        """:raises ValueError: a name the platforms refuse, or a second command for the same place."""
        for c in commands:
            if not c.name or len(c.name) > 32 or not set(c.name) <= NAME_CHARS:
                raise ValueError(f"command name {c.name!r}: 1-32 of a-z, 0-9 and _")
            same = self._by_name.setdefault(c.name, [])
            if any(o.place == "anywhere" or c.place in (o.place, "anywhere") for o in same):
                raise ValueError(f"command {c.name!r} declared twice for one place")
            same.append(c)

    def names(self) -> frozenset[str]:
        return frozenset(self._by_name)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def commands(self) -> list[Command]:
        return [c for cs in self._by_name.values() for c in cs]

    async def suggest(self, ask: Ask, in_group: bool) -> list[Suggestion]:
        """What argument `ask.arg` of `ask.command` may take here: its feature's suggestions, else
        a choice's values starting with what is typed."""
        command, _ = self.find(ask.command, in_group)
        arg = next((a for a in command.args if a.name == ask.arg), None) if command is not None else None
        if arg is None:
            return []
        if arg.suggest is not None:
            return list(await arg.suggest(ask))
        if isinstance(arg.kind, Choice):
            low = ask.typed.strip().lower()
            return [Suggestion(v, v) for v in arg.kind.values if v.startswith(low)]
        return []

    def find(self, name: str, in_group: bool) -> tuple[Command | None, Command | None]:
        """(the command for this place, else None; one of that name for the other place, else None)."""
        cs = self._by_name.get(name, [])
        here = next((c for c in cs if c.fits(in_group)), None)
        return here, (None if here is not None else next(iter(cs), None))

    # ----- the words -----

    def parse(self, command: Command, words: tuple[str, ...], lang: str) -> Args:
        """The typed values of `words`; extra words are kept in `Args.words` for the feature.

        :raises Refusal: a value that does not fit, or a required argument left out.
        """
        values: dict[str, Value] = {}
        i = 0
        specs = command.args
        for n, arg in enumerate(specs):
            later_options = any(isinstance(a.kind, Options) for a in specs[n + 1:])
            kind = arg.kind
            if isinstance(kind, Options):
                values[arg.name] = self._options(command, kind, words[i:], lang)
                i = len(words)
                continue
            if i >= len(words) or (later_options and "=" in words[i] and not arg.required):
                if arg.required:
                    raise Refusal(N_("arg.missing"), name=tr(lang, arg.help), usage=self.usage_line(command, lang))
                continue
            if isinstance(kind, Person) or (isinstance(kind, Text) and kind.rest):
                text = " ".join(words[i:])
                values[arg.name] = kind.check(text, tr(lang, arg.help), text, lang)
                i = len(words)
                continue
            values[arg.name] = kind.check(words[i], tr(lang, arg.help), words[i], lang)
            i += 1
        return Args(values, words)

    def _options(self, command: Command, kind: Options, words: tuple[str, ...], lang: str
                 ) -> dict[str, OptionValue]:
        out: dict[str, OptionValue] = {}
        for word in words:
            key, eq, value = word.partition("=")
            key, value = key.strip().lower(), value.strip()
            if not eq or not key or not value:
                raise Refusal(N_("arg.not_option"), what=word[:SHOWN], command=command.name,
                              options=", ".join(sorted(kind.known)))
            setting = kind.known.get(key)
            if setting is None:
                if not kind.others:
                    raise Refusal(N_("arg.not_option"), what=word[:SHOWN], command=command.name,
                                  options=", ".join(sorted(kind.known)))
                out[key] = value
                continue
            out[key] = setting.check(word, key, value, lang)
        return out

    # ----- help and menus -----

    def usage_line(self, command: Command, lang: str) -> str:
        parts = [f"/{command.name}"]
        for a in command.args:
            if isinstance(a.kind, Options):
                parts.append("[option=value…]")
            elif isinstance(a.kind, Choice) and not a.kind.open and len(a.kind.values) <= 4:
                parts.append(("{}" if a.required else "[{}]").format("|".join(a.kind.values)))
            else:
                parts.append(("<{}>" if a.required else "[{}]").format(a.name))
        return " ".join(parts)

    def usage(self, name: str, lang: str, in_group: bool = True) -> str | None:
        """`help <command>`: how to type it, what it does, and each argument with its range."""
        here, other = self.find(name, in_group)
        command = here or other
        if command is None:
            return None
        lines = [self.usage_line(command, lang), tr(lang, command.summary)]
        for a in command.args:
            kind = a.kind
            if isinstance(kind, Options):
                lines.append(tr(lang, a.help))
                for key in sorted(kind.known):
                    lines.append(f"  {key}: {tr(lang, _option_help(key))} ({self._describe(kind.known[key], lang)})")
                continue
            lines.append(f"  {a.name}: {tr(lang, a.help)}" + (f" ({self._describe(kind, lang)})"
                                                               if isinstance(kind, Number | Choice) else ""))
        if command.who != "anyone":
            lines.append(tr(lang, f"help.who_{command.who}"))
        return "\n".join(lines)

    @staticmethod
    def _describe(kind: Setting, lang: str) -> str:
        if isinstance(kind, Number):
            return kind.range_text(lang)
        return "|".join(kind.values) + ("|…" if kind.open else "")

    def help(self, lang: str, in_group: bool, *, after: str = "") -> str:
        """`help`: the commands of this place by section, one line each, then `after`."""
        lines = [tr(lang, "help.title")]
        for section in ("table", "league"):
            cs = [c for c in self.commands() if c.section == section and c.fits(in_group)]
            if not cs:
                continue
            lines.append(tr(lang, f"help.section_{section}"))
            lines += [f"/{c.name} — {tr(lang, c.summary)}" for c in sorted(cs, key=lambda c: c.name)]
        lines.append(tr(lang, "help.more"))
        if after:
            lines.append(after)
        return "\n".join(lines)

    def menu(self, lang: str, place: Literal["group", "private"]) -> list[tuple[str, str]]:
        """(name, one-line description) of the commands offered in a chat of this kind."""
        in_group = place == "group"
        return [(c.name, tr(lang, c.summary)) for c in self.commands() if c.menu and c.fits(in_group)]

    def sections(self) -> dict[Section, list[Command]]:
        out: dict[Section, list[Command]] = {}
        for c in self.commands():
            out.setdefault(c.section, []).append(c)
        return out


def known_keys(commands: Iterable[Command]) -> list[str]:
    """Every catalog key the commands name (tests check that each language has them)."""
    keys: list[str] = []
    for c in commands:
        keys.append(c.summary)
        for a in c.args:
            keys.append(a.help)
            if isinstance(a.kind, Options):
                keys += [_option_help(k) for k in a.kind.known]
    return keys
