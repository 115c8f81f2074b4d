"""`pyir view MODEL`: a thin wrapper over `pyir.files.view.serve_model` (Netron)."""

from __future__ import annotations

import click


@click.command("view")
@click.argument("model", type=click.Path(dir_okay=False))
@click.option("--port", type=click.IntRange(0, 65535), default=0,
              help="Port to serve on (default: a free one).")
@click.option("--no-browser", is_flag=True, help="Only print the address; open no browser.")
def view(model, port, no_browser) -> None:
    """Show MODEL in Netron, served on localhost until Ctrl-C: ops, py_func callables and
    attributes in the sidebar. Needs Netron: pip install netron (or 'pyir[view]').

    \b
    A `.pb` file is served as `.pdmodel`, the name Netron's Paddle reader looks for; Netron
    opens pyir's and Paddle's `.pdmodel` files directly too (`netron model.pdmodel`).

    \b
    Example:
      pyir view out/mlp.pdmodel
    """
    from pyir.files.view import serve_model

    address, url = serve_model(model, port, browse=not no_browser)
    import netron  # serve_model found it

    click.echo(f"serving {model} in Netron at {url} (Ctrl-C to stop)")
    try:
        netron.wait()
    finally:
        netron.stop(address)
