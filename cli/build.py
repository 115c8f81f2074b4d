"""`pyir build` (being written)."""
