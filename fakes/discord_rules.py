"""What Discord refuses that the fake Discord (`fakes.discord_api`) checks besides its forms and
limits there: embeds beyond their limits, empty messages (50006), a callback type that does not fit
the interaction, autocomplete choices out of bounds, and the invalid-request limit (10,000 answers
of 401, 403 or 429 in 10 minutes, after which Cloudflare shuts the bot out for a while).

Pure functions and one small counter, so the server keeps to routing and state.
"""

from __future__ import annotations

from collections import deque
from typing import Any

JSON = dict[str, Any]

# Embed limits (Discord's "Embed Limits").
MAX_EMBEDS = 10
EMBED_TITLE, EMBED_DESCRIPTION, EMBED_FIELDS = 256, 4096, 25
FIELD_NAME, FIELD_VALUE, FOOTER_TEXT, AUTHOR_NAME, EMBED_TOTAL = 256, 1024, 2048, 256, 6000
# Autocomplete: 25 choices at most, each name 1-100 characters, a string value at most 100.
MAX_CHOICES, CHOICE_NAME, CHOICE_VALUE = 25, 100, 100
# The invalid-request limit: this many 401, 403 and 429 answers in this window (Discord's clock).
INVALID_LIMIT = (10_000, 600.0)
BAN_S = 3600.0  # how long Cloudflare keeps a bot out once over it (Discord says "a while": an hour here)

# Interaction types and the callback types Discord takes for each.
PING, COMMAND, COMPONENT, AUTOCOMPLETE_INTERACTION, MODAL_SUBMIT = 1, 2, 3, 4, 5
FITTING: dict[int, frozenset[int]] = {
    PING: frozenset({1}),
    COMMAND: frozenset({4, 5, 9}),
    COMPONENT: frozenset({4, 5, 6, 7, 9}),
    AUTOCOMPLETE_INTERACTION: frozenset({8}),
    MODAL_SUBMIT: frozenset({4, 5, 6, 7}),
}


def embed_problems(embeds: object) -> list[str]:
    """Discord's embed limits (400, 50035 beyond them)."""
    if embeds is None:
        return []
    if not isinstance(embeds, list):
        return ["embeds is not a list"]
    out: list[str] = []
    if len(embeds) > MAX_EMBEDS:
        out.append(f"{len(embeds)} embeds (max {MAX_EMBEDS})")
    total = 0
    for n, embed in enumerate(embeds):
        if not isinstance(embed, dict):
            out.append(f"embed {n} is not an object")
            continue
        title, description = str(embed.get("title") or ""), str(embed.get("description") or "")
        footer = str((embed.get("footer") or {}).get("text") or "")
        author = str((embed.get("author") or {}).get("name") or "")
        fields = embed.get("fields") or []
        for what, text, most in (("title", title, EMBED_TITLE), ("description", description, EMBED_DESCRIPTION),
                                 ("footer", footer, FOOTER_TEXT), ("author name", author, AUTHOR_NAME)):
            if len(text) > most:
                out.append(f"embed {n}: {what} of {len(text)} characters (max {most})")
        if len(fields) > EMBED_FIELDS:
            out.append(f"embed {n}: {len(fields)} fields (max {EMBED_FIELDS})")
        total += len(title) + len(description) + len(footer) + len(author)
        for field in fields:
            name, value = str(field.get("name") or ""), str(field.get("value") or "")
            if not 1 <= len(name) <= FIELD_NAME or not 1 <= len(value) <= FIELD_VALUE:
                out.append(f"embed {n}: a field's name is 1-{FIELD_NAME} characters, its value 1-{FIELD_VALUE}")
            total += len(name) + len(value)
    if total > EMBED_TOTAL:
        out.append(f"embeds of {total} characters in all (max {EMBED_TOTAL})")
    return out


def empty(body: JSON, *, files: bool = False) -> bool:
    """A message with nothing to show (Discord: 400, 50006 "Cannot send an empty message")."""
    return not (body.get("content") or body.get("embeds") or body.get("components") or body.get("sticker_ids")
                or body.get("poll") or files or body.get("_files"))


def callback_problem(interaction_type: int, callback_type: int) -> str | None:
    """A callback type that does not fit the interaction (an update for a command, a message for an
    autocomplete, ...): Discord refuses it with 400."""
    if callback_type in FITTING.get(interaction_type, frozenset()):
        return None
    return f"callback type {callback_type} for an interaction of type {interaction_type}"


def choice_problems(choices: object) -> list[str]:
    """Discord's bounds on an autocomplete answer's choices."""
    if not isinstance(choices, list):
        return ["choices is not a list"]
    out: list[str] = []
    if len(choices) > MAX_CHOICES:
        out.append(f"{len(choices)} choices (max {MAX_CHOICES})")
    for c in choices:
        name = c.get("name") if isinstance(c, dict) else None
        value = c.get("value") if isinstance(c, dict) else None
        if not isinstance(name, str) or not 1 <= len(name) <= CHOICE_NAME:
            out.append(f"a choice's name is 1-{CHOICE_NAME} characters: {name!r}")
        if isinstance(value, str) and len(value) > CHOICE_VALUE:
            out.append(f"a choice's value over {CHOICE_VALUE} characters")
        elif value is None:
            out.append("a choice without a value")
    return out


class InvalidRequests:
    """Counts answers of 401, 403 and 429 (a shared-scope 429 excepted, as Discord does) in a sliding
    window; past the limit every request is refused until the ban ends."""

    def __init__(self, limit: tuple[int, float] = INVALID_LIMIT, ban_s: float = BAN_S) -> None:
        self.limit, self.window = limit
        self.ban_s = ban_s
        self.times: deque[float] = deque()
        self.banned_until: float | None = None
        self.bans = 0

    def banned(self, now: float) -> bool:
        if self.banned_until is not None and now >= self.banned_until:
            self.banned_until = None
            self.times.clear()
        return self.banned_until is not None

    def count(self, status: int, now: float, *, shared: bool = False) -> None:
        if status not in (401, 403, 429) or shared:
            return
        self.times.append(now)
        while self.times and now - self.times[0] >= self.window:
            self.times.popleft()
        if len(self.times) >= self.limit and self.banned_until is None:
            self.banned_until = now + self.ban_s
            self.bans += 1
