"""The structured index (SPEC S1–S7): fields every document already carries, in a table.

``header`` reads "field: value" headers out of stored text, ``values`` types and
normalises values, ``propose`` proposes and validates fields over a whole space,
``table`` holds the rows in DuckDB and runs the tools, ``route`` maps a question to
one tool call by rules, ``lint`` flags chunks that state attributes only as bare values.
"""
