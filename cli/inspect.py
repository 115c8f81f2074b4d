"""`pyir inspect` (being written)."""
