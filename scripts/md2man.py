#!/usr/bin/env python3
"""Turns the man page sources in docs/ (a small Markdown subset) into roff.

    md2man.py docs/orch.1.md OUT.1

The subset: a first line `# NAME(SECTION) -- one-line summary`, `## SECTION`
and `### Subsection` headings, paragraphs, blank-line separated; indented
(4 spaces) or fenced code blocks; `- ` bullet items (continuation lines
indented); tables `| a | b |` (first column becomes the tag); inline
`code`, **bold**, *italic* and [text](link) (shown as text). Anything else
is a paragraph. The docs stay readable on GitHub and in a terminal, and the
man page is always built from them (never edited by hand).
"""
import re
import sys


def esc(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return text


def inline(text):
    out = []
    pos = 0
    pattern = re.compile(r"`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\[([^\]]+)\]\(([^)]+)\)")
    for m in pattern.finditer(text):
        out.append(esc(text[pos:m.start()]))
        if m.group(1) is not None:
            out.append("\\fB" + esc(m.group(1)) + "\\fR")
        elif m.group(2) is not None:
            out.append("\\fB" + esc(m.group(2)) + "\\fR")
        elif m.group(3) is not None:
            out.append("\\fI" + esc(m.group(3)) + "\\fR")
        else:
            out.append(esc(m.group(4)))
        pos = m.end()
    out.append(esc(text[pos:]))
    line = "".join(out)
    # a line starting with . or ' would be read as a request
    if line.startswith(".") or line.startswith("'"):
        line = "\\&" + line
    return line


def code_line(text):
    line = esc(text)
    if line.startswith(".") or line.startswith("'"):
        line = "\\&" + line
    return line


def table_cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def convert(lines):
    out = []
    m = re.match(r"#\s+([\w.-]+)\((\d)\)\s+--\s+(.*)", lines[0]) if lines else None
    if not m:
        raise SystemExit("md2man: first line must be '# NAME(N) -- summary'")
    name, section, summary = m.groups()
    out.append('.TH "%s" "%s" "" "orch" "orch manual"' % (name.upper(), section))
    out.append(".SH NAME")
    out.append("%s \\- %s" % (esc(name), inline(summary)))
    i = 1
    n = len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if line.startswith("## "):
            out.append(".SH " + inline(line[3:].strip().upper()))
            i += 1
        elif line.startswith("### "):
            out.append(".SS " + inline(line[4:].strip()))
            i += 1
        elif line.startswith("```"):
            i += 1
            out.append(".PP\n.RS 4\n.nf")
            while i < n and not lines[i].startswith("```"):
                out.append(code_line(lines[i]))
                i += 1
            out.append(".fi\n.RE")
            i += 1
        elif line.startswith("    "):
            out.append(".PP\n.RS 4\n.nf")
            while i < n and (lines[i].startswith("    ") or not lines[i].strip()):
                # a blank line ends the block unless more code follows
                if not lines[i].strip():
                    j = i
                    while j < n and not lines[j].strip():
                        j += 1
                    if j >= n or not lines[j].startswith("    "):
                        break
                out.append(code_line(lines[i][4:]))
                i += 1
            out.append(".fi\n.RE")
        elif line.startswith("|"):
            rows = []
            while i < n and lines[i].startswith("|"):
                cells = table_cells(lines[i])
                if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                    rows.append(cells)
                i += 1
            header, body = rows[0], rows[1:]
            for cells in body:
                out.append(".TP")
                out.append(inline(cells[0]))
                rest = ["%s: %s" % (h, c) if len(cells) > 2 else c
                        for h, c in zip(header[1:], cells[1:])]
                out.append(inline("; ".join(rest)))
            del header
        elif re.match(r"- ", line):
            while i < n and re.match(r"- ", lines[i]):
                text = [lines[i][2:].strip()]
                i += 1
                while i < n and lines[i].startswith("  ") and lines[i].strip():
                    text.append(lines[i].strip())
                    i += 1
                out.append(".IP \\(bu 2")
                out.append(inline(" ".join(text)))
            while i < n and not lines[i].strip():
                i += 1
        else:
            text = []
            while i < n and lines[i].strip() and not re.match(r"(#|```|    |\||- )", lines[i]):
                text.append(lines[i].strip())
                i += 1
            out.append(".PP")
            out.append(inline(" ".join(text)))
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: md2man.py SOURCE.md OUT")
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.read().splitlines()
    roff = convert(lines)
    tmp = sys.argv[2] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(roff)
    import os
    os.replace(tmp, sys.argv[2])


if __name__ == "__main__":
    main()
