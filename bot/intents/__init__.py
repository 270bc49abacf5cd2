"""Intents in: what a person asked, typed and bound to the version it was drawn for (`types`), button
data's one codec (`codec`) and typed text's one parser (`text`)."""
