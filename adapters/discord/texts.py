"""The few words the Discord adapter says itself (the host's catalogs hold everything else)."""

from __future__ import annotations

_TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "bad_button": "That button is not one of mine (anymore). Use the latest table message.",
        "internal": "Something went wrong; the table is unchanged.",
        "dm_on": "Your hands will now come as direct messages (if your privacy settings allow them).",
        "dm_off": "Your hands will now show here, only to you, when you press “My hand”.",
        "dm_sent": "Your hand is in your direct messages.",
    },
    "zh": {
        "bad_button": "这个按钮无效（或已过期），请使用最新的牌桌消息。",
        "internal": "出了点问题，牌桌没有变化。",
        "dm_on": "之后你的手牌将通过私信发送（需隐私设置允许）。",
        "dm_off": "之后按“我的手牌”，手牌只在这里显示给你一人。",
        "dm_sent": "手牌已通过私信发送。",
    },
}


def text(lang: str, key: str) -> str:
    """The adapter's text for `key`, English when the language is not known."""
    return _TEXTS.get(lang, _TEXTS["en"]).get(key) or _TEXTS["en"][key]
