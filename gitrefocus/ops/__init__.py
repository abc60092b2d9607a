"""Operations built from model + store: recording an event everywhere it
belongs, reconciling hand-edited briefs, linkage, guards, promotion into the
context files, INDEX.md, repository setup, saving a transcript. May import
``model``, ``store`` and ``errors``; knows nothing about click or output."""
