"""English rule tables, one module per family of written forms; `rules.py` sets the one
order they all run in (a family's rules interleave with the others')."""
