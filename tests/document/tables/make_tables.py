#!/usr/bin/env python3
"""Writes report pages with tables of known structure, and each page's tables as reference HTML.

    make_tables.py latex OUT COUNT SEED   # pdfLaTeX pages (needs pdflatex, booktabs, xcolor, geometry)
    make_tables.py wordproc OUT COUNT SEED  # word-processor pages (needs python3-docx and LibreOffice)
    make_tables.py text OUT COUNT SEED      # pdfLaTeX pages of tables of text and statistical tables
    make_tables.py offices OUT COUNT SEED   # pdfLaTeX pages of statistical offices' tables (landscape)

Each page OUT/tNN.pdf comes with OUT/tNN_ref.md: its tables in order, as <table> HTML with colspans,
which tests/document/tables_regression_test.cc scores our tables against (the ICDAR 2013
adjacency-relation measure, document/table_score.h). The tables are what government and statistical
reports print: rows of regions or programmes, columns of figures in the formats such reports use,
headers of one or two levels, wrapped headings and labels, group rows, notes under the table; set with
or without rules, between booktabs rules, in a full grid, with shaded header cells, and in the word
processor's table styles (banded rows, shaded headers, frames); and (`text`) tables of text, actions with
who and when, wrapped in justified `p` columns set plain, between booktabs rules, in a grid or under a rule
under the header only, beside statistical tables with indented sub-items, a units row across the figures,
footnote marks on figures and dot leaders after the labels; and (`offices`) statistical offices' tables on
landscape pages: short groups' names centred over their columns, figures in European or American style,
indented age groups, set without rules, between a top and a bottom rule or between booktabs rules. The
text is made up here.
"""
import html
import os
import random
import subprocess
import sys

REGIONS = ["North", "South", "East", "West", "Central", "Coastal", "Highlands", "Metropolitan",
           "Rural districts", "Islands", "Capital region", "Border areas"]
ITEMS = ["Education", "Health care", "Transport", "Housing", "Public safety", "Energy", "Water supply",
         "Agriculture", "Research grants", "Social services", "Administration", "Debt service", "Pensions",
         "Defence", "Culture and sport"]
LONG_ITEMS = ["Grants to local authorities for school buildings",
              "Payments to hospitals under the service agreement",
              "Maintenance of roads and bridges in rural areas", "Subsidies for public transport operators",
              "Contributions to the regional development fund", "Loans to small and medium-sized enterprises",
              "Transfers to households for heating costs"]
GROUPS = ["Revenue", "Expenditure", "Budget", "Outturn", "Staff", "Cases", "Men", "Women", "Urban", "Rural"]
HEADINGS = ["2019", "2020", "2021", "2022", "2023", "Q1", "Q2", "Q3", "Q4", "Change", "Share (%)", "Total",
            "Planned", "Actual", "Number", "Rate"]
LONG_HEADINGS = ["Total expenditure", "Change from 2020 (%)", "Number of staff", "Share of total",
                 "Cases per 1,000", "Average cost per case", "Planned outturn", "Actual outturn", "Net revenue"]
CAPTIONS = ["Expenditure by programme", "Cases by region", "Staff numbers", "Revenue and spending, million"]
NOTES = ["Source: National statistics office.", "Note: figures may not sum because of rounding.",
         "a Provisional. Source: ministry accounts."]

SUBJECTS = ["The programme", "Spending on roads", "The regional fund", "Each authority", "The ministry",
            "Staff turnover", "The new scheme", "Capital investment", "The audit office", "Revenue from fees"]
VERBS = ["rose", "fell", "stayed close to plan", "recovered", "was revised", "grew faster than inflation",
         "slowed", "exceeded the estimate", "met its target", "was held back"]
TAILS = ["in the second half of the year", "after the spending review", "in most regions",
         "as the table below shows", "for the third year running", "despite higher prices",
         "once grants were paid", "in every quarter", "compared with the year before", "in rural areas"]


def paragraph():
    return " ".join(f"{random.choice(SUBJECTS)} {random.choice(VERBS)} {random.choice(TAILS)}."
                    for _ in range(random.randint(4, 7)))


def figure(kind):
    """A cell's value in one of the formats reports use."""
    if kind == 0:
        return f"{random.randint(10, 99999):,}"
    if kind == 1:
        return f"{random.uniform(0, 100):.1f}"
    if kind == 2:
        x = random.uniform(-20, 20)
        return f"({abs(x):.1f})" if x < 0 else f"{x:.1f}"
    if kind == 3:
        return f"{random.uniform(0, 100):.0f}%"
    if kind == 4:
        return "--" if random.random() < 0.15 else f"{random.randint(1, 999)}"
    return f"${random.randint(100, 9999):,}"


def reference(rows):
    """`rows` of (text, colspan) cells as reference HTML."""
    out = ["<table>"]
    for row in rows:
        cells = []
        for text, span in row:
            text = html.escape(text.replace("--", "\u2013"))
            cells.append(f'<td colspan="{span}">{text}</td>' if span > 1 else f"<td>{text}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "".join(out + ["</table>"])


class Table:
    """A table's rows as (text, colspan) cells; `head` rows are the header; `group_rows` indexes rows that
    hold a group's name only."""

    def __init__(self, max_columns, long_headings=False):
        self.columns = random.randint(2, max_columns)
        kinds = [random.randint(0, 5) for _ in range(self.columns)]
        wrapped_labels = random.random() < 0.2
        self.rows = []
        if self.columns >= 3 and random.random() < 0.45:
            spans, left = [], self.columns
            while left > 0:
                spans.append(min(left, random.choice([1, 2, 2, 3])))
                left -= spans[-1]
            self.rows.append([("", 1)] + list(zip(random.sample(GROUPS, len(spans)), spans)))
        stub = random.choice(["Item", "Region", "Programme", "Category", ""])
        headings = random.sample(LONG_HEADINGS if long_headings else HEADINGS, self.columns)
        self.rows.append([(stub, 1)] + [(h, 1) for h in headings])
        self.head = len(self.rows)
        self.group_rows = set()
        count = random.randint(3, 12)
        labels = ([random.choice(LONG_ITEMS) for _ in range(count)] if wrapped_labels
                  else random.sample(ITEMS + REGIONS, count))
        grouped = random.random() < 0.25
        for i, label in enumerate(labels):
            if grouped and i % 4 == 0:
                self.group_rows.add(len(self.rows))
                self.rows.append([(random.choice(REGIONS), 1)] + [("", 1)] * self.columns)
            self.rows.append([(label, 1)] + [(figure(k), 1) for k in kinds])
        if random.random() < 0.4:
            self.rows.append([("Total", 1)] + [(figure(k), 1) for k in kinds])
        self.wrapped_labels = wrapped_labels

    def reference(self):
        return reference(self.rows)


# pdfLaTeX ---------------------------------------------------------------------------------------------

def tex_escape(text):
    return text.replace("%", "\\%").replace("$", "\\$").replace("&", "\\&")


def latex_table(table):
    style = random.choice(["plain", "plain", "booktabs", "grid", "headrule", "shaded", "wrapped heads"])
    if table.wrapped_labels:
        style = random.choice(["plain", "booktabs", "headrule"])
    n = table.columns
    sep = random.choice(["1em", "1.5em", "2em"] if n <= 3 else ["0.6em", "1em"] if n <= 5 else ["0.5em", "0.8em"])
    if style == "grid":
        spec = "|l|" + "r|" * n
    elif style == "wrapped heads":
        spec = "l" + (">{\\raggedleft\\arraybackslash}p{%.1fcm}" % random.uniform(1.3, 1.8)) * n
    else:
        spec = ("p{%dcm}" % random.randint(4, 6) if table.wrapped_labels else "l") + "r" * n
    out = [random.choice(["", "\\small", "\\footnotesize"]), "\\setlength{\\tabcolsep}{%s}" % sep,
           "\\begin{tabular}{%s}" % spec]
    out.append({"booktabs": "\\toprule", "grid": "\\hline"}.get(style, ""))
    for r, row in enumerate(table.rows):
        if style == "shaded" and r < table.head:
            out.append("\\rowcolor{gray!25}")
        cells = []
        for text, span in row:
            text = tex_escape(text)
            if r < table.head or r in table.group_rows:
                text = "\\textbf{%s}" % text if text and r in table.group_rows else text
            cells.append("\\multicolumn{%d}{c}{%s}" % (span, text) if span > 1 else text)
        out.append(" & ".join(cells) + " \\\\")
        if r + 1 == table.head:
            out.append({"booktabs": "\\midrule", "grid": "\\hline", "headrule": "\\hline"}.get(style, ""))
        elif r < table.head and style == "booktabs":
            column = 2
            rules = []
            for _, span in row[1:]:
                rules.append("\\cmidrule(lr){%d-%d}" % (column, column + span - 1))
                column += span
            out.append(" ".join(rules))
        elif style == "grid" and r >= table.head:
            out.append("\\hline")
    out.append("\\bottomrule" if style == "booktabs" else "")
    out.append("\\end{tabular}")
    if random.random() < 0.4:
        out.append("\\par\\vspace{3pt}\\footnotesize " + random.choice(NOTES))
    return "\n".join(out)


def latex_page(index, seed):
    random.seed(seed + index)
    two_columns = random.random() < 0.3
    tables = [Table(3 if two_columns else 6, long_headings=random.random() < 0.25)
              for _ in range(random.randint(1, 3))]
    tex = ["\\documentclass[%s,%s%s]{article}" % (random.choice(["a4paper", "letterpaper"]),
                                                  random.choice(["10pt", "11pt", "12pt"]),
                                                  ",twocolumn" if two_columns else ""),
           "\\usepackage{array}\\usepackage{booktabs}\\usepackage[table]{xcolor}",
           "\\usepackage[margin=%.1fin]{geometry}" % random.uniform(0.8, 1.2),
           "\\begin{document}", "\\section{Budget outturn}", paragraph()]
    for table in tables:
        tex += ["\\begin{table}[h]\\centering", "\\caption{%s}" % random.choice(CAPTIONS), latex_table(table),
                "\\end{table}", paragraph()]
    tex.append("\\end{document}")
    return "\n".join(tex), [t.reference() for t in tables]


def overfull(log):
    """Whether TeX set a box wider than its measure (a table running into the margin or the other column,
    glyphs off the page or over other text: no page a real report prints)."""
    with open(log, errors="replace") as f:
        return "Overfull \\hbox" in f.read()


def make_latex(out, count, seed, page):
    i = attempt = 0
    while i < count:
        tex, refs = page(attempt, seed)
        attempt += 1
        name = os.path.join(out, f"t{i:02d}")
        with open(name + ".tex", "w") as f:
            f.write(tex)
        subprocess.run(["pdflatex", "-interaction=batchmode", "-output-directory", out, name + ".tex"],
                       check=True, stdout=subprocess.DEVNULL)
        bad = overfull(name + ".log")
        for ext in (".tex", ".aux", ".log"):
            os.remove(name + ext)
        if bad:
            os.remove(name + ".pdf")
            continue
        with open(name + "_ref.md", "w") as f:
            f.write("\n\n".join(refs) + "\n")
        i += 1


# Tables of text and statistical tables (pdfLaTeX) ---------------------------------------------------

ACTIONS = ["Review the funding formula for schools", "Publish quarterly spending data",
           "Introduce a single application form for grants", "Train staff in the new procurement rules",
           "Set up a helpdesk for local authorities", "Audit the accounts of the regional fund",
           "Consult users on the draft strategy", "Replace the payroll system", "Report progress to parliament"]
OWNERS = ["Ministry of Finance", "Regional councils", "Audit office", "Statistics office", "Each department"]
DATES = ["March 2022", "End of 2022", "Ongoing", "Q3 2023", "2024", "Completed"]
PROGRESS = ["On track", "Delayed by six months because the tender was repeated", "Completed", "Not started",
            "Partly done: two of five regions have reported"]
SUB_ITEMS = {"Education": ["Primary", "Secondary", "Higher education"], "Health care": ["Hospitals", "Primary care"],
             "Transport": ["Roads", "Railways", "Ports"], "Housing": ["Social housing", "Grants"]}
TEXT_WIDTHS = {"Action": 5, "Measure": 4.5, "Responsible": 3, "Lead": 2.5, "Deadline": 2.2, "Date": 1.8,
               "Status": 4, "Progress": 3.5}


def text_table():
    """A table of actions, who leads them and when, its cells wrapped in justified columns."""
    heads = random.choice([["Action", "Responsible", "Deadline"], ["Action", "Responsible", "Status"],
                           ["Measure", "Lead", "Date", "Progress"]])
    rows = [[(h, 1) for h in heads]]
    for action in random.sample(ACTIONS, random.randint(3, 6)):
        row = [(action, 1), (random.choice(OWNERS), 1)]
        row += [(random.choice(PROGRESS if h in ("Status", "Progress") else DATES), 1) for h in heads[2:]]
        rows.append(row)
    style = random.choice(["plain", "booktabs", "grid", "headrule"])
    columns = ["p{%.1fcm}" % TEXT_WIDTHS[h] for h in heads]
    spec = "|" + "|".join(columns) + "|" if style == "grid" else "".join(columns)
    out = ["\\begin{tabular}{%s}" % spec, {"booktabs": "\\toprule", "grid": "\\hline"}.get(style, "")]
    for r, row in enumerate(rows):
        cells = [tex_escape(text) for text, _ in row]
        out.append(" & ".join("\\textbf{%s}" % c for c in cells) if r == 0 else " & ".join(cells))
        out[-1] += " \\\\"
        if r == 0:
            out.append({"booktabs": "\\midrule", "grid": "\\hline", "headrule": "\\hline"}.get(style, ""))
        elif style == "grid":
            out.append("\\hline")
    out += ["\\bottomrule" if style == "booktabs" else "", "\\end{tabular}"]
    return "\n".join(out), reference(rows)


def statistical_table():
    """Items with indented sub-items and a total, a units row across the figures, marks on some figures,
    dot leaders after the labels."""
    n = random.randint(2, 5)
    kinds = [random.randint(0, 5) for _ in range(n)]
    leaders = random.random() < 0.4
    rows = [[("", 1)] + [(h, 1) for h in random.sample(HEADINGS, n)]]
    if random.random() < 0.4:
        rows.append([("", 1), (random.choice(["(million euro)", "(per cent)"]), n)])
    head = len(rows)
    indents = []
    for item in random.sample(list(SUB_ITEMS), random.randint(2, 4)):
        rows.append([(item, 1)] + [(figure(k), 1) for k in kinds])
        indents.append(0)
        if random.random() < 0.6:
            for sub in SUB_ITEMS[item][:random.randint(2, 3)]:
                rows.append([(sub, 1)] + [(figure(k), 1) for k in kinds])
                indents.append(1)
    rows.append([("Total", 1)] + [(figure(k), 1) for k in kinds])
    indents.append(0)
    if random.random() < 0.3:
        for row in rows[head:]:
            if random.random() < 0.2:
                j = random.randint(1, n)
                row[j] = (row[j][0] + random.choice(["a", "*", "b"]), 1)
    style = random.choice(["plain", "booktabs", "headrule"])
    spec = ("p{%dcm}" % random.randint(4, 6) if leaders else "l") + "r" * n
    out = ["\\begin{tabular}{%s}" % spec, "\\toprule" if style == "booktabs" else ""]
    for r, row in enumerate(rows):
        if r < head:
            cells = [tex_escape(t) if s == 1 else "\\multicolumn{%d}{c}{%s}" % (s, tex_escape(t)) for t, s in row]
        else:
            label = "\\quad " * indents[r - head] + tex_escape(row[0][0])
            cells = [label + ("\\dotfill\\mbox{}" if leaders else "")] + [tex_escape(t) for t, _ in row[1:]]
        out.append(" & ".join(cells) + " \\\\")
        if r + 1 == head:
            out.append({"booktabs": "\\midrule", "headrule": "\\hline"}.get(style, ""))
    out += ["\\bottomrule" if style == "booktabs" else "", "\\end{tabular}"]
    return "\n".join(out), reference(rows)


def text_page(index, seed):
    random.seed(seed + index)
    tex = ["\\documentclass[%s]{article}" % random.choice(["10pt", "11pt", "12pt"]),
           "\\usepackage{array}\\usepackage{booktabs}\\usepackage[margin=1in]{geometry}",
           "\\begin{document}", "\\section{Progress report}", paragraph()]
    refs = []
    for _ in range(random.randint(1, 2)):
        table, ref = (text_table if random.random() < 0.5 else statistical_table)()
        tex += ["\\begin{table}[h]\\centering", "\\caption{%s}" % random.choice(CAPTIONS), table,
                "\\end{table}", paragraph()]
        refs.append(ref)
    tex.append("\\end{document}")
    return "\n".join(tex), refs


# Statistical offices' tables (pdfLaTeX) ----------------------------------------------------------------

PAIRS = [["Men", "Women"], ["Urban", "Rural"], ["Exports", "Imports"], ["EU", "Non-EU"], ["Public", "Private"]]
OFFICE_HEADS = [["2010", "2011", "%"], ["2010", "2011", "Change"], ["Number", "Share"], ["2009", "2010", "2011"],
                ["Q1", "Q2", "Q3", "Q4"]]
COUNTRIES = ["Belgium", "Bulgaria", "Czech Republic", "Denmark", "Germany", "Estonia", "Ireland", "Greece",
             "Spain", "France", "Italy", "Cyprus", "Latvia", "Lithuania", "Luxembourg", "Hungary"]
AGES = ["15-24 years", "25-54 years", "55-64 years", "65 years or over"]


def office_figure(kind, european):
    """A figure as statistical offices print them: thousands set apart by a space (European) or a comma,
    decimal commas, and what they write for a figure that is not there."""
    if random.random() < 0.06:
        return random.choice([":", "-"]) if european else random.choice(["(NA)", "(X)", "-"])
    if kind == 0:
        text = f"{random.randint(100, 250000):,}"
        return text.replace(",", " ") if european else text
    text = f"{random.uniform(-15 if kind == 2 else 0, 100):.1f}"
    return text.replace(".", ",") if european else text


def office_table():
    """Groups' names over the columns of each group (short names, centred), the stub's heading on the last
    header line, countries or age groups with indented sub-rows, set without rules, between a top and a
    bottom rule, or between booktabs rules with a rule under each group's name."""
    european = random.random() < 0.5
    groups = random.choice(PAIRS) + (["Total"] if random.random() < 0.3 else [])
    heads = random.choice(OFFICE_HEADS)
    kinds = [0 if h not in ("%", "Change", "Share") else 2 if h == "Change" else 1 for h in heads]
    n = len(groups) * len(heads)
    stub = random.choice(["", "Country", "Age group", "Region"])
    rows = [[("", 1)] + [(g, len(heads)) for g in groups], [(stub, 1)] + [(h, 1) for h in heads] * len(groups)]
    labels, indents = [], []
    for country in random.sample(COUNTRIES, random.randint(3, 7)):
        labels.append(country)
        indents.append(0)
        if random.random() < 0.25:
            for age in AGES[:random.randint(2, 4)]:
                labels.append(age)
                indents.append(1)
    for label in labels:
        rows.append([(label, 1)] + [(office_figure(k, european), 1) for _ in groups for k in kinds])
    style = random.choice(["plain", "plain", "frame", "booktabs"])
    out = [random.choice(["", "\\small"]), "\\setlength{\\tabcolsep}{%s}" % random.choice(["4pt", "6pt"]),
           "\\begin{tabular}{l%s}" % ("r" * n), {"frame": "\\hline", "booktabs": "\\toprule"}.get(style, "")]
    for r, row in enumerate(rows):
        if r == 0:
            cells = [""] + ["\\multicolumn{%d}{c}{%s}" % (span, text) for text, span in row[1:]]
        else:
            indent = "\\quad " * (indents[r - 2] if r >= 2 else 0)
            cells = [indent + tex_escape(row[0][0])] + [tex_escape(t) for t, _ in row[1:]]
        out.append(" & ".join(cells) + " \\\\")
        if r == 0 and style == "booktabs":
            out.append(" ".join("\\cmidrule(lr){%d-%d}" % (2 + k * len(heads), 1 + (k + 1) * len(heads))
                                for k in range(len(groups))))
        if r == 1 and style == "booktabs":
            out.append("\\midrule")
    out += [{"frame": "\\hline", "booktabs": "\\bottomrule"}.get(style, ""), "\\end{tabular}"]
    return "\n".join(out), reference(rows)


def office_page(index, seed):
    random.seed(seed + index)
    tex = ["\\documentclass[%s]{article}" % random.choice(["10pt", "11pt"]),
           "\\usepackage{booktabs}\\usepackage[margin=0.8in,landscape]{geometry}",
           "\\begin{document}", "\\section*{Labour market statistics}", paragraph()]
    refs = []
    for k in range(random.randint(1, 2)):
        table, ref = office_table()
        tex += ["\\medskip\\noindent\\textbf{Table %d: %s}\\par\\medskip" % (k + 1, random.choice(CAPTIONS)),
                "\\noindent " + table, "\\par\\medskip\\noindent{\\footnotesize %s}\\par" % random.choice(NOTES),
                paragraph()]
        refs.append(ref)
    tex.append("\\end{document}")
    return "\n".join(tex), refs


# Word processor ---------------------------------------------------------------------------------------

WORD_STYLES = ["Table Grid", "Light Shading", "Light Shading Accent 1", "Light List", "Light List Accent 1",
               "Light Grid", "Medium Shading 1", "Medium Shading 1 Accent 1", "Medium List 1", "Colorful List",
               "Light Grid Accent 1", "Medium Grid 1 Accent 1", None]


def word_table(document, table):
    from docx.enum.text import WD_ALIGN_PARAGRAPH
    from docx.shared import Pt

    grid = document.add_table(rows=len(table.rows), cols=table.columns + 1)
    style = random.choice(WORD_STYLES)
    if style:
        grid.style = document.styles[style]
    size = Pt(random.choice([8, 9, 10, 11]))
    figures = random.choice([WD_ALIGN_PARAGRAPH.RIGHT, WD_ALIGN_PARAGRAPH.CENTER])
    for r, row in enumerate(table.rows):
        c = 0
        for text, span in row:
            cell = grid.cell(r, c)
            if span > 1:
                cell = cell.merge(grid.cell(r, c + span - 1))
            cell.text = text
            for p in cell.paragraphs:
                if c > 0:
                    p.alignment = WD_ALIGN_PARAGRAPH.CENTER if r < table.head or span > 1 else figures
                for run in p.runs:
                    run.font.size = size
                    run.bold = r < table.head or r in table.group_rows
            c += span


def make_wordproc(out, count, seed):
    from docx import Document
    from docx.shared import Pt

    for i in range(count):
        random.seed(seed + i)
        document = Document()
        document.add_heading("Budget outturn", level=1)
        document.add_paragraph(paragraph())
        refs = []
        for k in range(random.randint(1, 3)):
            document.add_paragraph("Table %d: %s" % (k + 1, random.choice(CAPTIONS)))
            table = Table(6, long_headings=random.random() < 0.3)
            word_table(document, table)
            refs.append(table.reference())
            if random.random() < 0.4:
                for run in document.add_paragraph(random.choice(NOTES)).runs:
                    run.font.size = Pt(8)
            document.add_paragraph(paragraph())
        name = os.path.join(out, f"t{i:02d}")
        document.save(name + ".docx")
        subprocess.run(["soffice", "--headless", "--convert-to", "pdf", "--outdir", out, name + ".docx"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.remove(name + ".docx")
        with open(name + "_ref.md", "w") as f:
            f.write("\n\n".join(refs) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] not in ("latex", "wordproc", "text", "offices"):
        sys.exit(__doc__)
    kind, out, count, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    os.makedirs(out, exist_ok=True)
    if kind == "wordproc":
        make_wordproc(out, count, seed)
    else:
        make_latex(out, count, seed, {"text": text_page, "offices": office_page}.get(kind, latex_page))
