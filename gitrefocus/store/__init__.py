"""Everything that reads or writes git and disk: the event-log refs, notes and
their merge, the catalog, the workspace, machine-local state, configuration,
atomic files, scoped commits and the one git subprocess wrapper. The only
package that moves a ref. May import ``gitrefocus.model`` and
``gitrefocus.errors``, never ``ops``, ``commands`` or the front ends."""
