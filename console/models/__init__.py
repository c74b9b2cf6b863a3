"""Presentation models: pure-Python state of each screen, observed by the widgets (napari's pattern).

A model owns what a screen shows and fetches it from the ``Engine`` through the op runner
(console/ops.py) — never on the UI thread. Widgets render from the model and send it the
user's intents; they never call the engine themselves.
"""
