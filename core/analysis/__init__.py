"""For analysts (SPEC C3, R9): star map, collection view, distance plots, model-level baseline, evaluation runs."""
