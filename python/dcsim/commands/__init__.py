"""CLI subcommands, one module per command group (registered in dcsim.cli)."""
