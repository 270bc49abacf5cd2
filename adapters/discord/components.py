"""Host views as Discord components, and the persistent items that receive presses.

Every component is a `DynamicItem`: its custom_id carries the host's token
(match, state version, action), so a press is understood from the custom_id
alone, by any process, for any message, even one sent before a restart.
The host's card-toggle buttons become multi-select menus (25 options each):
a choice there is turned back into the toggles it stands for, by comparing
it with the options the message showed as selected. The host's one-press
choices (each legal play) become a row of buttons when there are few, else
single-choice menus where choosing a play plays it. The menus are cut where the
hand's groups change, as the view's scene gives them (trumps, then each suit).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol, cast

import discord

from bot.intents.types import Toggle
from bot.platform import Button, View

MAX_ROWS = 5
MAX_PER_ROW = 5
MAX_OPTIONS = 25
MAX_CONTENT = 2000
MAX_LABEL = 80

BUTTON_PREFIX = "b:"
SELECT_PREFIX = "s:"
PLAYS_PREFIX = "q:"
BUTTON_RE = re.compile(r"b:(?P<token>[^\s]{1,98})")
SELECT_RE = re.compile(r"s:(?P<n>[0-9]):(?P<tag>[^\s]{1,96})")
PLAYS_RE = re.compile(r"q:(?P<n>[0-9]):(?P<tag>[^\s]{1,96})")
PLAY_BUTTONS = 5  # up to this many choices show as buttons (one click each), more as menus

_STYLES = {
    "primary": discord.ButtonStyle.primary,
    "selected": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
    "default": discord.ButtonStyle.secondary,
}


def is_ours(custom_id: str) -> bool:
    """Whether a custom_id has one of our shapes (anything else is refused without asking the host)."""
    return bool(BUTTON_RE.fullmatch(custom_id) or SELECT_RE.fullmatch(custom_id) or PLAYS_RE.fullmatch(custom_id))


def drawn_on(message: discord.Message | None, custom_id: str) -> bool:
    """Whether the message pressed carries this component: only then is it ours to handle (a forged
    custom_id matching our shapes is answered once, by the client's net for stray presses)."""
    if message is None:
        return False
    for row in message.components:
        for child in getattr(row, "children", ()):
            if getattr(child, "custom_id", None) == custom_id:
                return True
    return False


class Presses(Protocol):
    """Where a component's press goes (`adapters.discord.inbound.Inbound`); named here as a port so
    that the drawing side does not import the inbound side, which imports the platform, which draws."""

    async def on_press(self, interaction: discord.Interaction[Any], token: str) -> None: ...

    async def on_select(self, interaction: discord.Interaction[Any], toggles: list[str]) -> None: ...


def _inbound(interaction: discord.Interaction[Any]) -> Presses:
    return cast(Presses, interaction.client.inbound)


def interaction_data(interaction: discord.Interaction[Any]) -> dict[str, Any]:
    """The raw `data` of an interaction, as a plain dict."""
    return dict(cast(dict[str, Any], interaction.data or {}))


class HostButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=BUTTON_RE.pattern):
    """A button whose custom_id is "b:" + the host's token."""

    def __init__(self, token: str, *, label: str = "·", style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=BUTTON_PREFIX + token, row=row))
        self.token = token

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> HostButton:
        return cls(match["token"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if drawn_on(interaction.message, BUTTON_PREFIX + self.token):
            await _inbound(interaction).on_press(interaction, self.token)


class CardSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=SELECT_RE.pattern):
    """A multi-select standing for a run of card-toggle buttons; option values are toggle tokens."""

    def __init__(self, custom_id: str, options: Sequence[discord.SelectOption] = (), *,
                 placeholder: str | None = None, row: int | None = None) -> None:
        opts = list(options) or [discord.SelectOption(label="·", value="·")]
        super().__init__(discord.ui.Select(custom_id=custom_id, options=opts, min_values=0,
                                           max_values=len(opts), placeholder=placeholder, row=row))
        self.custom_id_ = custom_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> CardSelect:
        return cls(match.group(0))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if not drawn_on(interaction.message, self.custom_id_):
            return
        values = [str(v) for v in interaction_data(interaction).get("values", [])]
        shown, before = shown_options(interaction.message, self.custom_id_)
        toggles = toggled(shown, before, values)
        await _inbound(interaction).on_select(interaction, toggles)


class PlaySelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=PLAYS_RE.pattern):
    """A single-choice menu of whole plays: choosing one is pressing its button (option values are tokens)."""

    def __init__(self, custom_id: str, options: Sequence[discord.SelectOption] = (), *,
                 placeholder: str | None = None, row: int | None = None) -> None:
        opts = list(options) or [discord.SelectOption(label="·", value="·")]
        super().__init__(discord.ui.Select(custom_id=custom_id, options=opts, min_values=1, max_values=1,
                                           placeholder=placeholder, row=row))
        self.custom_id_ = custom_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> PlaySelect:
        return cls(match.group(0))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if not drawn_on(interaction.message, self.custom_id_):
            return
        values = [str(v) for v in interaction_data(interaction).get("values", [])]
        shown, _ = shown_options(interaction.message, self.custom_id_)
        # a value the menu never offered is no token of ours: the host answers it as garbage
        token = values[0] if len(values) == 1 and values[0] in shown else ""
        await _inbound(interaction).on_press(interaction, token)


def shown_options(message: discord.Message | None, custom_id: str) -> tuple[list[str], set[str]]:
    """The option values a select offered on `message`, and those it showed as chosen."""
    if message is None:
        return [], set()
    for row in message.components:
        for child in getattr(row, "children", ()):
            if isinstance(child, discord.SelectMenu) and child.custom_id == custom_id:
                values = [o.value for o in child.options]
                return values, {o.value for o in child.options if o.default}
    return [], set()


def toggled(shown: list[str], before: set[str], chosen: Sequence[str]) -> list[str]:
    """The toggles a new choice stands for: options whose state changed, in the order shown.

    Values the message never offered (forged) are ignored here; the host
    checks every token anyway.
    """
    after = set(chosen)
    return [v for v in shown if (v in before) != (v in after)]


def _is_toggle(button: Button) -> bool:
    return isinstance(button.act, Toggle)


def _label(text: str) -> str:
    return (text.strip() or "·")[:MAX_LABEL]


def render(view: View, *, note: str = "") -> tuple[str, discord.ui.View]:
    """The message content and components for a host view (within Discord's limits)."""
    content = view.text + (f"\n\n› {note}" if note else "")
    if len(content) > MAX_CONTENT:
        content = content[: MAX_CONTENT - 1] + "…"
    ui = discord.ui.View(timeout=None)
    toggles = [b for row in view.buttons for b in row if _is_toggle(b)]
    rows: list[list[discord.ui.Item[Any]]] = []
    rows.extend(_play_rows(view.choices))
    hand = view.scene.hand if view.scene is not None else None
    for chunk in split_by_suit(toggles, hand.suits if hand is not None else None):
        options = [discord.SelectOption(label=label, value=b.token, default=b.style == "selected")
                   for b, label in zip(chunk, _distinct([_label(b.label.lstrip("✓")) for b in chunk]), strict=True)]
        first, last = options[0].label, options[-1].label
        shown = first if len(options) == 1 else f"{first} … {last} ({len(options)})"
        select = CardSelect(f"{SELECT_PREFIX}{len(rows)}:{chunk[0].token}", options, placeholder=shown[:150])
        rows.append([select])
    for row in view.buttons:
        kept = [b for b in row if not _is_toggle(b) and b.kind != "inline_query" and b.token]
        for start in range(0, len(kept), MAX_PER_ROW):
            rows.append([_button(b) for b in kept[start:start + MAX_PER_ROW]])
    for index, items in enumerate(rows[:MAX_ROWS]):
        for item in items:
            item.row = index
            ui.add_item(item)
    return content, ui


def _play_rows(choices: Sequence[Button]) -> list[list[discord.ui.Item[Any]]]:
    """Few plays: a row of buttons; more: single-choice menus of 25 (at most two)."""
    if not choices:
        return []
    if len(choices) <= PLAY_BUTTONS:
        return [[_button(b) for b in choices]]
    out: list[list[discord.ui.Item[Any]]] = []
    for n, start in enumerate(range(0, min(len(choices), 2 * MAX_OPTIONS), MAX_OPTIONS)):
        chunk = choices[start:start + MAX_OPTIONS]
        labels = _distinct([_label(b.label) for b in chunk])
        options = [discord.SelectOption(label=label, value=b.token) for b, label in zip(chunk, labels, strict=True)]
        placeholder = f"▶ {labels[0]} … ({len(chunk)})" if len(chunk) > 1 else f"▶ {labels[0]}"
        out.append([PlaySelect(f"{PLAYS_PREFIX}{n}:{chunk[0].token}", options, placeholder=placeholder[:150])])
    return out


def _distinct(labels: list[str]) -> list[str]:
    """Labels told apart: the second copy of a card is "♠A ²" (Discord shows two identical options alike)."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} {'²³⁴⁵⁶⁷⁸⁹'[min(seen[label], 9) - 2]}"[:MAX_LABEL])
    return out


def split_by_suit(cards: list[Button], groups: Sequence[str] | None = None) -> list[list[Button]]:
    """Runs of at most 25 cards for the select menus, cut where the suit changes when that is possible.

    The host sends the hand sorted (trumps, then each suit), so a menu then
    holds whole suits: a 33-card bury is e.g. trumps and spades, then the rest.
    `groups`: each card's group as the scene gives it ("T" for a trump, else its suit); a view drawn
    without a scene is cut only at 25: a label is never read back into a card.
    """

    def group(b: Button) -> str:
        if groups is not None and isinstance(b.act, Toggle) and 0 <= b.act.index < len(groups):
            return groups[b.act.index]
        return "*"

    out: list[list[Button]] = []
    rest = list(cards)
    while len(rest) > MAX_OPTIONS:
        cut = MAX_OPTIONS
        for i in range(MAX_OPTIONS, MAX_OPTIONS // 2, -1):
            if group(rest[i]) != group(rest[i - 1]):
                cut = i
                break
        out.append(rest[:cut])
        rest = rest[cut:]
    if rest:
        out.append(rest)
    return out


def _button(b: Button) -> discord.ui.Item[Any]:
    if b.kind in ("url", "web_app"):  # no Mini Apps here: the web table opens as a link
        return discord.ui.Button(label=_label(b.label), url=b.token)
    return HostButton(b.token, label=_label(b.label), style=_STYLES.get(b.style, discord.ButtonStyle.secondary))
