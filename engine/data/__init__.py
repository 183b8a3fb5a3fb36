"""Data files shipped with the engine: the setting solver's opponent tables
(solver-PRESET.npz, made by tools/make_solver_tables.py)."""
