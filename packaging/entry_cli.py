"""Entry of the bundled command line (PyInstaller runs this file as ``__main__``)."""

import multiprocessing

from biny.core.cli import run

if __name__ == "__main__":
    # PDF parsing and OCR run in spawned children: in a frozen app the child is this executable again,
    # and freeze_support turns it into the child before anything else runs.
    multiprocessing.freeze_support()
    run()
