// Table structure scores for benchmarks and regression tests: the adjacency-relation measure of the ICDAR
// 2013 table competition. Each non-empty cell is related to its nearest non-empty neighbour to the right
// (in its top row) and below (in its left column); the relations of a prediction and of a reference are
// compared as multisets of (text, text, direction), texts folded to lower-case letters and digits.
// Precision = matched / predicted relations, recall = matched / reference relations.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mineru::document {

// One table as a grid: slots[row][column] is the index of the cell covering that slot (-1: none).
struct TableGrid {
  std::vector<std::string> cells;  // folded texts
  std::vector<std::vector<int>> slots;
};

// "• Cell 1,2 (a)" -> "cell12a": lower-case letters and digits (non-ASCII letters kept; punctuation,
// bullets, dashes, quotes and symbols dropped).
std::string FoldCellText(std::string_view text);

// Every table of a Markdown text: HTML <table>s (rowspan / colspan honoured) and pipe tables. A pipe
// table cannot span, so the same text in neighbouring slots (how docling writes a spanning cell) is read
// as one cell spanning them.
std::vector<TableGrid> ExtractTableGrids(std::string_view markdown);

// The adjacency relations of a grid ("a\x1fb\x1fH" / "a\x1fb\x1fV").
std::vector<std::string> AdjacencyRelations(const TableGrid& grid);

struct AdjacencyScore {
  int matched = 0;
  int predicted = 0;
  int reference = 0;
  double precision() const { return predicted == 0 ? 0 : 1.0 * matched / predicted; }
  double recall() const { return reference == 0 ? 0 : 1.0 * matched / reference; }
  double f1() const {
    double p = precision(), r = recall();
    return p + r == 0 ? 0 : 2 * p * r / (p + r);
  }
};

// The grid as a pipe table would read it back: every slot written with its cell's text, equal neighbours
// merged (MergeRepeats). A spanning cell stays one cell; equal neighbouring cells become one.
TableGrid ReadAsPipeTable(const TableGrid& grid);

// The relations of every table of `predicted_md` against those of every table of `reference_md`. When the
// reference holds no HTML table, the predicted grids are read as pipe tables (ReadAsPipeTable) first.
AdjacencyScore ScoreTableAdjacency(std::string_view predicted_md, std::string_view reference_md);

}  // namespace mineru::document
