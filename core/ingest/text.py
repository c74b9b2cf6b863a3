"""Plain text, Markdown and reStructuredText.

Encoding is detected (charset-normalizer), never assumed: a GBK or Shift-JIS file
must ingest as readable text, not mojibake.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import charset_normalizer

from biny.core.document import Block, ParsedDocument, SourceKind
from biny.core.errors import CorruptDocument, EmptyDocument
from biny.core.i18n import t

_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_EMPTY_HEADING = re.compile(r"^#{1,6}\s*$")
_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+<>_:.])\1{2,}\s*$")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_HEADER_FIELD = re.compile(r"^([A-Za-z][A-Za-z0-9-]{0,30}):\s+(.+)$")
# HTML written inside Markdown (a docs site's tabs, badges, <div markdown="1">): a tag is a letter-led name with
# attributes; "<https://…>" autolinks and "a < b" are not tags. Scripts and styles go with their content.
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_HTML_RAW = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.S | re.I)
_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
# An attribute list after a Markdown heading ("## Opinions { #opinions }"): an anchor for the site, not words.
_HEADING_ATTRS = re.compile(r"\s*\{\s*[#.][^{}]*\}\s*$")
_BLANK_SPLIT = re.compile(r"\n[ \t\u3000]*\n")
# A documentation site's markup that is no text (issue 55: half of FastAPI's passages carried it): a line that
# includes another file ("{* ../../docs_src/app.py hl[3] *}", MkDocs snippets' '--8<-- "part"', Jinja's
# "{% include 'x' %}", Hugo's "{{< figure … >}}"), and the fences of an admonition block (pymdownx blocks'
# "/// tip" … "///", "//// tab | Windows"; Python-Markdown's '!!! note "Title"', '??? info') — of a fence only its
# title is text. Inside a code block all of it is code and stays.
_INCLUDE = re.compile(r"^\s*(?:\{\*.*\*\}|\{%.*%\}|\{\{[<%].*[>%]\}\}|-{2}8<-{2}.*)\s*$")
_BLOCK_FENCE = re.compile(r"^\s*(?:/{3,}|[!?]{3}\+?)(?:\s+[\w-]+)?"
                          r"(?:\s*\|\s*(?P<bar>.+?)|\s+\"(?P<quoted>[^\"]*)\")?\s*$")


def decode_bytes(raw: bytes, name: str) -> str:
    """Decode bytes of unknown encoding; BOMs and UTF-8 first, then detection."""
    for bom, enc in ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16")):
        if raw.startswith(bom):
            return raw.decode(enc)
    from biny.core.ingest.sniff import utf16_without_bom

    # Before UTF-8: BOM-less UTF-16 of Latin text is valid UTF-8 too, full of NULs.
    wide = utf16_without_bom(raw[:4096])
    if wide is not None:
        try:
            return raw.decode(wide)
        except UnicodeDecodeError:
            pass
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    best = charset_normalizer.from_bytes(raw).best()
    if best is None:
        raise CorruptDocument(
            t("{name}: could not determine the text encoding. Save it as UTF-8 and add it again.").format(name=name)
        )
    return str(best)


def parse_text(path: Path, kind: SourceKind) -> ParsedDocument:
    text = decode_bytes(path.read_bytes(), path.name)
    return parse_text_string(text, kind=kind, fallback_title=path.stem, name=path.name)


def parse_text_string(text: str, *, kind: SourceKind, fallback_title: str, name: str) -> ParsedDocument:
    nuls = text.count("\x00")
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    if kind in {"markdown", "text"}:
        text = _HTML_COMMENT.sub("", text)
    if kind == "markdown":
        text = markdown_without_html(text)
    blocks = _blocks(text)
    if not any(b.text.strip() for b in blocks):
        raise EmptyDocument(t("{name} contains no text.").format(name=name))
    doc = ParsedDocument(title=_title(blocks, fallback_title), kind=kind, blocks=blocks)
    if nuls:
        doc.warnings.append(t("{nuls} NUL byte(s) removed: the file may be damaged or not plain text.")
                             .format(nuls=nuls))
    return doc


def markdown_without_html(text: str) -> str:
    """Markdown with its embedded HTML reduced to text (issue 55: passages are clean text — a FastAPI page's tab
    widget was stored, and answered, as ``<button class="fastapi-opinions__tab" …>``), and a documentation site's
    includes and block fences left out (a fence's title kept). Code — fenced blocks and inline spans — is left as
    written; entities are decoded; a line left empty by its tags goes."""
    text = _HTML_RAW.sub("", text)
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
            out.append(line)
            continue
        if not fenced and _INCLUDE.match(line):
            continue
        block = None if fenced else _BLOCK_FENCE.match(line)
        if block is not None:
            title = block.group("bar") or block.group("quoted")
            if title and title.strip():
                out.append(title.strip())
            continue
        if fenced or "<" not in line:
            out.append(line)
            continue
        cleaned, at = "", 0
        for code in _INLINE_CODE.finditer(line):  # only the text between code spans is cleaned
            cleaned += html.unescape(_HTML_TAG.sub("", line[at:code.start()])) + code.group(0)
            at = code.end()
        cleaned += html.unescape(_HTML_TAG.sub("", line[at:]))
        if cleaned.strip() or not line.strip():
            out.append(cleaned.rstrip())
    return "\n".join(out)


def _blocks(text: str) -> list[Block]:
    out: list[Block] = []
    for para in _BLANK_SPLIT.split(text):
        para = para.strip("\n")
        if not para.strip():
            continue
        lines = para.split("\n")
        # Markdown headings and rst titles become their own heading blocks so the
        # chunker can track the heading path; the rest of the paragraph follows.
        buf: list[str] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            if _EMPTY_HEADING.match(line):
                i += 1
                continue
            md = _MD_HEADING.match(line)
            rst = (
                i + 1 < len(lines)
                and line.strip()
                and _RST_UNDERLINE.match(lines[i + 1])
                and len(lines[i + 1].strip()) >= len(line.strip())
            )
            if md or rst:
                if buf:
                    out.append(Block("\n".join(buf)))
                    buf = []
                if md:
                    heading = _HEADING_ATTRS.sub("", md.group(2)).strip()
                    out.append(Block(heading or md.group(2).strip(), heading_level=len(md.group(1))))
                    i += 1
                else:
                    level = "=-~^\"'`#*+<>_:.".index(lines[i + 1].strip()[0]) + 1
                    out.append(Block(line.strip(), heading_level=min(level, 6)))
                    i += 2
                continue
            buf.append(line)
            i += 1
        if buf and "\n".join(buf).strip():
            out.append(Block("\n".join(buf)))
    return out


def _title(blocks: list[Block], fallback: str) -> str:
    if not blocks:
        return fallback
    first = blocks[0]
    # RFC 822-style header block (PEPs, RFCs, e-mail): "Title:" names the document;
    # a short leading id field ("PEP: 484") makes "PEP 484 – Type Hints".
    fields = [_HEADER_FIELD.match(line) for line in first.text.split("\n")]
    if first.heading_level == 0 and fields and fields[0] and sum(1 for f in fields if f) >= 2:
        values = {f.group(1).lower(): f.group(2).strip() for f in fields if f}
        if "title" in values:
            lead = fields[0]
            if lead.group(1).lower() != "title" and len(lead.group(2)) <= 12:
                return f"{lead.group(1)} {lead.group(2)} – {values['title']}"
            return values["title"]
    for i, b in enumerate(blocks[:5]):
        if b.heading_level == 1:
            title = b.text
            nxt = blocks[i + 1] if i + 1 < len(blocks) else None
            if nxt is not None and nxt.heading_level == 1 and len(title) + len(nxt.text) < 80:
                title = f"{title} {nxt.text}"
            return title
    heads = [b for b in blocks[:5] if b.heading_level]
    if heads:
        return heads[0].text
    return fallback
