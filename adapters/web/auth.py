"""Who is at the other end of a web table's socket: a Telegram Mini App user (its `initData`,
signed by Telegram with a key derived from the bot's token) or the bearer of a signed, expiring
link the bot sent privately (Discord, any browser).

Both are checked with constant-time comparisons; a credential that is malformed, forged, for
another bot, or too old is refused with a reason the page can say in words.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import time
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

#: How long a Mini App's initData is good for: Telegram signs it when the app opens, and a page
#: left open for a day should open anew rather than reuse it.
INIT_DATA_MAX_AGE = 24 * 3600.0
#: How long a signed seat link is good for (a long match fits; an old link in a chat does not last).
LINK_TTL = 12 * 3600.0


#: A Mini App's start parameter: `m<match id>`, and from a group's link `_<proof>` (Telegram allows
#: 64 characters of A-Z, a-z, 0-9, _ and -).
START_PARAM = re.compile(r"m(\d{1,12})(?:_([A-Za-z0-9_-]{1,40}))?")


class AuthError(Exception):
    """A credential was refused; `reason` is one of "malformed", "forged", "expired"."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Person:
    """Who opened the page: a platform's user (None for the bearer of a public link)."""

    platform: str
    user_id: str | None
    name: str
    language: str | None
    match_id: int | None  # the table the credential names, if it names one
    proof: str = ""  # a Mini App's start parameter carries the group link's proof (`LinkSigner.table_proof`)
    signed_link: bool = False  # a link the bot signed (it names its table)


def telegram_secret(bot_token: str) -> bytes:
    """The key Telegram signs Mini App data with: HMAC-SHA256 of the bot token, keyed "WebAppData"."""
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def sign_init_data(fields: dict[str, str], bot_token: str) -> str:
    """initData as Telegram builds it (the tests' stand-in for Telegram uses this)."""
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    digest = hmac.new(telegram_secret(bot_token), check.encode(), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest})


def check_init_data(init_data: str, bot_token: str, *, now: float | None = None,
                    max_age: float = INIT_DATA_MAX_AGE) -> Person:
    """Validates a Mini App's initData: its hash over the sorted fields, then its age."""
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError as err:
        raise AuthError("malformed") from err
    fields = dict(pairs)
    given = fields.pop("hash", "")
    if not given or len(pairs) != len(fields) + 1:
        raise AuthError("malformed")
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    want = hmac.new(telegram_secret(bot_token), check.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(want, given.lower()):
        raise AuthError("forged")
    try:
        auth_date = int(fields.get("auth_date", ""))
        user = json.loads(fields.get("user", ""))
        user_id = str(int(user["id"]))
    except (ValueError, KeyError, TypeError) as err:
        raise AuthError("malformed") from err
    now = time.time() if now is None else now
    if not now - max_age <= auth_date <= now + 60:
        raise AuthError("expired")
    name = " ".join(str(user.get(k) or "") for k in ("first_name", "last_name")).strip() or user_id
    found = START_PARAM.fullmatch(fields.get("start_param", ""))
    match_id = int(found[1]) if found else None
    return Person("telegram", user_id, name, user.get("language_code"), match_id, found[2] or "" if found else "")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class LinkSigner:
    """Signed, expiring links to one table: for one person's seat, or for onlookers (no person)."""

    def __init__(self, secret: bytes, ttl: float = LINK_TTL) -> None:
        self.key = hmac.new(b"tractor-web-link", secret, hashlib.sha256).digest()
        self.ttl = ttl

    def sign(self, platform: str, match_id: int, user_id: str | None, *, now: float | None = None) -> str:
        expires = int((time.time() if now is None else now) + self.ttl)
        body = _b64(json.dumps([platform, match_id, user_id, expires], separators=(",", ":")).encode())
        mac = _b64(hmac.new(self.key, body.encode(), hashlib.sha256).digest()[:18])
        return f"{body}.{mac}"

    def table_proof(self, platform: str, match_id: int) -> str:
        """A short proof that a link came from this table's group message: a Mini App link's start
        parameter cannot hold a whole signed link, and a table id alone can be guessed."""
        return _b64(hmac.new(self.key, f"group:{platform}:{match_id}".encode(), hashlib.sha256).digest()[:9])

    def proves(self, person: Person, match_id: int) -> bool:
        return bool(person.proof) and hmac.compare_digest(person.proof, self.table_proof(person.platform, match_id))

    def check(self, token: str, *, now: float | None = None) -> Person:
        body, _, mac = token.partition(".")
        if not body or not mac or len(token) > 400:
            raise AuthError("malformed")
        want = _b64(hmac.new(self.key, body.encode(), hashlib.sha256).digest()[:18])
        if not hmac.compare_digest(want, mac):
            raise AuthError("forged")
        try:
            platform, match_id, user_id, expires = json.loads(_unb64(body))
            match_id, expires = int(match_id), int(expires)
        except (ValueError, TypeError) as err:
            raise AuthError("malformed") from err
        if (time.time() if now is None else now) > expires:
            raise AuthError("expired")
        return Person(str(platform), None if user_id is None else str(user_id), "", None, match_id,
                      signed_link=True)
