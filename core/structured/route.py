"""Question → one tool call, by rules over the index's field names, their synonyms and values.

No model is needed: a question is routed when its words name the index's fields, values
or items and ask for a count, a filter, a group, an extreme or a field of a named item
(English and Chinese forms). Anything else is not routed and goes to retrieval.
``Router.route`` returns the call and the evidence it read, for the trace and console.

Three parts (issue 56): what the index knows (``vocabulary.Vocabulary``, built once per index generation), a
question read against it (``reader.Reader``), and here the call decided from that reading.
"""

from __future__ import annotations

import re

from biny.core.calls import Refusal as Refusal
from biny.core.calls import Routed as Routed
from biny.core.i18n import msg
from biny.core.store.structured import QueryTable
from biny.core.structured import lexicon as lx
from biny.core.structured.reader import CJK_RUN, QUALIFIER, Asked, Mention, Reader, Span, starts
from biny.core.structured.spec import IndexSpec
from biny.core.structured.tools import Condition, ToolCall
from biny.core.structured.vocabulary import Vocabulary, key, name_words

# Between two fields' words side by side, the later is the head noun: "amazon link", "Amazon-Link", 亚马逊链接,
# アマゾンのリンク ask the link, not the "Is Amazon Seller" flag.
_MODIFIER_GAP = re.compile(r"[\s\-‐–]?|[の的]")
# Rows named equally are asked back about ("the Thermo Probe or the Freezer Probe?") when there are at most this
# many, and the first this many are named in the evidence: a bound, not tuned.
_TIED_ASKED = 4
# Characters between "per"/"each"/"每个" and the field it groups by: the field right after it, a space or so between.
_PER_GAP = 3
# Characters between "which"/"哪个" and the field it asks ("which genre"): the field right after it, a space or so
# between.
_WHICH_GAP = 4


class Router:
    """Built once per index generation: the index's vocabulary, a reader over it, and the call each question asks."""

    def __init__(self, spec: IndexSpec, table: QueryTable) -> None:
        self.spec = spec
        self.vocabulary = Vocabulary(spec, table)
        self.reader = Reader(self.vocabulary)

    def route(self, question: str) -> Routed:
        """The tool call a question asks for, or why none (each step below returns when it decides)."""
        asked = self.reader.read(question)
        if asked.ids:  # a lookup: a named item and one of its fields ("the link of The Hunger Games")
            return self._lookup(asked)
        # "多少钱" asks a price, not a count: counting words inside a field's words do not count.
        counting, mentions = asked.counting, asked.mentions
        # "评分多少" (the rating, how much) asks the field's value too: a counting word right after a field's words.
        asks_count = counting is not None and not any(m.start <= counting.start() <= m.end + 1 for m in mentions)
        refused = self._no_such_row(asked, asks_count)
        if refused is not None:
            return refused
        qf, taken = asked.qf, asked.taken
        taken += [Span(m.start, m.end) for m in mentions]
        conds = self.reader.value_conditions(question, qf, taken, asked.ev)
        conds += self.reader.number_conditions(question, qf, taken, mentions, asked.ev)
        unknown = self.reader.unexplained_names(question, taken)
        if unknown:
            return self._unexplained(asked, unknown, asks_count, touched=bool(mentions or conds or asks_count))
        return self._aggregate(asked, conds)

    def _lookup(self, asked: Asked) -> Routed:
        """A named item: the field asked of it, or why none can be answered."""
        qf, item_words, reading, ev = asked.qf, asked.item_words, asked.reading, asked.ev
        target = self._lookup_field(asked)
        left_out = self.reader.unindexed_asked(asked, target)
        if left_out:
            # The row is named and its passage holds the field as a "Field: value" line: read from that row alone,
            # never from whichever passages retrieval finds (issue 64).
            ev.append(msg("asks for {field!r}, which the rows hold but the index leaves out: read from the named row's "
                          "own text").format(field=left_out))
            return Routed(ToolCall("lookup", left_out, doc_id=asked.ids[0], matched=item_words), ev)
        if target is not None and self._outweighed(asked, target):
            target = None
        other = _other_kind(self.vocabulary.foreign_qualifiers, asked, target)
        if other:  # "list price" of a table whose price is the selling price: not that price (issue 64)
            ev.append(msg("asks for {asked!r}; the table's {field!r} is another kind of it").format(
                asked=other, field=target))
            return Routed(None, ev, refusal=Refusal("field", other, target or "", self.vocabulary.title(asked.ids[0]),
                                                    asked.ids[0]))
        k = key(item_words)
        if reading is not None and reading.named is not None:
            how = msg("its distinctive words (covering {share})").format(share=f"{reading.named.cover:.0%}")
            if reading.named.misspelt:
                how += "; " + ", ".join(f"{a!r} read as {b!r}" for a, b in reading.named.misspelt)
        else:
            how = (msg("its title as written") if self.vocabulary.exact_titles.get(k) else
                   msg("its title before a colon or bracket") if k in self.vocabulary.titles else msg("its key field"))
        title = self.vocabulary.title(asked.ids[0]) or item_words
        if target is not None:
            ev.append(msg("item {item!r}, matched by {how}").format(item=item_words, how=how))
            ev.append(msg("field {target!r} named in the question").format(target=target))
            others = [self.vocabulary.names.names[i] for i in reading.named.others] \
                if reading is not None and reading.named is not None else []
            if others:
                ev.append(msg("also near: {names}").format(names="; ".join(others)))
            return Routed(ToolCall("lookup", target, doc_id=asked.ids[0], matched=item_words), ev, others=others)
        lacking = self.reader.lacking_word(qf, asked.taken)
        if lacking:
            closest = self.vocabulary.closest_field(lacking)
            ev.append(msg("asks for {asked!r}, which no field of the index holds").format(asked=lacking))
            return Routed(None, ev, refusal=Refusal("field", lacking, closest, title, asked.ids[0],
                                                    self.vocabulary.lacking.get(lacking, "")))
        ev.append(msg("names the item {item_words!r} but none of its fields: a question about it, for retrieval")
                  .format(item_words=item_words))
        return Routed(None, ev, named_row=(asked.ids[0], title) if len(asked.ids) == 1 else None)

    def _lookup_field(self, asked: Asked) -> str | None:
        """The field asked of a named item. Named by its key ("PEP 8"), an item's title is a field one may ask for
        ("the title of PEP 8"); of fields named alike, the one asked first ("In what language is X written?")."""
        mentions, item_words = asked.mentions, asked.item_words
        # The title is a field one may ask only of an item named by its key ("the title of PEP 8"), not of one named
        # by its title's words ("Name of the Wind average score" asks the rating).
        by_key = asked.reading is None and key(item_words) not in self.vocabulary.titles
        bonus = {m.field: QUALIFIER for m in asked.qualifiers}
        target = self._best(mentions, "any", with_title=by_key, bonus=bonus)
        if target is not None:
            top = max(m.score + bonus.get(m.field, 0.0) for m in mentions if m.field == target)
            firsts = [m for m in mentions if m.score + bonus.get(m.field, 0.0) >= top
                      and self.spec.get(m.field) is not None
                      and (m.field != self.spec.title_field or key(item_words) not in self.vocabulary.titles)]
            firsts = [m for m in firsts if by_key or m.field != self.spec.title_field]
            firsts = [m for m in firsts if not any(  # "amazon link": the head noun, not its modifier
                h.field != m.field and h.start >= m.end and _MODIFIER_GAP.fullmatch(asked.qf[m.end : h.start])
                for h in firsts)]
            if firsts:
                target = min(firsts, key=lambda m: m.start).field
        if lx.WHEN_QUESTION.search(asked.qf) and (target is None or self.vocabulary.timeless(target)):
            # "When did the Glass Break come out?", "when was the odyssey written": a time is asked; "written" names
            # the author too, but no author answers "when".
            dated = [f.name for f in self.spec.fields if f.type in {"year", "date"}]
            target = dated[0] if len(dated) == 1 else None if target is None else target
        return target

    def _outweighed(self, asked: Asked, target: str) -> bool:
        """Does the question ask for an attribute no field holds more than it names ``target``? "How much does it
        weigh?" names a price only by its question form; "Who published it?" holds "published" (the year) inside
        its words for the publisher (issue 64)."""
        lack = self.reader.lacking_span(asked.qf, asked.taken)
        if lack is None:
            return False
        named = [m for m in asked.mentions if m.field == target]
        return all(m.asking for m in named) or any(lack.start <= m.start and m.end <= lack.end for m in named)

    def _no_such_row(self, asked: Asked, asks_count: bool) -> Routed | None:
        """A field asked of a row named ambiguously, or of a row the index does not hold: said, not guessed."""
        reading, mentions, qf, ev = asked.reading, asked.mentions, asked.qf, asked.ev
        if reading is None:
            return None
        if reading.why == "tie":
            tied = [self.vocabulary.names.names[i] for i in reading.tied[:_TIED_ASKED]]
            ev.append(msg("names {names} equally: not one row").format(names=" / ".join(tied)))
            if mentions and not asks_count and not lx.SUPERLATIVE_ANY.search(qf) and len(reading.tied) <= _TIED_ASKED:
                # "the price of the Probe": the Thermo Probe or the Freezer Probe? Asked, not guessed (issue 64).
                return Routed(None, ev, refusal=Refusal("which", "", " / ".join(tied)))
        if reading.unknown and (reading.brand or reading.conflict) and mentions and not asks_count \
                and not lx.SUPERLATIVE_ANY.search(qf):
            # "the price of the Tallow Smoke Alarm": the catalogue's brand and a field, but no row of that name; "the
            # price of the Leak Cable 5 m": a number or another row's word where the closest row has none.
            near = self.vocabulary.names.closest(reading.unknown)
            if near is None:  # nothing shares its letters: the row its words come nearest to, brand and all
                near = self.vocabulary.names.closest(asked.question)
            closest = self.vocabulary.names.names[near] if near is not None else ""
            ev.append(msg("names {asked!r}, which no row of the index is").format(asked=reading.unknown))
            return Routed(None, ev, refusal=Refusal("row", reading.unknown, closest))
        return None

    def _unexplained(self, asked: Asked, unknown: list[str], asks_count: bool, *, touched: bool) -> Routed:
        """The question names values no field holds: for retrieval, or a row no name matches.

        A refusal says what the index looked for only when the question asked the index something — a field, a
        value or a count (issue 55): "How do I pair the Hub with Alexa?" is a prose question, and its refusal says
        nothing of the index's values."""
        routed = Routed(None, [*asked.ev, msg("names {value}, which no field of the index holds")
                                           .format(value=', '.join(map(repr, unknown)))],
                        looked_for=", ".join(unknown) if touched else "",
                        looked_in=self.vocabulary.value_fields() if touched else [])
        if asked.mentions and not asks_count and not lx.SUPERLATIVE_ANY.search(asked.qf) and len(unknown) == 1:
            # A name and a field asked of it ("What does the Acme Turbo Blender 3000 cost?"): a row no name
            # matches. Refused by the service when the space holds nothing but the table's rows.
            near = self.vocabulary.names.closest(unknown[0])
            routed.absent_row = Refusal("row", unknown[0],
                                        self.vocabulary.names.names[near] if near is not None else "")
        return routed

    def _aggregate(self, asked: Asked, conds: list[Condition]) -> Routed:
        """Over the rows: a group, an extreme, a count or a list — or nothing the index can answer."""
        qf, mentions, counting, ev, taken = asked.qf, asked.mentions, asked.counting, asked.ev, asked.taken
        subject = self._subject_field(qf, mentions)
        superlative = next(((rx.search(qf), o, k) for rx, o, k in lx.SUPERLATIVES if rx.search(qf)), None)
        per = lx.PER_GROUP.search(qf)
        group_field = self._best(mentions, "categorical")
        if group_field and (lx.GROUP_WORDS.search(qf) or (subject and lx.COUNTING_SUPERLATIVE.search(qf))
                            or (per and counting and any(0 <= m.start - per.end() <= _PER_GAP for m in mentions
                                                         if m.field == group_field))):
            grouped = subject or group_field
            order = "asc" if re.search(r"(?<!at )\bleast\b|\bfewest\b|最少|最少见", qf) else "desc"
            ev.append(f"group by {grouped!r} ({'fewest' if order == 'asc' else 'most'} first)")
            return Routed(ToolCall("group", grouped, conds, order), ev)
        if superlative is not None and self._superlative_fits(qf, superlative, mentions):
            match, order, kind = superlative
            field_name = self._superlative_field(mentions, kind, conds)
            if field_name:
                assert match is not None
                ev.append(f"{match.group(0)!r} → top by {field_name!r} ({order})")
                return Routed(ToolCall("top", field_name, conds, order), ev)
        if counting and not conds and lx.ITEM_NOUNS.search(qf):
            rest = self.reader.unexplained_words(qf, [*taken, Span(counting.start(), counting.end())])
            if rest:  # "阿加莎·克里斯蒂有几本书" names someone the index does not hold: not "all books"
                return Routed(None, [*ev, msg("asks about {rest!r}, which the index does not hold")
                                           .format(rest='、'.join(rest))],
                              looked_for=self._as_written(asked.question, qf, rest),
                              looked_in=self.vocabulary.value_fields())
        if counting and (conds or lx.ITEM_NOUNS.search(qf)):
            ev.append(f"counting words {counting.group(0)!r}")
            return Routed(ToolCall("count", None, conds), ev)
        if conds and (lx.LIST_QUESTION.search(qf) or lx.ITEM_NOUNS.match(qf.lstrip())):
            ev.append(msg("a list of the matching items"))
            return Routed(ToolCall("filter", None, conds), ev)
        return Routed(None, [*ev, msg("no count, filter, group, extreme or named item's field asked")],
                      touched=bool(mentions or conds))

    def _superlative_fits(self, qf: str, superlative: tuple[re.Match[str] | None, str, str],
                          mentions: list[Mention]) -> bool:
        """"How long does the battery of the temperature probe last?" asks a duration, not the latest row: a
        closing "last"/"first" is a superlative only in a which-question, and a superlative of a kind (price, time)
        only when the question names no other kind of numeric field (issue 55)."""
        match, _, kind = superlative
        if match is not None and match.group(0).strip(" ?？.").casefold() in {"last", "first"} \
                and not lx.WHICH.search(qf):
            return False
        if kind:
            types = {"money": {"money"}, "time": {"year", "date"}}[kind]
            numeric = [self.spec.get(m.field) for m in mentions]
            named = [f for f in numeric if f is not None and f.numeric]
            if named and not any(f.type in types for f in named):
                return False
        return True

    def _superlative_field(self, mentions: list[Mention], kind: str, conds: list[Condition]) -> str | None:
        conditioned = {c.field for c in conds}
        usable = [m for m in mentions if m.field not in conditioned or kind]
        if kind:
            types = {"money": {"money"}, "time": {"year", "date"}}[kind]
            named = [m for m in usable if (f := self.spec.get(m.field)) is not None and f.type in types]
            if named:
                return self._best(named, "numeric")
            fields = [f.name for f in self.spec.fields if f.type in types]
            if fields:
                return fields[0]
        return self._best(usable, "numeric")

    def _subject_field(self, qf: str, mentions: list[Mention]) -> str | None:
        """The categorical field named right after "which"/"哪个" (the thing being grouped)."""
        for w in lx.WHICH.finditer(qf):
            near = [m for m in mentions
                    if 0 <= m.start - w.end() <= _WHICH_GAP and self.vocabulary.categorical(m.field)]
            if near:
                return max(near, key=lambda m: m.score).field
        return None

    def _best(self, mentions: list[Mention], want: str, with_title: bool = False,
              bonus: dict[str, float] | None = None) -> str | None:
        """The best-named field of a kind: "numeric", "categorical" or "any" (the title only ``with_title``);
        ``bonus``: what qualifier words add to the fields they qualify."""
        pool = []
        for m in mentions:
            f = self.spec.get(m.field)
            if f is None or (m.field == self.spec.title_field and not with_title):
                continue
            if (want == "numeric" and not f.numeric) \
                    or (want == "categorical" and not self.vocabulary.categorical(m.field)):
                continue
            pool.append(m)
        if not pool:
            return None
        order = {n: i for i, n in enumerate(self.spec.names)}
        extra = bonus or {}
        best = max(pool, key=lambda m: (m.score + extra.get(m.field, 0.0),
                                        self.spec.get(m.field).exact,  # type: ignore[union-attr]
                                        -len(name_words(m.field)), -order[m.field]))
        return best.field

    @staticmethod
    def _as_written(question: str, qf: str, found: list[str]) -> str:
        """The question's own words from the first found word to the last ("斯蒂芬·金写", not "斯蒂芬、金写")."""
        start = qf.find(found[0].casefold())
        end = qf.rfind(found[-1].casefold())
        if 0 <= start <= end:
            return question[start : end + len(found[-1])]
        return "、".join(found)



def _other_kind(foreign: set[str], asked: Asked, target: str | None) -> str:
    """The question's words for a kind of the target field that the field says it is not: "list price" where the
    table's column is "Selling Price" (its name says which price it holds; a plain "Price" could be any)."""
    if target is None:
        return ""
    said = [w for w in name_words(target) if w in lx.WEAK_WORDS and w not in lx.STOPWORDS
            and w not in lx.OWN_ITEM_WORDS and w not in {"id", "code", "is", "text"}]
    if not said:
        return ""
    latin = CJK_RUN.sub(lambda m: " " * len(m.group(0)), asked.qf)
    for w in sorted(foreign, key=len, reverse=True):
        at = next(iter(starts(w, asked.qf, latin)), -1)
        if at >= 0 and not any(x.overlaps(at, at + len(w)) for x in asked.taken):
            return asked.question[at : at + len(w)]
    return ""
