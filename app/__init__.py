"""The composition root: the `tractor-host` command and the wiring of the house.

Only this package knows which store, which platforms and which engine a
host is built from; `adapters/`, `bot/`, `persistence/` and `engine/` are
handed what they need and never import back up here.
"""
