"""A small bar placing a distance against the space's unrelated baseline (SPEC R9, C2)."""

from __future__ import annotations

from typing import ClassVar

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget

from biny.console.i18n import tr


class DistanceBar(QWidget):
    """0 at the left; the baseline (unrelated median) marked; the cut marked if known.

    The scale runs to 1.5 × the baseline so "as far as unrelated text" sits at two
    thirds of the width whatever the model's absolute numbers are.
    """

    # Colour-blind-safe: blue for a passage within its own cut, purple for one kept by another
    # rule (its identifier, its words, the second pass), vermilion only for one that was dropped.
    COLOURS: ClassVar[dict[str, str]] = {"distance": "#1c7ed6", "other": "#7048e8", "dropped": "#d9480f"}

    def __init__(self, distance: float, baseline: float | None, cut: float | None,
                 parent: QWidget | None = None, *, decision: str = "distance", why: str = "") -> None:
        super().__init__(parent)
        self.distance = distance
        self.baseline = baseline
        self.cut = cut
        self.decision = decision  # distance | other | dropped: what the pipeline decided, not d vs cut
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        scale = tr("baseline {b}").format(b=f"{baseline:.3f}") if baseline else tr("no baseline measured")
        cut_s = ", " + tr("cut {cut}").format(cut=f"{cut:.3f}") if cut is not None else ""
        self.setToolTip(tr("distance {d}").format(d=f"{distance:.3f}") + f" ({scale}{cut_s}); "
                        + tr("shorter bar = closer") + (f"\n{why}" if why else ""))

    BAR = 12  # height of the bar; the scale's numbers sit below it

    def sizeHint(self) -> QSize:
        return QSize(160, self.BAR + self.fontMetrics().height() + 2)

    def paintEvent(self, _: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        w, h = self.width(), self.BAR
        full = (self.baseline or max(self.distance, 0.01)) * 1.5
        pal = self.palette()
        text = pal.color(QPalette.ColorRole.WindowText)  # follows light and dark alike
        p.fillRect(QRectF(0, 2, w, h - 4), pal.color(QPalette.ColorRole.AlternateBase))
        frac = min(self.distance / full, 1.0) if full > 0 else 0.0
        colour = self.COLOURS.get(self.decision, self.COLOURS["distance"])
        p.fillRect(QRectF(0, 2, w * frac, h - 4), QColor(colour))
        if self.baseline:
            x = w * (self.baseline / full)
            p.setPen(text)
            p.drawLine(int(x), 0, int(x), h)
        if self.cut is not None and full > 0:
            x = w * min(self.cut / full, 1.0)
            p.setPen(QColor("#e67700"))
            p.drawLine(int(x), 0, int(x), h)
        # The scale: 0 at the left, the unrelated baseline at its line, 1.5 × baseline at the right.
        fm = self.fontMetrics()
        y = h + fm.ascent() + 1
        p.setPen(text)
        p.drawText(0, y, "0")
        end = f"{full:.2f}"
        p.drawText(w - fm.horizontalAdvance(end), y, end)
        if self.baseline:
            label = f"{self.baseline:.2f} " + tr("unrelated")
            x = int(w * (self.baseline / full) - fm.horizontalAdvance(label) / 2)
            p.drawText(max(fm.horizontalAdvance("0 "), min(x, w - fm.horizontalAdvance(label + " " + end))), y, label)
        p.setPen(Qt.PenStyle.NoPen)
        p.end()
