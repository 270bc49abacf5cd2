"""The features that plug into the host (bot.feature): each declares its commands in the registry
(bot.commands) and gets a narrow context. `app/features.py` lists them; the host imports none.

- `opening`      `new`, and a best-of-three's next game
- `settings`     `lang`, `rules`, `help`, a private `start`
- `league`       standings, stats, history, replay, season, ranking, export; recording every match
- `tournaments`  `tournament …`, a table per match
- `boards`       `board`, `daily`, `duplicate`: deals fixed in advance and the events that compare them
- `inline`       the plays offered in a platform's inline mode
"""
