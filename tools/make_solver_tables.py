"""Make the setting solver's opponent tables (engine/data/solver-*.npz) by self-play.

    .venv/bin/python tools/make_solver_tables.py                 # every preset
    .venv/bin/python tools/make_solver_tables.py 2-4 --rounds 4  # one preset

Seeded and resumable (finished rounds are kept in build/solver-tables/); see
engine/solver/train.py for the method and the options.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.solver.train import main

if __name__ == "__main__":
    sys.exit(main())
