#!/usr/bin/env python3
"""Papers of known text: pdfLaTeX articles in three styles, each with the Markdown it was made from.

    make_papers.py STYLE OUT N SEED    STYLE: article (two columns), ieee (IEEEtran, conference),
                                       llncs (Springer LNCS, one column), math (two columns with
                                       display equations)

writes OUT/pNN.pdf and OUT/pNN_ref.md: a title, authors and affiliations (in ieee, IEEE's blocks side by
side, a name over its affiliation's lines), an abstract, numbered sections and subsections of paragraphs
(random words of a fixed vocabulary: LaTeX hyphenates them and justifies the lines), bulleted lists,
booktabs tables, pgfplots charts (their labels belong to the figure, not the text) under a caption, and
references; in the math style, inline formulas in sentences (between "$" signs in the reference, as
MinerU writes them) and display equations after some paragraphs (fractions, sums and products
with limits, scripts, radicals, cases, matrices; numbered or not), written in the reference as the LaTeX
they were set from between "$$" lines, "\\tag{n}" for a numbered one. Floats are set where they stand (\\captionof), so the reference's order is the page's.
Running headers (journal, volume, DOI) and page numbers are not in the reference. Needs pdflatex with
booktabs, caption, pgfplots, fancyhdr, lmodern, and for the ieee and llncs styles IEEEtran and llncs
(Debian: texlive-publishers).
"""
import os
import random
import subprocess
import sys
import tempfile

WORDS = """analysis approach baseline benchmark classification coefficient comparison computation
configuration constraint convergence correlation dataset deployment detection distribution efficiency
estimate evaluation experiment feature framework function gradient hypothesis inference interval
iteration kernel latency learning likelihood measurement method metric model network normalisation
observation optimisation parameter performance precision prediction probability procedure projection
quantity recall regression representation resolution sample scheme segment sequence signal simulation
solution statistic structure surface system threshold training transform uncertainty validation variance
vector weight sufficient efficient affine official workflow definition final office first fluid flow
specific significant difficult field identify classified reflect conflict profile shuffle offline
document layout table figure caption column paragraph reading order text page region block line
the of and to in for with on by as is are was were that this these from at which be can has have not
our we it its their between across under over into each both more most than also such only may
robust simple large small high low new early recent previous standard general global local
average mean total relative absolute direct indirect temporal spatial linear nonlinear random fixed""".split()
NAMES = "Alice Bruno Chen Dana Emil Farah Goran Hana Ivan Julia Kenji Lena Marco Nadia Omar Priya Rui Sven Tomas Wei".split()
SURNAMES = ("Andersen Baker Costa Dubois Eriksson Fischer Garcia Huang Ivanova Jensen Kowalski Lindqvist "
            "Moreau Novak Okafor Petrov Rossi Silva Tanaka Weber").split()
SECTIONS = ["Related Work", "Method", "Experimental Setup", "Results", "Discussion", "Limitations"]
METRICS = ["Precision", "Recall", "F1", "Latency", "Memory", "Accuracy", "Error", "Speed"]
DEPARTMENTS = ["Computing", "Computer Science", "Electrical Engineering", "Mathematics", "Physics", "Statistics"]
CITIES = ["Oslo, Norway", "Turin, Italy", "Lagos, Nigeria", "Kyoto, Japan", "Lyon, France", "Porto, Portugal",
          "Gdansk, Poland", "Austin, USA"]
ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"]


def sentence(r, lo=8, hi=22):
    words = [r.choice(WORDS) for _ in range(r.randint(lo, hi))]
    return " ".join([words[0].capitalize()] + words[1:]) + "."


def paragraph(r, inline=False):
    sentences = [sentence(r) for _ in range(r.randint(3, 7))]
    if inline:
        sentences = [with_inline_formula(r, s) if r.random() < 0.6 else s for s in sentences]
    return " ".join(sentences)


def capitalised(r, lo, hi):
    return " ".join(r.choice(WORDS).capitalize() for _ in range(r.randint(lo, hi)))


def table(r, style, n):
    cols = r.randint(3, 5)
    head = ["Method"] + [r.choice(METRICS) for _ in range(cols - 1)]
    body = [[r.choice(NAMES) + "-" + str(r.randint(1, 9))] +
            ["%.*f" % (r.choice([1, 2, 3]), r.uniform(0, 100)) for _ in range(cols - 1)]
            for _ in range(r.randint(3, 7))]
    text = sentence(r, 5, 12)
    label = "TABLE %s:" % ROMAN[n - 1] if style == "ieee" else "Table %d:" % n
    tex = [r"\begin{center}", r"\captionof{table}{%s}" % text, r"\begin{tabular}{l%s}" % ("r" * (cols - 1)),
           r"\toprule", " & ".join(head) + r" \\", r"\midrule"]
    tex += [" & ".join(row) + r" \\" for row in body]
    tex += [r"\bottomrule", r"\end{tabular}", r"\end{center}"]
    md = ["%s %s" % (label, text), "", "| " + " | ".join(head) + " |", "|" + " - |" * cols]
    md += ["| " + " | ".join(row) + " |" for row in body]
    return tex, md


def figure(r, style, n):
    text = sentence(r, 5, 14)
    points = " ".join("(%d,%d)" % (x, r.randint(0, 90)) for x in range(0, 60, 10))
    tex = [r"\begin{center}", r"\begin{tikzpicture}",
           r"\begin{axis}[width=0.9\linewidth,height=4cm,xlabel={%s},ylabel={%s}]" % (r.choice(WORDS), r.choice(WORDS)),
           r"\addplot coordinates {%s};" % points, r"\end{axis}", r"\end{tikzpicture}",
           r"\captionof{figure}{%s}" % text, r"\end{center}"]
    label = "Fig. %d:" % n if style in ("ieee", "llncs") else "Figure %d:" % n
    return tex, ["%s %s" % (label, text)]


VARIABLES = ["x", "y", "z", "w", "u", "v", "a", "b", "c", "\\alpha", "\\beta", "\\theta", "\\lambda", "\\sigma",
             "\\mu", "\\phi"]
FUNCTIONS = ["f", "g", "h", "p", "q", "L", "E", "F"]


def term(r):
    """A variable, maybe with a subscript or a square."""
    v = r.choice(VARIABLES)
    x = r.random()
    if x < 0.3:
        return "%s_%s" % (v, r.choice("ijkt"))
    if x < 0.45:
        return "%s^2" % v
    return v


def expression(r):
    return (" %s " % r.choice("+-")).join(term(r) for _ in range(r.randint(1, 3)))


def equation(r):
    """A display equation in the LaTeX one would write it in."""
    f, i, n = r.choice(FUNCTIONS), r.choice("ijk"), r.choice("NKnm")
    forms = [
        lambda: "%s = \\frac{%s}{%s}" % (term(r), expression(r), expression(r)),
        lambda: "%s(%s) = \\sum_{%s=1}^{%s} %s_%s %s" % (f, term(r), i, n, r.choice("wac"), i, term(r)),
        lambda: "%s = -\\frac{1}{%s} \\sum_{%s=1}^{%s} \\log %s(%s_%s)" % (f, n, i, n, f.lower(), r.choice("xy"), i),
        lambda: "%s \\leq \\sqrt{%s}" % (term(r), expression(r)),
        lambda: "%s = \\prod_{%s=1}^{%s} %s_%s" % (term(r), i, n, r.choice("pq"), i),
        lambda: "%s(%s) = \\begin{cases} %s & %s \\geq 0 \\\\ %s & %s < 0 \\end{cases}" % (
            f, "x", expression(r), "x", expression(r), "x"),
        lambda: "%s = \\begin{pmatrix} %s & %s \\\\ %s & %s \\end{pmatrix}" % tuple(
            [r.choice("ABMW")] + [r.choice(VARIABLES) for _ in range(4)]),
        lambda: "%s = %s + \\lambda \\|%s\\|^2" % (f, expression(r), r.choice("wvx")),
    ]
    return r.choice(forms)()


def inline_formula(r):
    """A formula set in a sentence, in the LaTeX one would write it in."""
    forms = [
        lambda: term(r),
        lambda: "%s = %s" % (term(r), r.choice(["0.5", "1", "2", "10", "0.01", "N"])),
        lambda: "%s(%s)" % (r.choice(FUNCTIONS), term(r)),
        lambda: "%s \\leq %s" % (term(r), term(r)),
        lambda: "O(n \\log n)",
        lambda: expression(r),
        lambda: "%s \\in %s" % (term(r), r.choice("SXV")),
        lambda: "%s \\in \\mathbb{R}^%s" % (term(r), r.choice("dnk")),
        lambda: "\\mathcal{%s}(%s)" % (r.choice("LDF"), term(r)),
        lambda: "\\mathbf{%s}_%s" % (r.choice("xwvW"), r.choice("ijt")),
        lambda: "\\frac{%s}{%s}" % (r.choice(["1", "a", "x"]), r.choice(["2", "N", "n"])),
    ]
    return r.choice(forms)()


def with_inline_formula(r, text):
    """`text` with an inline formula after one of its words (not the first): "... of $x_i$ ...";
    written the same in the TeX and in the reference."""
    words = text.split(" ")
    at = r.randint(1, len(words) - 1)
    words.insert(at, "$%s$" % inline_formula(r))
    return " ".join(words)


def display(r, number):
    """The TeX and the reference Markdown of a display equation; numbered when `number` is not None."""
    latex = equation(r)
    if number is None:
        return [r"\[ %s \]" % latex], ["$$", latex, "$$"]
    return [r"\begin{equation}", latex, r"\end{equation}"], ["$$", "%s \\tag{%d}" % (latex, number), "$$"]


def domain(place):
    return place.replace("University of ", "").replace(" Institute", "").lower()


def front(r, style):
    title = capitalised(r, 5, 9)
    authors = [("%s %s" % (r.choice(NAMES), r.choice(SURNAMES)), r.randint(1, 2)) for _ in range(r.randint(2, 4))]
    places = ("University of %s" % r.choice(SURNAMES), "%s Institute" % r.choice(SURNAMES))
    abstract = paragraph(r)
    names = ", ".join("%s\\textsuperscript{%d}" % a for a in authors)
    affiliations = r"\textsuperscript{1}%s\quad \textsuperscript{2}%s" % places
    if style == "llncs":
        tex = [r"\title{%s}" % title, r"\author{%s}" % names.replace(r"\textsuperscript", r"\inst"),
               r"\institute{%s \and %s}" % places]
    elif style == "ieee":
        # IEEE's conference style: each author a block, a name over its affiliation's lines, side by side.
        blocks = []
        for name, mark in authors:
            lines = ["Department of " + r.choice(DEPARTMENTS), places[mark - 1], r.choice(CITIES),
                     "%s@%s.org" % (name.split()[1].lower(), domain(places[mark - 1]))]
            blocks.append((name, lines))
        tex = [r"\title{%s}" % title, r"\author{%s}" % "\n\\and\n".join(
            r"\IEEEauthorblockN{%s}\IEEEauthorblockA{%s}" % (name, r"\\".join(lines)) for name, lines in blocks)]
    else:
        tex = [r"\title{%s}" % title, r"\author{%s\\ %s}" % (names, affiliations)]
    tex += [r"\date{}", r"\begin{document}", r"\maketitle", r"\thispagestyle{fancy}",
            r"\begin{abstract}", abstract, r"\end{abstract}"]
    md = ["# " + title, ""]
    if style == "ieee":
        for name, lines in blocks:
            md += [name, "", " ".join(lines), ""]
    else:
        md += [", ".join("%s%d" % a for a in authors), ""]
        md += ["1 " + places[0], "", "2 " + places[1], ""] if style == "llncs" else ["1%s 2%s" % places, ""]
    md += {"article": ["## Abstract", "", abstract, ""], "ieee": ["Abstract—" + abstract, ""],
           "llncs": ["Abstract. " + abstract, ""]}[style]
    return tex, md


def paper(r, style):
    math = style == "math"
    style = "article" if math else style
    preamble = {"article": [r"\documentclass[twocolumn,10pt]{article}", r"\usepackage[margin=2cm]{geometry}"],
                "ieee": [r"\documentclass[conference]{IEEEtran}"], "llncs": [r"\documentclass{llncs}"]}[style]
    tex = preamble + [r"\usepackage{amsmath,amssymb}"] * math + [r"\usepackage[T1]{fontenc}", r"\usepackage{lmodern}",
                      r"\usepackage{booktabs,caption,pgfplots,fancyhdr}", r"\pgfplotsset{compat=1.16}",
                      r"\pagestyle{fancy}\fancyhead[L]{Journal of %s, Vol. %d}\fancyhead[R]{doi:10.%d/%d}"
                      r"\fancyfoot[C]{\thepage}" % (capitalised(r, 2, 2), r.randint(1, 40), r.randint(1000, 9999),
                                                    r.randint(10000, 99999))]
    head_tex, md = front(r, style)
    tex += head_tex
    tables = figures = equations = 0
    sections = ["Introduction"] + r.sample(SECTIONS, r.randint(2, 4)) + ["Conclusion"]
    for s_no, name in enumerate(sections, 1):
        tex.append(r"\section{%s}" % name)
        md += ["## %s %s" % (ROMAN[s_no - 1] + "." if style == "ieee" else s_no, name), ""]
        sub = 0
        for p_no in range(r.randint(2, 5)):
            if p_no > 0 and r.random() < 0.25:
                sub += 1
                sub_name = capitalised(r, 1, 3)
                tex.append(r"\subsection{%s}" % sub_name)
                number = "ABCDEFGH"[sub - 1] + "." if style == "ieee" else "%d.%d" % (s_no, sub)
                md += ["### %s %s" % (number, sub_name), ""]
            text = paragraph(r, inline=math)
            tex += [text, ""]
            md += [text, ""]
            if math and r.random() < 0.5:
                numbered = r.random() < 0.6
                equations += numbered
                t, m = display(r, equations if numbered else None)
                tex[-1:] = t + [""]  # (the display ends the paragraph)
                md += m + [""]
            x = r.random()
            if x < 0.12:
                items = [sentence(r, 4, 12) for _ in range(r.randint(2, 4))]
                tex += [r"\begin{itemize}"] + [r"\item " + i for i in items] + [r"\end{itemize}"]
                md += ["- " + i for i in items] + [""]
            elif x < 0.22:
                tables += 1
                t, m = table(r, style, tables)
                tex += t + [""]
                md += m + [""]
            elif x < 0.32:
                figures += 1
                t, m = figure(r, style, figures)
                tex += t + [""]
                md += m + [""]
    tex.append(r"\begin{thebibliography}{99}")
    md += ["## References", ""]
    for i in range(r.randint(4, 10)):
        who = "%s. %s and %s. %s" % (r.choice(NAMES)[0], r.choice(SURNAMES), r.choice(NAMES)[0], r.choice(SURNAMES))
        ref = "%s. %s Proc. %s, %d." % (who, sentence(r, 4, 10), capitalised(r, 2, 2), r.randint(1990, 2025))
        tex.append(r"\bibitem{r%d} %s" % (i, ref))
        md += [("%d." if style == "llncs" else "[%d]") % (i + 1) + " " + ref, ""]
    tex += [r"\end{thebibliography}", r"\end{document}"]
    return "\n".join(tex) + "\n", "\n".join(md)


def main():
    style, out, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    os.makedirs(out, exist_ok=True)
    r = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(n):
            tex, md = paper(r, style)
            with open(os.path.join(tmp, "p.tex"), "w") as f:
                f.write(tex)
            for _ in range(2):
                subprocess.run(["pdflatex", "-interaction=batchmode", "p.tex"], cwd=tmp,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            os.replace(os.path.join(tmp, "p.pdf"), os.path.join(out, "p%02d.pdf" % i))
            with open(os.path.join(out, "p%02d_ref.md" % i), "w") as f:
                f.write(md)


if __name__ == "__main__":
    main()
