"""One module per command; each public function takes keyword arguments and
returns a plain dict (the model both renderers use). Nothing here knows click."""
