"""`pyir convert IN -o OUT`: a thin wrapper over `pyir.files.convert_model`."""

from __future__ import annotations

import click

from pyir.files.convert import convert_model


@click.command("convert")
@click.argument("src", metavar="IN", type=click.Path(dir_okay=False))
@click.option("-o", "--output", "out", required=True, type=click.Path(dir_okay=False),
              help="The program file to write: .json for PIR, else a legacy .pdmodel; its "
                   ".pdiparams goes beside.")
@click.option("--params", type=click.Path(dir_okay=False), default=None,
              help="IN's parameter file (default: IN's .pdiparams beside it).")
def convert(src: str, out: str, params: str | None) -> None:
    """Write IN (a Paddle 3 PIR .json, a Paddle .pdmodel or a pyir .pb) as a legacy .pdmodel,
    or as a PIR .json when OUT ends in .json, with its parameters beside it. Paddle 3 loads a
    .pdmodel with FLAGS_enable_pir_api=0 (Netron opens it) and a .json in its default mode.

    \b
    Examples:
      pyir convert model.json -o legacy/model.pdmodel
      pyir convert model.pdmodel -o model.json
    """
    done = convert_model(src, out, params)
    extra = f" + {done.params_path}" if done.params_path else ""
    click.echo(f"wrote {done.path}{extra} ({done.ops} ops)")
