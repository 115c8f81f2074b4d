"""`pyir grad` (being written)."""
