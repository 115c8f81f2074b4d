"""`pyir run` (being written)."""
