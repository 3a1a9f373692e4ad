// Comparing a Markdown result with a reference Markdown (quality benchmarks and regression tests):
// normalised edit distance of the plain text, heading precision / recall, and table cell accuracy.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mineru::document {

// Plain text of Markdown (and inline HTML): headings, list markers, emphasis, table pipes, image links,
// tags and comments removed; whitespace collapsed to single spaces.
std::string StripMarkdown(std::string_view markdown);

// Levenshtein distance over Unicode code points divided by the longer length (0 = equal, 1 = disjoint).
// Both empty: 0.
double NormalizedEditDistance(std::string_view a, std::string_view b);

// Lower case ASCII; letters, digits and non-ASCII kept, everything else one space; trimmed.
std::string NormalizeForMatch(std::string_view text);

// Heading texts ("#"-lines) in order, normalised (lower case, letters and digits only, single spaces).
std::vector<std::string> ExtractHeadings(std::string_view markdown);

// Items of a prediction matched one to one with those of a reference (headings, display equations,
// inline formulas).
struct MatchScore {
  int matched = 0;
  int predicted = 0;
  int reference = 0;
  MatchScore& operator+=(const MatchScore& other) {
    matched += other.matched;
    predicted += other.predicted;
    reference += other.reference;
    return *this;
  }
  double precision() const { return predicted == 0 ? (reference == 0 ? 1 : 0) : 1.0 * matched / predicted; }
  double recall() const { return reference == 0 ? 1 : 1.0 * matched / reference; }
  double f1() const {
    double p = precision(), r = recall();
    return p + r == 0 ? 0 : 2 * p * r / (p + r);
  }
};
using HeadingScore = MatchScore;
using EquationScore = MatchScore;

// A predicted heading matches an unmatched reference heading within normalised edit distance 0.2.
HeadingScore ScoreHeadings(std::string_view predicted_md, std::string_view reference_md);

// The LaTeX of every display equation (a block between "$$" lines), whitespace removed: "\\frac{1}{N}
// \\sum_i x_i" and "\\frac{1}{N}\\sum_i x_i" are one formula.
std::vector<std::string> ExtractDisplayEquations(std::string_view markdown);

// How many of the reference's display equations the prediction holds, matched one to one (equal LaTeX).
EquationScore ScoreDisplayEquations(std::string_view predicted_md, std::string_view reference_md);

// The LaTeX of every inline formula (between single "$" signs on a line, outside display equations),
// whitespace removed.
std::vector<std::string> ExtractInlineFormulas(std::string_view markdown);

// How many of the reference's inline formulas the prediction holds, matched one to one (equal LaTeX).
EquationScore ScoreInlineFormulas(std::string_view predicted_md, std::string_view reference_md);

// Cell texts of every table: Markdown pipe tables and HTML <td>/<th> cells, normalised as headings are.
std::vector<std::string> ExtractTableCells(std::string_view markdown);

// Fraction of the reference's table cells found (as a multiset) among the predicted cells; -1 when the
// reference has no table.
double TableCellAccuracy(std::string_view predicted_md, std::string_view reference_md);

}  // namespace mineru::document
