"""Grounded answers (SPEC S6, W5 applied to every answer): compose only from the final context.

``compose`` builds the answer with a model or, without one, extractively; ``spans`` keeps
exact values (links, e-mails, phones, amounts, identifiers) out of the model's hands;
``citations`` and ``numbers`` check what came back.
"""
