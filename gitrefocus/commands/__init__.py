"""One module per command; each public function takes keyword arguments and
returns a typed outcome, a frozen dataclass (the model both renderers use):
the CLI draws text from its attributes and prints ``to_json()`` for ``--json``.
Nothing here knows click, and nothing here prints: warnings travel in the outcome."""
