"""The forms an answer takes (SPEC R3b, core/text/aspects.py): a duration as people and laws write it."""

from __future__ import annotations

import pytest

from biny.core.text.aspects import aspects_of


@pytest.mark.parametrize("text", [
    "Refunds are paid within 30 days.",
    "Every plan starts with a 14-day free trial.",  # joined as an adjective
    "The hub comes with a 2-year warranty.",
    "Die Kündigung ist mit einer 30-tägigen Frist möglich.",
    "劳动者提前三十日以书面形式通知用人单位，可以解除劳动合同。",  # Chinese numerals, as laws write them
    "竞业限制期限，不得超过二年。",
    "每满一年支付一个月工资的标准向劳动者支付。",
    "经营者应当在三个工作日内退还。",
    "劳动者每日工作时间不超过八小时。",
])
def test_a_duration_is_read_in_its_written_forms(text: str) -> None:
    assert "duration" in aspects_of(text)


@pytest.mark.parametrize("text", [
    "本法自二月十五日起施行。",  # a date: 日 after 月
    "自一月一日起施行。",  # 一月 is January, not a month's length
    "第十七条 本条规定登记的程序。",  # an article's number
    "Pins 1-2 of connector J3 carry the supply.",
])
def test_a_date_or_a_number_alone_is_no_duration(text: str) -> None:
    assert "duration" not in aspects_of(text)
