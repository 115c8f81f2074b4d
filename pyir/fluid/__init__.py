"""pyir.fluid: the fluid-era names seed 000 uses (being written)."""
