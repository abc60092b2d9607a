"""Pure values of git refocus: ids, the status machine, events and their fold,
briefs, results, frontmatter, note lines, the clock. No I/O: nothing here reads
or writes git or disk. May import only ``gitrefocus.errors`` and each other."""
