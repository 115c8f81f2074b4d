"""`pyir ops` (being written)."""
