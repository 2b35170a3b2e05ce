"""An example mmaplint rule pack; see README.md beside pyproject.toml."""
