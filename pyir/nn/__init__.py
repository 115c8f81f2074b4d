"""pyir.nn: functional ops, Linear, losses (being written)."""
