"""Propose fields from a sample of documents, validate them over all of them (SPEC S2, S4).

The proposer reads the headers of a sample and names every field it sees; the
validator then measures each over the whole space — coverage (kept at ≥ 1/5 of
documents, else dropped with the figure), every value a verbatim slice of its
document, a type most values support — and says why a space gets no index at all.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from biny.core.i18n import msg
from biny.core.structured.header import FORMS, HeaderField, key_value_blocks, opening_lines, read_header
from biny.core.structured.lexicon import TITLE_NAMES
from biny.core.structured.spec import FieldSpec, IndexSpec, Opening, Proposal, ProposedField
from biny.core.structured.values import PROSE_CHARS, guess_type

MIN_COVERAGE = 0.2  # S2: a field in fewer than one fifth of documents would silently omit the rest
# Documents (evenly spaced) whose field names are proposed, each then validated over all: a bound on the work.
SAMPLE = 200
SHOWN = 3  # documents whose opening lines a "no" shows
# A text field is the title when nearly every document has its own value (this share distinct) and the values are
# short (median characters under the bound): no measurement is recorded.
_TITLE_DISTINCT = 0.9
_TITLE_CHARS = 120
# Example values shown per proposed field, each cut to a line's part: display bounds, not tuned.
_EXAMPLES = 3
_EXAMPLE_CHARS = 80
# A longer example is cut to this many characters and "…".
_EXAMPLE_CUT = 77
# Characters of the one value a field holds everywhere quoted in why it is dropped: a display bound, not tuned.
_SAME_VALUE_CHARS = 40


@dataclass(slots=True)
class DocText:
    doc_id: str
    revision: int
    title: str
    text: str


@dataclass(slots=True)
class DocHeader:
    doc_id: str
    revision: int
    title: str
    fields: dict[str, HeaderField]


def headers(docs: Sequence[DocText]) -> list[DocHeader]:
    out = []
    for d in docs:
        # Every value is its document's own text (a continued line's breaks read as spaces).
        fields = {f.name: f for f in read_header(d.text) if " ".join(d.text[f.start : f.end].split()) == f.value}
        out.append(DocHeader(d.doc_id, d.revision, d.title, fields))
    return out


def _sample(items: Sequence[DocHeader], n: int) -> list[DocHeader]:
    if len(items) <= n:
        return list(items)
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def _title_field(kept: list[ProposedField], values: dict[str, list[str]]) -> str:
    names = {f.name.casefold(): f.name for f in kept if f.type in {"text", "list", "identifier"}}
    for want in TITLE_NAMES:
        if want in names:
            return names[want]
    for f in kept:
        low = f.name.casefold()
        if f.type == "text" and ("title" in low or low.endswith("name") or "名" in low):
            return f.name
    for f in kept:  # else the most distinctive short text
        vals = values[f.name]
        if f.type == "text" and vals and len(set(vals)) >= _TITLE_DISTINCT * len(vals) \
                and statistics.median(map(len, vals)) < _TITLE_CHARS:
            return f.name
    return ""


def _examples(vals: list[str]) -> list[str]:
    out: list[str] = []
    for v, _ in Counter(vals).most_common():
        if len(out) == _EXAMPLES:
            break
        out.append(v if len(v) <= _EXAMPLE_CHARS else v[:_EXAMPLE_CUT] + "…")
    return out


def _judge(name: str, vals: list[str], total: int) -> ProposedField:
    guess = guess_type(name, vals)
    coverage = len(vals) / max(total, 1)
    kept, reason = True, msg("in {n} of {total} documents").format(n=len(vals), total=total)
    if coverage < MIN_COVERAGE:
        kept = False
        reason = msg("only in {n} of {total} documents ({share}, under 1/5): a filter on it would silently leave out "
                     "the rest").format(n=len(vals), total=total, share=f"{coverage:.0%}")
    elif len(set(vals)) == 1 and total > 1:
        kept, reason = False, msg("the same value ({value}) in every document: nothing to count or filter").format(
            value=repr(vals[0][:_SAME_VALUE_CHARS]))
    elif guess.type == "text" and statistics.median(map(len, vals)) > PROSE_CHARS:
        kept = False
        reason = msg("prose (median {n} characters): left to retrieval; include it with --fields if it should be "
                     "filterable").format(n=f"{statistics.median(map(len, vals)):.0f}")
    elif guess.bad:
        reason += "; " + msg("{n} values do not read as {type} and have no numeric value").format(n=guess.bad,
                                                                                              type=guess.type)
    return ProposedField(name, guess.type, coverage, kept, reason, _examples(vals), len(vals), guess.bad,
                         guess.separator)


def propose(docs: Sequence[DocText]) -> Proposal:
    """Fields from a sample's headers, each validated over every document."""
    heads = headers(docs)
    total = len(heads)
    with_header = sum(1 for h in heads if h.fields)
    names: list[str] = []
    for h in _sample(heads, SAMPLE):
        names += [n for n in h.fields if n not in names]
    values = {n: [h.fields[n].value for h in heads if n in h.fields] for n in names}
    fields = [_judge(n, values[n], total) for n in names]
    fields.sort(key=lambda f: (not f.kept, -f.coverage))
    proposal = Proposal(total, fields, with_header=with_header)
    if not total:
        proposal.reason = msg("The space has no documents yet.")
    elif not proposal.kept:
        proposal.reason = (
            msg("No index: {n} of {total} documents open with a machine-readable header (\"field: value\" lines, "
                "front matter or a two-column table)").format(n=with_header, total=total)
            + (msg(", and no field is shared by 1/5 of them") if with_header else "")
            + msg(". A table whose values all differ could not count or group anything; questions go to retrieval."))
    proposal.title_field = _title_field(proposal.kept, values)
    several = sum(1 for h, d in zip(heads, docs, strict=True) if h.fields and key_value_blocks(d.text) > 1)
    if several:
        proposal.notes.append(msg("{n} of {total} documents state several key–value tables or blocks; the first one "
                                  "in each is read as its header, the others stay in the text for retrieval")
                              .format(n=several, total=total))
    if total and not proposal.kept:
        _evidence(proposal, heads, docs)
    return proposal


def _evidence(proposal: Proposal, heads: list[DocHeader], docs: Sequence[DocText]) -> None:
    """A "no" a curator can check: the forms looked for, the first documents' opening lines (those without a
    header first, by title), and what to do next."""
    proposal.looked_for = [msg(f) for f in FORMS]
    order = sorted(zip(heads, docs, strict=True), key=lambda hd: (bool(hd[0].fields), hd[1].title, hd[1].doc_id))
    proposal.openings = [Opening(d.doc_id, d.title, opening_lines(d.text), bool(h.fields)) for h, d in order[:SHOWN]]
    if proposal.with_header:
        proposal.next_step = msg("Use the same field names in every document (at least 1 in 5 must share one), or "
                                 "choose fields with `biny index build --fields …`; then propose again.")
    else:
        proposal.next_step = msg("Start each document with its fields — 'Field: value' lines, or one two-column "
                                 "table — then propose again. Pages added before tables were read (HTML, DOCX, PDF) "
                                 "must be added again for their tables to be read. Until then, questions go to "
                                 "retrieval.")


def select(proposal: Proposal, fields: Sequence[str] | None, exact: Sequence[str] | None) -> IndexSpec:
    """The spec to build: the kept fields (or the named ones, as written), exact ones marked.

    Names given by the curator must exist in the proposal; ``exact`` matches case-insensitively.
    """
    by_name = {f.name: f for f in proposal.fields}
    by_fold = {f.name.casefold(): f for f in proposal.fields}
    if fields:
        unknown = [n for n in fields if n not in by_name and n.casefold() not in by_fold]
        if unknown:
            raise ValueError(f"unknown field(s) {', '.join(unknown)}; known: {', '.join(by_name)}")
        chosen = [by_name.get(n) or by_fold[n.casefold()] for n in fields]
    else:
        chosen = proposal.kept
    wanted = {e.casefold() for e in exact or ()}
    unknown_exact = sorted(wanted - {f.name.casefold() for f in chosen})
    if unknown_exact:
        raise ValueError(f"exact field(s) not in the index: {', '.join(unknown_exact)}")
    specs = [FieldSpec(f.name, f.type, f.separator, f.name.casefold() in wanted, round(f.coverage, 4))
             for f in chosen]
    title = proposal.title_field if proposal.title_field in {f.name for f in chosen} else ""
    # The fields the rows hold that the index leaves out (too rare, free text): a question asking one goes to
    # retrieval over the row passages, never "the table gives no …" (issue 64).
    left_out = [f.name for f in proposal.fields if f.name not in {c.name for c in chosen}]
    return IndexSpec(specs, title, proposal.documents, extra={"unindexed": left_out} if left_out else {})


def row_values(head: DocHeader, spec: IndexSpec) -> dict[str, str]:
    return {f.name: head.fields[f.name].value for f in spec.fields if f.name in head.fields}

