"""Personal data masked before a model or the review queue sees it (SPEC W6): recall and precision ≥ 0.95.

tests/data/pii_samples.json: 65 zh/en sentences — resident IDs with valid and broken check
characters, +86 mobiles, landlines, international numbers, e-mail addresses, bank cards that
pass and fail Luhn, Chinese names, English names behind "my name is" or a title, and look-alikes
(order numbers, dates, prices, ISBNs, article numbers, "Contact Support") that must stay.
"""

from __future__ import annotations

import json
from pathlib import Path

from biny.core.web.pii import find, luhn, mask, valid_cn_id

SAMPLES = json.loads((Path(__file__).resolve().parents[1] / "data" / "pii_samples.json").read_text("utf-8"))


def test_the_fixture_is_large_and_varied_enough() -> None:
    kinds = [s["kind"] for sample in SAMPLES for s in sample["spans"]]
    assert len(SAMPLES) >= 50 and {"id", "phone", "email", "card", "name"} <= set(kinds)
    assert sum(1 for s in SAMPLES if not s["spans"]) >= 10  # look-alikes that must not be masked


def test_recall_and_precision_over_the_fixture() -> None:
    tp = fp = fn = 0
    for sample in SAMPLES:
        got = {(f.kind, f.text) for f in find(sample["text"])}
        want = {(s["kind"], s["text"]) for s in sample["spans"]}
        tp, fp, fn = tp + len(got & want), fp + len(got - want), fn + len(want - got)
    assert tp / (tp + fn) >= 0.95 and tp / (tp + fp) >= 0.95, (tp, fp, fn)


def test_checksums() -> None:
    assert valid_cn_id("110101199003074514") and not valid_cn_id("110101199003074510")
    assert not valid_cn_id("110101199002304514")  # 30 February
    assert luhn("4111111111111111") and not luhn("4111111111111112")


def test_masked_text_keeps_its_shape() -> None:
    text, found = mask("请联系张伟，电话13812345678，邮箱zhang.wei@example.com。")
    assert text == "请联系[name]，电话[phone]，邮箱[email]。" and len(found) == 3
