"""The scene: one typed picture of a table per viewer, which every front door draws."""
