"""Recall and false positives of the injection rule (issue 59; core/web/injection.py).

Run: ``python bench/injection.py [--show]``. ``injection_lines.jsonl`` holds hand-written lines in English,
German, Chinese and Japanese: instructions aimed at whatever reads a page ("injected": true — orders to ignore
instructions, addresses to an AI or a summariser, orders about what to answer) and look-alike sentences a normal
page contains ("injected": false — a manual's imperatives, "the system must be restarted", "our AI assistant",
"readers should note"). Prints recall (injected lines flagged) and the false-positive rate (normal lines
flagged), per language and overall; ``--show`` lists every miss and every false alarm.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

from biny.core.web.injection import addresses_a_model

HERE = Path(__file__).resolve().parent
# The first set was written with the word lists, which were then completed where it showed gaps (so its figures
# flatter the rule); the held-out set was written afterwards and never used to change the lists.
SETS = (("lines the lists were completed on", HERE / "injection_lines.jsonl"),
        ("held out", HERE / "injection_heldout.jsonl"))


def main() -> int:
    for label, path in SETS:
        print(f"{label} ({path.name})")
        report([json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()])
        print()
    return 0


def report(rows: list[dict[str, object]]) -> None:
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    wrong: list[str] = []
    for r in rows:
        flagged = addresses_a_model(str(r["text"]))
        for lang in (str(r["lang"]), "all"):
            c = counts[lang]
            c["injected" if r["injected"] else "normal"] += 1
            c["caught" if r["injected"] and flagged else "false" if flagged and not r["injected"] else "ok"] += 1
        if flagged != r["injected"]:
            wrong.append(f"{'missed' if r['injected'] else 'false alarm'} [{r['lang']}] {r['text']}")
    print(f"{'lang':<6}{'injected':>9}{'recall':>9}{'normal':>8}{'false pos.':>12}")
    for lang in ("en", "de", "zh", "ja", "all"):
        c = counts[lang]
        print(f"{lang:<6}{c['injected']:>9}{c['caught'] / max(c['injected'], 1):>9.1%}{c['normal']:>8}"
              f"{c['false'] / max(c['normal'], 1):>12.1%}")
    if "--show" in sys.argv and wrong:
        print("\n".join(wrong))


if __name__ == "__main__":
    sys.exit(main())
