#include "document/text_lines.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "document/accents.h"
#include "document/bidi.h"
#include "document/math_letters.h"
#include "document/pdf_document_impl.h"
#include "document/text_layout.h"

namespace mineru::document {
namespace {

constexpr double kMinRuleLength = 6;     // points
constexpr double kMaxRuleThickness = 3;  // points

// Builds `text` from `chars` (collapses whitespace, trims).
void BuildText(TextLine& line) {
  line.text.clear();
  bool pending_space = false;
  for (const TextChar& c : line.chars) AppendLineChar(line.text, pending_space, c.rune);
}

// Where a glyph's origin stands, to a quarter point: the same in the collector and the text device.
using GlyphSpot = std::pair<long, long>;
GlyphSpot SpotOf(fz_point origin) { return {std::lround(origin.x * 4), std::lround(origin.y * 4)}; }

// Glyphs of a math font that the text layer maps to no character (U+FFFD) but whose names say what they
// draw (TexExtensionGlyph: a display sum, a big parenthesis), by where they stand.
// The box is the glyph's ink: such a font's ascent and descent say nothing of where a big operator or
// delimiter stands (it hangs from its origin).
struct NamedGlyph {
  char32_t rune;
  Rect ink;
};
using NamedGlyphs = std::map<GlyphSpot, NamedGlyph>;
constexpr size_t kMaxNamedGlyphs = 5000;  // per page, pieces of tall delimiters included

struct Collector {
  fz_device super;
  std::vector<RulingSegment>* rules;
  std::vector<Rect>* images;
  std::vector<Rect>* stroked_text;  // text drawn with a stroke (render modes 1, 2): faked bold
  std::vector<Rect>* drawings;
  std::vector<Rect>* fills;
  std::vector<Rect>* shadings;
  NamedGlyphs* named_glyphs;
  std::vector<Rect>* pieces;  // the inks of the other pieces of tall delimiters
};

constexpr double kDrawnAgainShare = 0.7;  // of the narrower glyph's width: the same glyph drawn over itself
constexpr size_t kMaxDrawings = 5000;     // per page: enough to find the figures of any real page
constexpr int kMinTurnedChars = 20;       // characters on turned lines before a page is read turned

void AddDrawing(std::vector<Rect>* drawings, const fz_rect& b) {
  if (drawings->size() < kMaxDrawings && b.x1 >= b.x0 && b.y1 >= b.y0)
    drawings->push_back({b.x0, b.y0, b.x1, b.y1});
}

void AddRule(std::vector<RulingSegment>* rules, Rect r) {
  if (r.empty() && !(r.width() >= 0 && r.height() >= 0)) return;
  double w = r.width(), h = r.height();
  if (w >= kMinRuleLength && h <= kMaxRuleThickness) {
    rules->push_back({r, true});
  } else if (h >= kMinRuleLength && w <= kMaxRuleThickness) {
    rules->push_back({r, false});
  }
}

// Path walker state: collects the axis-aligned segments of a path (after ctm).
struct SegmentWalk {
  fz_matrix ctm;
  fz_point start{0, 0};
  fz_point current{0, 0};
  double half_width = 0.5;
  std::vector<RulingSegment>* rules;
  int count = 0;
};

void WalkLine(SegmentWalk* w, fz_point a, fz_point b) {
  if (++w->count > 4000) return;  // hostile paths: enough segments seen
  fz_point p = fz_transform_point(a, w->ctm);
  fz_point q = fz_transform_point(b, w->ctm);
  double hw = w->half_width;
  if (std::fabs(p.y - q.y) < 1.0) {
    AddRule(w->rules,
            {std::min(p.x, q.x), std::min(p.y, q.y) - hw, std::max(p.x, q.x), std::max(p.y, q.y) + hw});
  } else if (std::fabs(p.x - q.x) < 1.0) {
    AddRule(w->rules,
            {std::min(p.x, q.x) - hw, std::min(p.y, q.y), std::max(p.x, q.x) + hw, std::max(p.y, q.y)});
  }
}

void WalkMoveTo(fz_context*, void* arg, float x, float y) {
  auto* w = static_cast<SegmentWalk*>(arg);
  w->start = w->current = {x, y};
}
void WalkLineTo(fz_context*, void* arg, float x, float y) {
  auto* w = static_cast<SegmentWalk*>(arg);
  WalkLine(w, w->current, {x, y});
  w->current = {x, y};
}
void WalkCurveTo(fz_context*, void* arg, float, float, float, float, float x3, float y3) {
  auto* w = static_cast<SegmentWalk*>(arg);
  w->current = {x3, y3};
}
void WalkQuadTo(fz_context*, void* arg, float, float, float x2, float y2) {
  static_cast<SegmentWalk*>(arg)->current = {x2, y2};
}
void WalkCurveToVY(fz_context*, void* arg, float, float, float x3, float y3) {
  static_cast<SegmentWalk*>(arg)->current = {x3, y3};
}
void WalkClose(fz_context*, void* arg) {
  auto* w = static_cast<SegmentWalk*>(arg);
  WalkLine(w, w->current, w->start);
  w->current = w->start;
}
void WalkRect(fz_context*, void* arg, float x0, float y0, float x1, float y1) {
  auto* w = static_cast<SegmentWalk*>(arg);
  WalkLine(w, {x0, y0}, {x1, y0});
  WalkLine(w, {x1, y0}, {x1, y1});
  WalkLine(w, {x1, y1}, {x0, y1});
  WalkLine(w, {x0, y1}, {x0, y0});
}

const fz_path_walker kWalker = {WalkMoveTo, WalkLineTo,    WalkCurveTo,   WalkClose,
                                WalkQuadTo, WalkCurveToVY, WalkCurveToVY, WalkRect};

// Path walker state: whether a path is one axis-aligned rectangle (after ctm): straight axis-aligned
// segments only, at most one closed figure.
struct RectWalk {
  fz_matrix ctm;
  fz_point current{0, 0};
  int moves = 0;
  int segments = 0;
  bool straight = true;
};

void RectWalkSegment(RectWalk* w, fz_point to) {
  fz_point p = fz_transform_point(w->current, w->ctm);
  fz_point q = fz_transform_point(to, w->ctm);
  if (std::fabs(p.x - q.x) >= 0.5 && std::fabs(p.y - q.y) >= 0.5) w->straight = false;
  ++w->segments;
  w->current = to;
}
void RectMoveTo(fz_context*, void* arg, float x, float y) {
  auto* w = static_cast<RectWalk*>(arg);
  ++w->moves;
  w->current = {x, y};
}
void RectLineTo(fz_context*, void* arg, float x, float y) {
  RectWalkSegment(static_cast<RectWalk*>(arg), {x, y});
}
void RectCurveTo(fz_context*, void* arg, float, float, float, float, float, float) {
  static_cast<RectWalk*>(arg)->straight = false;
}
void RectQuadTo(fz_context*, void* arg, float, float, float, float) {
  static_cast<RectWalk*>(arg)->straight = false;
}
void RectCurveToVY(fz_context*, void* arg, float, float, float, float) {
  static_cast<RectWalk*>(arg)->straight = false;
}
void RectClose(fz_context*, void*) {}
void RectRect(fz_context*, void* arg, float, float, float, float) {
  auto* w = static_cast<RectWalk*>(arg);
  ++w->moves;
  w->segments += 4;
  // A re operator is axis-aligned in its own space; only a ctm without shear or a non-quarter turn
  // keeps it so.
  const fz_matrix& m = w->ctm;
  bool upright = std::fabs(m.b) < 1e-3 && std::fabs(m.c) < 1e-3;
  bool quarter = std::fabs(m.a) < 1e-3 && std::fabs(m.d) < 1e-3;
  if (!upright && !quarter) w->straight = false;
}

const fz_path_walker kRectWalker = {RectMoveTo, RectLineTo,    RectCurveTo,   RectClose,
                                    RectQuadTo, RectCurveToVY, RectCurveToVY, RectRect};

bool IsAxisAlignedRectangle(fz_context* ctx, const fz_path* path, fz_matrix ctm) {
  RectWalk walk;
  walk.ctm = ctm;
  fz_walk_path(ctx, path, &kRectWalker, &walk);
  return walk.straight && walk.moves == 1 && walk.segments >= 3 && walk.segments <= 5;
}

constexpr size_t kMaxFills = 5000;

void CollectorFillPath(fz_context* ctx, fz_device* dev, const fz_path* path, int, fz_matrix ctm,
                       fz_colorspace*, const float*, float alpha, fz_color_params) {
  if (alpha <= 0) return;
  auto* c = reinterpret_cast<Collector*>(dev);
  fz_rect b = fz_bound_path(ctx, path, nullptr, ctm);
  AddRule(c->rules, {b.x0, b.y0, b.x1, b.y1});  // a thin filled rectangle is a rule
  AddDrawing(c->drawings, b);
  if (c->fills->size() < kMaxFills && b.x1 - b.x0 > kMaxRuleThickness && b.y1 - b.y0 > kMaxRuleThickness &&
      IsAxisAlignedRectangle(ctx, path, ctm))
    c->fills->push_back({b.x0, b.y0, b.x1, b.y1});
}

void CollectorStrokePath(fz_context* ctx, fz_device* dev, const fz_path* path, const fz_stroke_state* stroke,
                         fz_matrix ctm, fz_colorspace*, const float*, float alpha, fz_color_params) {
  if (alpha <= 0) return;
  auto* c = reinterpret_cast<Collector*>(dev);
  SegmentWalk walk;
  walk.ctm = ctm;
  walk.rules = c->rules;
  float lw = stroke != nullptr ? stroke->linewidth : 1.0f;
  walk.half_width = std::max(0.25, std::fabs(static_cast<double>(lw) * fz_matrix_expansion(ctm)) / 2);
  fz_walk_path(ctx, path, &kWalker, &walk);
  AddDrawing(c->drawings, fz_bound_path(ctx, path, nullptr, ctm));
}

void CollectorFillImage(fz_context*, fz_device* dev, fz_image*, fz_matrix ctm, float alpha, fz_color_params) {
  if (alpha <= 0) return;
  auto* c = reinterpret_cast<Collector*>(dev);
  fz_rect r = fz_transform_rect(fz_unit_rect, ctm);
  if (c->images->size() < 2000) c->images->push_back({r.x0, r.y0, r.x1, r.y1});
}

// A shading: its bounds inside the clip it is painted through (a ball bullet, a gradient box); a shading
// with no finite bounds, painted across the page, adds nothing.
void CollectorFillShade(fz_context* ctx, fz_device* dev, fz_shade* shade, fz_matrix ctm, float alpha,
                        fz_color_params) {
  if (alpha <= 0) return;
  fz_rect b = fz_bound_shade(ctx, shade, ctm);
  if (dev->container_len > 0) b = fz_intersect_rect(b, dev->container[dev->container_len - 1].scissor);
  if (fz_is_infinite_rect(b) || std::fabs(b.x1 - b.x0) > 1e6 || std::fabs(b.y1 - b.y0) > 1e6) return;
  AddDrawing(reinterpret_cast<Collector*>(dev)->shadings, b);
}

std::string FontFamily(fz_context* ctx, fz_font* font);

// A glyph of a math font whose ink says where it stands better than its font's ascent and descent: a
// radical sign (TeX's hangs from its baseline).
bool WantsInk(const fz_text_item& item) { return item.ucs == 0xFFFD || item.ucs == 0x221A; }

// One glyph of a math font mapped to no character, named and bounded when its name says what it draws;
// or a radical sign, bounded.
void NameGlyph(fz_context* ctx, Collector* c, const fz_text_span* span, const fz_text_item& item,
               fz_matrix ctm) {
  char name[64] = {};
  if (item.ucs == 0xFFFD) fz_get_glyph_name(ctx, span->font, item.gid, name, sizeof name);
  const char32_t rune = item.ucs == 0xFFFD ? TexExtensionGlyph(name) : static_cast<char32_t>(item.ucs);
  const bool piece = rune == 0 && IsTexExtensionPiece(name);
  if (rune == 0 && !piece) return;
  fz_matrix trm = span->trm;
  trm.e = item.x;
  trm.f = item.y;
  const fz_rect b = fz_bound_glyph(ctx, span->font, item.gid, fz_concat(trm, ctm));
  const Rect ink{b.x0, b.y0, b.x1, b.y1};
  if (piece) {
    c->pieces->push_back(ink);
  } else {
    (*c->named_glyphs)[SpotOf(fz_transform_point_xy(item.x, item.y, ctm))] = {rune, ink};
  }
}

// (A glyph its font cannot name or bound stays unmapped; the page is read all the same. Running out of
// memory or time is no font's fault and goes on up.)
void TryNameGlyph(fz_context* ctx, Collector* c, const fz_text_span* span, const fz_text_item* item,
                  const fz_matrix* ctm) {
  fz_try(ctx) { NameGlyph(ctx, c, span, *item, *ctm); }
  fz_catch(ctx) {
    const int code = fz_caught(ctx);
    if (code == FZ_ERROR_MEMORY || code == FZ_ERROR_ABORT || code == FZ_ERROR_TRYLATER) fz_rethrow(ctx);
  }
}

void NameMathGlyphs(fz_context* ctx, Collector* c, const fz_text* text, fz_matrix ctm) {
  for (const fz_text_span* span = text->head; span != nullptr; span = span->next) {
    const bool wanted = std::any_of(span->items, span->items + span->len,
                                    [](const fz_text_item& item) { return WantsInk(item) && item.gid >= 0; });
    if (!wanted || !IsMathFont(FontFamily(ctx, span->font))) continue;
    for (int i = 0; i < span->len && c->named_glyphs->size() + c->pieces->size() < kMaxNamedGlyphs; ++i) {
      const fz_text_item& item = span->items[i];
      if (!WantsInk(item) || item.gid < 0) continue;
      TryNameGlyph(ctx, c, span, &item, &ctm);
    }
  }
}

// A tall delimiter is set in pieces: its top piece (named) reaches over the pieces stacked under it.
void ReachOverPieces(NamedGlyphs& named, std::vector<Rect> pieces) {
  std::sort(pieces.begin(), pieces.end(), [](const Rect& a, const Rect& b) { return a.y0 < b.y0; });
  for (auto& [spot, glyph] : named) {
    Rect& ink = glyph.ink;
    for (const Rect& p : pieces) {
      const bool under = p.y0 >= ink.y0 && p.y0 <= ink.y1 + 1;
      const bool level =
          std::min(p.x1, ink.x1) - std::max(p.x0, ink.x0) >= 0.5 * std::min(p.width(), ink.width());
      if (under && level) ink = ink.Union(p);
    }
  }
}

void CollectorFillText(fz_context* ctx, fz_device* dev, const fz_text* text, fz_matrix ctm, fz_colorspace*,
                       const float*, float, fz_color_params) {
  NameMathGlyphs(ctx, reinterpret_cast<Collector*>(dev), text, ctm);
}

void CollectorClipText(fz_context* ctx, fz_device* dev, const fz_text* text, fz_matrix ctm, fz_rect) {
  NameMathGlyphs(ctx, reinterpret_cast<Collector*>(dev), text, ctm);
}

void CollectorIgnoreText(fz_context* ctx, fz_device* dev, const fz_text* text, fz_matrix ctm) {
  NameMathGlyphs(ctx, reinterpret_cast<Collector*>(dev), text, ctm);
}

void CollectorStrokeText(fz_context* ctx, fz_device* dev, const fz_text* text, const fz_stroke_state* stroke,
                         fz_matrix ctm, fz_colorspace*, const float*, float alpha, fz_color_params) {
  auto* c = reinterpret_cast<Collector*>(dev);
  NameMathGlyphs(ctx, c, text, ctm);
  if (alpha <= 0) return;
  fz_rect r = fz_bound_text(ctx, text, stroke, ctm);
  if (c->stroked_text->size() < 5000) c->stroked_text->push_back({r.x0, r.y0, r.x1, r.y1});
}

bool FontIsBold(fz_context* ctx, fz_font* font) {
  if (font == nullptr) return false;
  if (fz_font_is_bold(ctx, font)) return true;
  std::string name = fz_font_name(ctx, font);
  for (const char* k : {"Bold", "bold", "Black", "Heavy", "Semibold", "SemiBold", "Demi"}) {
    if (name.find(k) != std::string::npos) return true;
  }
  return false;
}

bool FontIsItalic(fz_context* ctx, fz_font* font) {
  if (font == nullptr) return false;
  if (fz_font_is_italic(ctx, font)) return true;
  std::string name = fz_font_name(ctx, font);
  return name.find("Italic") != std::string::npos || name.find("Oblique") != std::string::npos;
}

bool FontIsMonospace(fz_context* ctx, fz_font* font) {
  if (font == nullptr) return false;
  if (fz_font_is_monospaced(ctx, font)) return true;
  std::string name = fz_font_name(ctx, font);
  for (const char* k : {"Courier", "Mono", "mono", "Consol", "Code"}) {
    if (name.find(k) != std::string::npos) return true;
  }
  return false;
}

// "ABCDEF+Times-Roman" -> "Times": no subset prefix, no style after '-' or ','.
std::string FontFamily(fz_context* ctx, fz_font* font) {
  if (font == nullptr) return {};
  std::string name = fz_font_name(ctx, font);
  size_t plus = name.find('+');
  if (plus != std::string::npos && plus <= 7) name = name.substr(plus + 1);
  size_t cut = name.find_first_of("-,");
  if (cut != std::string::npos) name.resize(cut);
  return name;
}

// Appends `rune` with its box; a ligature becomes its letters, each with an equal share of the box.
void AppendChar(std::vector<TextChar>& chars, char32_t rune, const Rect& box) {
  std::u32string_view letters = LigatureLetters(rune);
  if (letters.empty()) {
    chars.push_back({rune, box});
    return;
  }
  double step = box.width() / static_cast<double>(letters.size());
  for (size_t k = 0; k < letters.size(); ++k) {
    Rect part{box.x0 + step * static_cast<double>(k), box.y0, box.x0 + step * static_cast<double>(k + 1),
              box.y1};
    chars.push_back({letters[k], part, true});
  }
}

// An accent set as a glyph of its own over or under a letter (TeX's \"o in its original encoding: "¨"
// then "o", drawn over one another), its middle within the letter's advance, beside it in the line:
// the letter accented ("ö"), where Unicode has such a letter; the accent's glyph goes.
void ComposeAccents(std::vector<TextChar>& chars) {
  for (size_t i = 0; i < chars.size(); ++i) {
    if (!IsSpacingAccent(chars[i].rune)) continue;
    const double cx = chars[i].box.cx();
    for (size_t j : {i + 1, i - 1}) {  // the letter after it (TeX's order), else the one before
      if (j >= chars.size()) continue;
      TextChar& letter = chars[j];
      const char32_t accented = ComposeAccent(letter.rune, chars[i].rune);
      if (accented == 0 || cx < letter.box.x0 || cx > letter.box.x1) continue;
      letter.rune = accented;
      chars.erase(chars.begin() + static_cast<std::ptrdiff_t>(i));
      --i;
      break;
    }
  }
}

// A line set with letter spacing (justified Chinese, a tracked heading) has that spacing between all its
// glyphs, and MuPDF reads it as word spaces ("A n n u a l", "2 0 2 2 年"). On a line whose glyphs stand
// apart by a tracking of at least kMinTrackingEms (the median gap between neighbouring glyphs: zero in
// text set solid, where most neighbours are inside words), a space no wider than the tracking by
// kSpaceOverTrackingEms is dropped; real word spaces add the space glyph's own width to the tracking.
constexpr double kMinTrackingEms = 0.08;
constexpr double kSpaceOverTrackingEms = 0.12;

void DropTrackingSpaces(std::vector<TextChar>& chars, double size) {
  if (size <= 0) return;
  // Letters, digits and ideographs only: the dots of a leader stand apart (". . .") and stay so. Not
  // Hangul: Korean puts spaces between its words, narrow ones in justified lines.
  auto word_glyph = [](char32_t r) { return (IsLtrStrong(r) || (r >= '0' && r <= '9')) && !IsHangul(r); };
  std::vector<double> tracking;  // gaps between neighbouring glyphs, whether MuPDF put a space or not
  const TextChar* last = nullptr;
  for (const TextChar& c : chars) {
    if (c.rune == ' ') continue;
    if (last != nullptr && !c.ligature && word_glyph(c.rune) && word_glyph(last->rune)) {
      tracking.push_back(c.box.x0 - last->box.x1);
    }
    last = &c;
  }
  if (tracking.size() < 3) return;
  const double track = Median(std::move(tracking));
  if (track < kMinTrackingEms * size) return;
  std::vector<TextChar> kept;
  for (size_t i = 0; i < chars.size(); ++i) {
    if (chars[i].rune == ' ' && !kept.empty() && kept.back().rune != ' ') {
      size_t next = i;
      while (next < chars.size() && chars[next].rune == ' ') ++next;
      if (next < chars.size() && word_glyph(kept.back().rune) && word_glyph(chars[next].rune) &&
          chars[next].box.x0 - kept.back().box.x1 < track + kSpaceOverTrackingEms * size) {
        i = next - 1;
        continue;
      }
    }
    kept.push_back(chars[i]);
  }
  chars = std::move(kept);
}

// A CJK font that gives no widths of its own (no /W array) advances every glyph a full em, and sets
// digits and Latin letters in full-width cells; MuPDF reads the rest of each cell as a word space
// ("1 2 3 , 4 5 6 . 7 8 万元"). A space after a half-width character drawn by a font that draws the
// line's CJK characters too, before another character of that font whose left edge stands one em from
// the first's (a space of its own would take a cell more), is dropped, unless two half-width characters of
// the line touch with less than an em between them.
void DropFullWidthCellSpaces(std::vector<TextChar>& chars, const std::vector<bool>& in_cjk_font,
                             double size) {
  auto half_width = [&](size_t i) {
    return chars[i].rune != ' ' && chars[i].rune < 0x2E80 && in_cjk_font[i];
  };
  // Half-width characters of such a font that touch with less than an em between their left edges: the
  // font has widths (MS Mincho's half-width Latin), and "Hello world" has a real space.
  for (size_t i = 0; i + 1 < chars.size(); ++i) {
    if (half_width(i) && half_width(i + 1) && chars[i + 1].box.x0 - chars[i].box.x0 < 0.9 * size) return;
  }
  std::vector<TextChar> kept;
  size_t last = SIZE_MAX;  // index in `chars` of kept.back() when it is no space
  for (size_t i = 0; i < chars.size(); ++i) {
    if (chars[i].rune == ' ' && last != SIZE_MAX) {
      size_t next = i;
      while (next < chars.size() && chars[next].rune == ' ') ++next;
      const double step = next < chars.size() ? chars[next].box.x0 - chars[last].box.x0 : 0;
      if (next < chars.size() && half_width(last) && in_cjk_font[next] &&
          std::fabs(step - size) <= 0.1 * size) {
        i = next - 1;
        continue;
      }
    }
    last = chars[i].rune == ' ' ? SIZE_MAX : i;
    kept.push_back(chars[i]);
  }
  chars = std::move(kept);
}

// Two figures with thousands separators set with no gap between them read as one
// ("29,760,02133,871,648"): after a figure's leading group of 1 to 3 digits and its groups of three, a
// group of 4 to 6 digits followed by another comma is the end of the figure (its first three digits) and
// the start of the next one. A space marked `parts_numbers` goes between them. (Indian groups of two and
// decimal commas never have a comma after 4 to 6 digits.)
void SplitGluedNumbers(std::vector<TextChar>& chars) {
  auto digit = [&](size_t i) { return i < chars.size() && chars[i].rune >= '0' && chars[i].rune <= '9'; };
  std::vector<size_t> splits;  // a space goes before each of these characters
  for (size_t i = 0; i < chars.size(); ++i) {
    const bool after_figure = i > 0 && (digit(i - 1) || chars[i - 1].rune == ',' || chars[i - 1].rune == '.');
    if (!digit(i) || (after_figure && (splits.empty() || splits.back() != i))) continue;
    size_t j = i;
    while (digit(j)) ++j;
    if (j - i > 3) {
      i = j - 1;
      continue;
    }
    while (j < chars.size() && chars[j].rune == ',') {
      size_t k = j + 1;
      while (digit(k)) ++k;
      const size_t group = k - (j + 1);
      if (group == 3) {
        j = k;
        continue;
      }
      if (group >= 4 && group <= 6 && k < chars.size() && chars[k].rune == ',') {
        splits.push_back(j + 4);  // after the comma and three digits: the next figure starts there
        j += 3;
      }
      break;
    }
    i = splits.empty() || splits.back() <= i ? j - 1 : splits.back() - 1;
  }
  if (splits.empty()) return;
  std::vector<TextChar> out;
  out.reserve(chars.size() + splits.size());
  size_t s = 0;
  for (size_t i = 0; i < chars.size(); ++i) {
    if (s < splits.size() && splits[s] == i) {
      const Rect& next = chars[i].box;
      TextChar space{' ', {next.x0, next.y0, next.x0, next.y1}};
      space.parts_numbers = true;
      out.push_back(space);
      ++s;
    }
    out.push_back(chars[i]);
  }
  chars = std::move(out);
}

// A glyph's box as MuPDF gives it spans its font's ascender to its descender. Some fonts (TeX's math and
// symbol fonts, Type3 fonts with a loose FontBBox) report twice the height of their ink, and a bullet in
// such a font made its line overlap the next one, breaking the list item it starts. A horizontal glyph
// box taller than kMaxGlyphEms em is cut to the usual ascender and descender around its baseline.
constexpr double kMaxGlyphEms = 1.6;
constexpr double kAscenderEms = 0.95;
constexpr double kDescenderEms = 0.3;

Rect GlyphBox(const fz_stext_line* line, const fz_stext_char* ch) {
  fz_rect q = fz_rect_from_quad(ch->quad);
  Rect box{q.x0, q.y0, q.x1, q.y1};
  bool horizontal = std::fabs(line->dir.y) < 0.01 && line->dir.x > 0;
  if (horizontal && ch->size > 0 && box.height() > kMaxGlyphEms * ch->size) {
    box.y0 = std::max(box.y0, static_cast<double>(ch->origin.y) - kAscenderEms * ch->size);
    box.y1 = std::min(box.y1, static_cast<double>(ch->origin.y) + kDescenderEms * ch->size);
  }
  return box;
}

// A glyph drawn over the same glyph right before it (most of the narrower one's width shared): a
// justification's filler laid over its neighbour, or a letter printed twice to fake bold; never two
// letters of a word, which stand side by side.
bool IsDrawnAgain(const TextChar& prev, char32_t rune, const Rect& box) {
  if (rune != prev.rune || rune == ' ') return false;
  const double narrower = std::min(box.width(), prev.box.width());
  const double shared = std::min(box.x1, prev.box.x1) - std::max(box.x0, prev.box.x0);
  return narrower > 0.01 && shared >= kDrawnAgainShare * narrower && VerticalOverlap(box, prev.box) > 0.5;
}

// One MuPDF line -> a fragment with per-char boxes; its height is that of its glyph boxes (GlyphBox).
// Whether MuPDF's `line`, read into `frag`, runs left to right on a horizontal baseline.
bool RunsLeftToRight(const fz_stext_line* line, const TextLine& frag) {
  return std::fabs(line->dir.y) < 0.01 && line->dir.x > 0 && !frag.rtl;
}

TextLine FragmentFromLine(fz_context* ctx, fz_stext_line* line, const NamedGlyphs& named) {
  TextLine frag;
  frag.box = {line->bbox.x0, line->bbox.y0, line->bbox.x1, line->bbox.y1};
  double ink_y0 = frag.box.y1, ink_y1 = frag.box.y0;
  std::map<int, int> sizes;  // size in 0.5 pt -> chars
  std::map<std::string, int> families;
  fz_font* last_font = nullptr;
  std::string last_family, last_face;
  bool last_math = false, last_bold = false;
  int bold = 0, mono = 0, italic = 0, rtl = 0, ltr = 0, total = 0;
  std::vector<fz_font*> char_fonts;    // per char of frag.chars
  std::set<fz_font*> ideograph_fonts;  // fonts that draw CJK characters on this line
  for (fz_stext_char* ch = line->first_char; ch != nullptr; ch = ch->next) {
    Rect box = GlyphBox(line, ch);
    // (The line's height is its glyphs' font boxes: a tall delimiter's ink reaching over the next line
    // does not make the two one.)
    ink_y0 = std::min(ink_y0, box.y0);
    ink_y1 = std::max(ink_y1, box.y1);
    bool ink = false;
    auto rune = static_cast<char32_t>(ch->c);
    if ((rune == 0xFFFD || rune == U'√') && !named.empty()) {
      auto it = named.find(SpotOf(ch->origin));
      if (it != named.end() && !it->second.ink.empty()) {
        rune = it->second.rune;
        box = it->second.ink;
        ink = true;
      }
    }
    if (rune == ' ' && !frag.chars.empty() && ch->next != nullptr &&
        IsLigatureGap(frag.chars.back(), static_cast<char32_t>(ch->next->c))) {
      continue;
    }
    if (!frag.chars.empty() && IsDrawnAgain(frag.chars.back(), rune, box)) continue;
    if (ch->font != last_font) {
      last_font = ch->font;
      last_family = FontFamily(ctx, ch->font);
      last_math = IsMathFont(last_family);
      const bool b = FontIsBold(ctx, ch->font), i = FontIsItalic(ctx, ch->font);
      last_bold = b;
      last_face = last_family + (b || i ? "/" : "") + (b ? "b" : "") + (i ? "i" : "");
    }
    const size_t first_new = frag.chars.size();
    AppendChar(frag.chars, rune, box);
    for (size_t k = first_new; k < frag.chars.size(); ++k) {
      frag.chars[k].math = last_math;
      frag.chars[k].alphabet = AlphabetOfFontLetter(last_family, last_bold, frag.chars[k].rune);
      frag.chars[k].size = ch->size;
      frag.chars[k].baseline = ch->origin.y;
      frag.chars[k].ink = ink;
    }
    char_fonts.resize(frag.chars.size(), ch->font);
    if (IsCjkChar(rune)) ideograph_fonts.insert(ch->font);
    // A ToUnicode map that turns one ligature glyph into several letters gives the letters after the
    // first no width of their own.
    size_t n = frag.chars.size();
    if (n >= 2 && box.width() < 0.01 && (rune == 'i' || rune == 'l' || rune == 'f') &&
        (frag.chars[n - 2].rune == 'f')) {
      frag.chars[n - 2].ligature = frag.chars[n - 1].ligature = true;
    }
    if (ch->c == ' ') continue;
    ++total;
    sizes[static_cast<int>(std::lround(ch->size * 2))]++;
    bool is_bold = FontIsBold(ctx, ch->font), is_italic = FontIsItalic(ctx, ch->font);
    ++families[last_family];
    ++frag.faces[last_face];
    if (is_bold) ++bold;
    if (is_italic) ++italic;
    if (FontIsMonospace(ctx, ch->font)) ++mono;
    if (IsRtlChar(static_cast<char32_t>(ch->c))) ++rtl;
    if (IsLtrStrong(static_cast<char32_t>(ch->c))) ++ltr;
  }
  int best = 0;
  for (auto [s, n] : sizes) {
    if (n > best) {
      best = n;
      frag.font_size = s / 2.0;
    }
  }
  int most = 0;
  for (const auto& [name, n] : families) {
    if (n > most) {
      most = n;
      frag.font = name;
    }
  }
  frag.bold = total > 0 && bold * 2 > total;
  frag.italic = total > 0 && italic * 2 > total;
  frag.sideways = std::fabs(line->dir.y) > std::fabs(line->dir.x);
  // (Glyphs set on their side are as wide as the line is tall, whatever their advances: no measure.)
  frag.monospace = (total > 0 && mono * 2 > total) ||
                   (!frag.sideways && MeasureAdvances(frag.chars) == Advances::kUniform);
  frag.rtl = rtl > ltr;
  if (RunsLeftToRight(line, frag)) {
    if (!ideograph_fonts.empty()) {
      std::vector<bool> in_cjk_font(frag.chars.size());
      for (size_t i = 0; i < frag.chars.size(); ++i)
        in_cjk_font[i] = ideograph_fonts.count(char_fonts[i]) > 0;
      DropFullWidthCellSpaces(frag.chars, in_cjk_font, frag.font_size);
    }
    DropTrackingSpaces(frag.chars, frag.font_size);
    SplitGluedNumbers(frag.chars);
    ComposeAccents(frag.chars);
  }
  // A math alphabet's letters read as the plain letters they style (after the spacing is read: a
  // formula's letters set apart are no letter-spaced word).
  for (TextChar& c : frag.chars) {
    if (const MathAlphabet a = AlphabetOfMathLetter(c.rune); a != MathAlphabet::kPlain) c.alphabet = a;
    c.rune = PlainMathLetter(c.rune);
  }
  if (ink_y0 < ink_y1) {
    frag.box.y0 = ink_y0;
    frag.box.y1 = ink_y1;
  }
  return frag;
}

// An underscore drawn as a rule, not set as a glyph (TeX's \_ in its original font encoding): a thin
// horizontal drawing, 0.25 to 1 em long and at most 0.12 em thick, in the lower half of a line, filling
// the gap between two of its glyphs ("vram" and "budget"). Becomes "_" in its place, the spaces there
// dropped.
void AddDrawnUnderscores(std::vector<TextLine>& lines, const std::vector<Rect>& drawings) {
  std::vector<const Rect*> bars;
  for (const Rect& d : drawings) {
    if (d.height() <= 1.5 && d.width() >= 2 && d.width() <= 12) bars.push_back(&d);
  }
  if (bars.empty()) return;
  std::vector<const Rect*> fitting;  // the bars of a line's size in its lower half
  for (TextLine& line : lines) {
    const double em = std::max(1.0, line.font_size);
    const double h = line.box.height();
    fitting.clear();
    for (const Rect* d : bars) {
      if (d->height() <= 0.12 * em && d->width() >= 0.25 * em && d->width() <= em &&
          d->cy() >= line.box.y0 + 0.55 * h && d->cy() <= line.box.y1 + 0.15 * h)
        fitting.push_back(d);
    }
    if (fitting.empty()) continue;
    bool changed = false;
    for (size_t a = 0; a + 1 < line.chars.size(); ++a) {
      if (line.chars[a].rune == ' ') continue;
      size_t b = a + 1;
      while (b < line.chars.size() && line.chars[b].rune == ' ') ++b;
      if (b == line.chars.size()) break;
      const double x0 = line.chars[a].box.x1, x1 = line.chars[b].box.x0;
      for (const Rect* d : fitting) {
        if (d->x0 < x0 - 0.1 * em || d->x1 > x1 + 0.1 * em) continue;
        line.chars.erase(line.chars.begin() + static_cast<std::ptrdiff_t>(a + 1),
                         line.chars.begin() + static_cast<std::ptrdiff_t>(b));
        line.chars.insert(line.chars.begin() + static_cast<std::ptrdiff_t>(a + 1), {U'_', *d});
        changed = true;
        break;
      }
    }
    if (changed) BuildText(line);
  }
}

// A vector of the one line (a braced list would copy it, characters and all).
std::vector<TextLine> Alone(TextLine&& line) {
  std::vector<TextLine> one;
  one.push_back(std::move(line));
  return one;
}

// A left-to-right fragment cut where its text jumps back an em or more to the left (text set later on
// the same baseline further left, a table's cell drawn after the cells right of it, that MuPDF put on the
// same line) and, but in code, where spaces stand for a gap of two ems or more (a typesetter filling a
// table's gutter with space glyphs: a run of cells drawn after a cell it would otherwise lie over), those
// spaces dropped. Each part keeps the fragment's style; MergeFragments puts the parts in order.
std::vector<TextLine> SplitAtJumpsBack(TextLine frag) {
  // (A phrase in Arabic or Hebrew runs leftwards in logical order: no jump back, MergeFragments' to read.)
  if (std::any_of(frag.chars.begin(), frag.chars.end(), [](const TextChar& c) { return IsRtlChar(c.rune); }))
    return Alone(std::move(frag));
  const double em = std::max(1.0, frag.font_size);
  double right = -1e18;  // the right edge of the glyphs so far
  bool cut = false;
  for (const TextChar& c : frag.chars) {
    if (c.rune == ' ') {
      // (Not in code, whose spaces set its columns.)
      cut = cut || (!frag.monospace && right > -1e17 && c.box.x1 - right >= 2 * em);
      continue;
    }
    cut = cut || c.box.x1 < right - em;
    right = std::max(right, c.box.x1);
  }
  if (!cut) return Alone(std::move(frag));
  std::vector<TextChar> all = std::move(frag.chars);
  frag.chars.clear();  // each part copies the line's style, not its characters
  std::vector<TextLine> parts;
  std::vector<TextChar> chars;
  auto flush = [&] {
    while (!chars.empty() && chars.back().rune == ' ') chars.pop_back();
    if (chars.empty()) return;
    TextLine part = frag;
    part.chars = std::move(chars);
    chars.clear();
    part.box.x0 = 1e18;
    part.box.x1 = -1e18;
    for (const TextChar& c : part.chars) {
      part.box.x0 = std::min(part.box.x0, c.box.x0);
      part.box.x1 = std::max(part.box.x1, c.box.x1);
    }
    parts.push_back(std::move(part));
  };
  double reach = -1e18;
  for (size_t i = 0; i < all.size(); ++i) {
    const TextChar& c = all[i];
    if (c.rune == ' ') {
      size_t end = i;
      while (end < all.size() && all[end].rune == ' ') ++end;
      if (all[end - 1].box.x1 - c.box.x0 >= 2 * em) {
        flush();
        i = end - 1;
        continue;
      }
      chars.push_back(c);
      continue;
    }
    if (!chars.empty() && c.box.x1 < reach - em) flush();
    reach = chars.empty() ? c.box.x1 : std::max(reach, c.box.x1);
    chars.push_back(c);
  }
  flush();
  if (parts.size() > 1) return parts;
  frag.chars = std::move(all);
  return Alone(std::move(frag));
}

// The quarter turn (degrees clockwise) that makes most of a page's text read left to right: 0 unless the
// characters on lines of one other direction outnumber all the rest (at least kMinTurnedChars of them).
int TurnToReadUpright(const fz_stext_page* stext) {
  std::map<int, int> chars;  // turn -> characters
  int total = 0;
  for (const fz_stext_block* block = stext->first_block; block != nullptr; block = block->next) {
    if (block->type != FZ_STEXT_BLOCK_TEXT) continue;
    for (const fz_stext_line* line = block->u.t.first_line; line != nullptr; line = line->next) {
      if (line->wmode != 0) continue;
      int n = 0;
      for (const fz_stext_char* ch = line->first_char; ch != nullptr; ch = ch->next) n += ch->c != ' ';
      total += n;
      const fz_point d = line->dir;
      const int turn = d.x > 0.99f ? 0 : d.y < -0.99f ? 90 : d.y > 0.99f ? 270 : d.x < -0.99f ? 180 : 0;
      chars[turn] += n;
    }
  }
  for (const auto& [turn, n] : chars) {
    if (turn != 0 && n >= kMinTurnedChars && 2 * n > total) return turn;
  }
  return 0;
}

bool IsNarrowGlyph(char32_t c) {
  return c == 'i' || c == 'l' || c == 'j' || c == 't' || c == 'f' || c == 'I' || c == '.' || c == ',' ||
         c == ':' || c == ';' || c == '!' || c == '\'' || c == '|' || c == '(' || c == ')';
}

// A bare number (up to four digits) set smaller than the line beside it and apart from it by half an em
// or more: a line number in the margin, not part of that line (a footnote mark touches its word).
bool IsMarginNumber(const TextLine& number, const TextLine& line, double gap) {
  return IsBareNumber(number.text) && number.font_size <= 0.85 * line.font_size &&
         gap >= 0.5 * line.font_size;
}

// Where a fragment comes from: its MuPDF block, the lines in that block and their horizontal extent.
struct FragmentOrigin {
  int block = 0;
  int lines = 0;
  double x0 = 0, x1 = 0;
};

// Fragments of two different blocks of several lines each are two paragraphs side by side (columns),
// not one line.
bool TwoParagraphs(const FragmentOrigin& a, const FragmentOrigin& b) {
  return a.block != b.block && a.lines > 1 && b.lines > 1;
}

// Whether `other`, of another block, stands wholly beyond a side of the extent of `block`, a block of
// several lines, `gap` (from the line `other` would join) half an em or more: a heading or a
// paragraph's last line in one column level with a line of a paragraph in the next (a two-column
// paper's gutter is about an em, which a word space in a justified line can reach), not the rest of a
// line of `block`. An item's label hanging before its text, and a run-in label set wide before its text
// (IsRunInLabel), still join it.
bool BeyondItsBlock(const FragmentOrigin& block, const TextLine& other, const FragmentOrigin& other_block,
                    double gap, double em) {
  if (block.block == other_block.block || block.lines < 2 || gap < 0.5 * em) return false;
  const double slack = 0.1 * em;
  return other.box.x0 >= block.x1 - slack || (other.box.x1 <= block.x0 + slack && !IsBareLabel(other.text));
}

constexpr double kMaxJustifiedSpaceEms = 3;   // a justified line's word space, widest
constexpr double kMaxOverfullEms = 0.3;       // a line overfull into the next column reaches this far in
constexpr double kMinColumnLineEms = 8;       // a line of a column, shortest
constexpr double kJustifiedSpreadEms = 0.15;  // how far the word spaces of one justified line differ
constexpr double kMaxIndentEms = 3;           // a paragraph's first-line indent, widest
constexpr size_t kMinJustifiedPieces = 3;  // fragments of such a line, fewest (two may be a label and text)
constexpr double kEdgeSlackEms = 0.2;      // a justified line's end short of its block's right edge, at most

// Runs of fragments that are one justified line of a paragraph whose words MuPDF set apart (IEEE's
// abstract: four words on a line 1.3 em apart): fragments (sorted by top edge) of one MuPDF block on one
// baseline, three or more, their gaps equal (within kJustifiedSpreadEms) and under
// kMaxJustifiedSpaceEms, from the block's left edge (or a first line's indent) to its right edge, in a
// block with two lines at least that span it whole as one fragment each (prose; a table's rows are
// cells). Each fragment's run, numbered from 0; -1 for none.
std::vector<int> JustifiedRuns(const std::vector<TextLine>& fragments,
                               const std::vector<FragmentOrigin>& origin) {
  std::vector<int> run(fragments.size(), -1);
  std::map<int, int> spanning;  // block -> its lines as wide as the block
  for (size_t i = 0; i < fragments.size(); ++i) {
    const FragmentOrigin& o = origin[i];
    const double em = std::max(1.0, fragments[i].font_size);
    spanning[o.block] += fragments[i].box.x0 <= o.x0 + kMaxIndentEms * em &&
                         fragments[i].box.x1 >= o.x1 - kEdgeSlackEms * em &&
                         fragments[i].box.width() >= 0.8 * (o.x1 - o.x0);
  }
  int next_run = 0;
  std::vector<bool> seen(fragments.size(), false);
  for (size_t i = 0; i < fragments.size(); ++i) {
    if (seen[i] || spanning[origin[i].block] < 2) continue;
    std::vector<size_t> line{i};
    for (size_t j = i + 1; j < fragments.size() && fragments[j].box.y0 < fragments[i].box.y1; ++j) {
      if (origin[j].block == origin[i].block && VerticalOverlap(fragments[i].box, fragments[j].box) > 0.6)
        line.push_back(j);
    }
    for (size_t k : line) seen[k] = true;
    if (line.size() < kMinJustifiedPieces) continue;
    std::sort(line.begin(), line.end(),
              [&](size_t a, size_t b) { return fragments[a].box.x0 < fragments[b].box.x0; });
    const FragmentOrigin& o = origin[i];
    const double em = std::max(1.0, fragments[i].font_size);
    double low = 1e18, high = -1e18;
    for (size_t k = 1; k < line.size(); ++k) {
      const double gap = fragments[line[k]].box.x0 - fragments[line[k - 1]].box.x1;
      low = std::min(low, gap);
      high = std::max(high, gap);
    }
    if (low > 0 && high < kMaxJustifiedSpaceEms * em && high - low <= kJustifiedSpreadEms * em &&
        fragments[line.front()].box.x0 <= o.x0 + kMaxIndentEms * em &&
        fragments[line.back()].box.x1 >= o.x1 - kEdgeSlackEms * em) {
      for (size_t k : line) run[k] = next_run;
      ++next_run;
    }
  }
  return run;
}

// Whether `label` (fragments, left of `rest` on one baseline: "Table 1.", "Proof.", "Note:") is the
// run-in label of a paragraph whose first line goes on at `rest`, set a wide space after it (a justified
// line): the label is short and ends in a period or colon, and a single line right under them spans both
// (the paragraph's next line; a table's row label has cells, not one line, under it). `fragments` are
// sorted by top edge; the search starts at `from`.
bool IsRunInLabel(const std::vector<const TextLine*>& label, const Rect& rest, double size,
                  const std::vector<TextLine>& fragments, size_t from) {
  Rect box = label.front()->box;
  const TextLine* right = label.front();
  size_t chars = 0;
  for (const TextLine* f : label) {
    box = box.Union(f->box);
    if (f->box.x1 > right->box.x1) right = f;
    chars += f->chars.size();
  }
  char32_t last = right->chars.empty() ? 0 : right->chars.back().rune;
  if ((last != '.' && last != ':') || rest.x0 < box.x1 || rest.x0 - box.x1 >= 3 * size || chars > 24) {
    return false;
  }
  double bottom = std::max(box.y1, rest.y1);
  for (size_t k = from; k < fragments.size() && fragments[k].box.y0 < bottom + size; ++k) {
    const Rect& under = fragments[k].box;
    if (under.y0 <= bottom - 0.4 * size) continue;  // on the same baseline
    if (under.x0 <= box.x0 + 0.5 * size && under.x1 >= rest.x1 - 2 * size) return true;
  }
  return false;
}

}  // namespace

Advances MeasureAdvances(const std::vector<TextChar>& chars) {
  std::vector<double> widths;
  bool narrow = false, other = false;
  for (const TextChar& c : chars) {
    if (c.rune == ' ') continue;
    widths.push_back(c.box.x1 - c.box.x0);
    if (IsNarrowGlyph(c.rune)) {
      narrow = true;
    } else if ((c.rune >= 'a' && c.rune <= 'z') || (c.rune >= 'A' && c.rune <= 'Z')) {
      other = true;
    }
  }
  if (widths.size() < 6 || !narrow || !other) return Advances::kUnknown;
  const double median = Median(widths);
  if (median <= 0) return Advances::kUnknown;
  for (double w : widths) {
    if (std::fabs(w - median) > 0.03 * median) return Advances::kVaried;
  }
  return Advances::kUniform;
}

bool IsLowerLatin(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7); }

std::u32string_view LigatureLetters(char32_t c) {
  switch (c) {
    case 0xFB00:
      return U"ff";
    case 0xFB01:
      return U"fi";
    case 0xFB02:
      return U"fl";
    case 0xFB03:
      return U"ffi";
    case 0xFB04:
      return U"ffl";
    case 0xFB05:
    case 0xFB06:
      return U"st";
    default:
      return {};
  }
}

bool IsMathFont(std::string_view family) {
  for (std::string_view tex :
       {"CMMI", "CMSY", "CMEX", "CMBSY", "LMMath", "MSAM", "MSBM", "EUFM", "EUFB", "EUSM", "EUSB", "RSFS"}) {
    if (FamilyStartsWith(family, tex)) return true;
  }
  return family.find("Math") != std::string_view::npos;
}

namespace {

// The non-space glyphs of a line, and their median height and bottom from `from` on: a glyph at most
// 0.8 as tall, its bottom a fifth of that height or more over that bottom, is set small and raised.
struct GlyphMetrics {
  std::vector<const TextChar*> glyphs;
  double height = 0, bottom = 0;
  bool Raised(const TextChar& c) const {
    return c.rune != ' ' && c.box.height() <= 0.8 * height && c.box.y1 <= bottom - 0.2 * height;
  }
};

GlyphMetrics MeasureGlyphs(const TextLine& line, size_t from) {
  GlyphMetrics m;
  for (const TextChar& c : line.chars) {
    if (c.rune != ' ') m.glyphs.push_back(&c);
  }
  std::vector<double> heights, bottoms;
  for (size_t i = from; i < m.glyphs.size(); ++i) {
    heights.push_back(m.glyphs[i]->box.height());
    bottoms.push_back(m.glyphs[i]->box.y1);
  }
  if (!heights.empty()) {
    m.height = Median(std::move(heights));
    m.bottom = Median(std::move(bottoms));
  }
  return m;
}

}  // namespace

bool StartsWithRaisedMark(const TextLine& line) {
  const GlyphMetrics m = MeasureGlyphs(line, 1);
  if (m.glyphs.size() < 4) return false;
  size_t mark = 0;
  while (mark < 3 && mark + 3 < m.glyphs.size() && m.Raised(*m.glyphs[mark])) ++mark;
  return mark > 0 && !m.Raised(*m.glyphs[mark]);
}

bool IsMarkedNameList(const TextLine& line) {
  const GlyphMetrics m = MeasureGlyphs(line, 0);
  if (m.glyphs.size() < 8) return false;
  // The names: the text without its raised glyphs, cut at commas and "and"; a mark after a name's
  // last letter counts it marked.
  std::vector<std::string> names(1);
  std::vector<bool> marked(1, false);
  for (size_t i = 0; i < line.chars.size(); ++i) {
    const TextChar& c = line.chars[i];
    if (m.Raised(c)) {
      marked.back() = marked.back() || !names.back().empty();
      continue;
    }
    if (c.rune == ',' || c.rune == '&') {
      names.emplace_back();
      marked.push_back(false);
      continue;
    }
    AppendUtf8(names.back(), c.rune);
    if (names.back().ends_with(" and ")) {
      names.back().resize(names.back().size() - 5);
      names.emplace_back();
      marked.push_back(false);
    }
  }
  size_t people = 0, with_marks = 0;
  for (size_t k = 0; k < names.size(); ++k) {
    std::vector<std::string> words;
    for (size_t at = 0; at < names[k].size();) {
      const size_t end = std::min(names[k].find(' ', at), names[k].size());
      if (end > at) words.push_back(names[k].substr(at, end - at));
      at = end + 1;
    }
    if (words.empty()) continue;  // a mark after a comma ("Weber1,*")
    const bool name =
        words.size() >= 2 && words.size() <= 4 && std::ranges::all_of(words, [](const std::string& w) {
          return w[0] >= 'A' && w[0] <= 'Z' && std::ranges::all_of(w.substr(1), [](char ch) {
                   return (ch >= 'a' && ch <= 'z') || ch == '.' || ch == '-' || ch == '\'' || (ch & 0x80);
                 });
        });
    if (!name) return false;
    ++people;
    with_marks += marked[k];
  }
  return people >= 2 && with_marks >= 2;
}

bool ShareFace(const TextLine& a, const TextLine& b) {
  auto total = [](const TextLine& l) {
    int n = 0;
    for (const auto& [face, chars] : l.faces) n += chars;
    return n;
  };
  int total_a = total(a), total_b = total(b);
  auto mixed = [](const TextLine& l, int n) {
    for (const auto& [face, chars] : l.faces) {
      if (100 * chars >= 85 * n) return false;
    }
    return n > 0;
  };
  // Two lines each all in one face are of one face only when it is the same one; a line of code or a
  // bold line all in its face keeps to lines whose main face is the same (a line of prose with code in
  // it is none, nor a line of text with a bold word under a heading). A line all in the text face goes
  // with a line of mixed faces that has a quarter in it (a reference's line mostly in italics, a book's
  // title, between lines in roman).
  auto plain = [](const TextLine& l, bool is_mixed) { return is_mixed || (!l.monospace && !l.bold); };
  const bool mixed_a = mixed(a, total_a), mixed_b = mixed(b, total_b);
  if ((!mixed_a && !mixed_b) || !plain(a, mixed_a) || !plain(b, mixed_b)) return false;
  for (const auto& [face, n] : a.faces) {
    auto it = b.faces.find(face);
    if (it != b.faces.end() && 4 * n >= total_a && 4 * it->second >= total_b) return true;
  }
  return false;
}

bool SameFace(const TextLine& a, const TextLine& b) {
  return (a.bold == b.bold && a.italic == b.italic && a.monospace == b.monospace && a.font == b.font) ||
         ShareFace(a, b);
}

bool IsLigatureGap(const TextChar& prev, char32_t next) {
  return prev.ligature && (prev.rune == 'i' || prev.rune == 'l') && IsLowerLatin(next);
}

bool IsCjkChar(char32_t c) {
  return (c >= 0x3000 && c <= 0x9FFF) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFF00 && c <= 0xFFEF);
}

bool IsIdeograph(char32_t c) { return c >= 0x3400 && c <= 0x9FFF; }

bool IsHangul(char32_t c) {
  return (c >= 0x1100 && c <= 0x11FF) || (c >= 0x3130 && c <= 0x318F) || (c >= 0xAC00 && c <= 0xD7AF);
}

bool IsBareNumber(std::string_view text, size_t max_digits) {
  return !text.empty() && text.size() <= max_digits &&
         text.find_first_not_of("0123456789") == std::string_view::npos;
}

int RomanNumeralValue(std::string_view text) {
  if (text.empty() || text.size() > 15) return 0;
  const bool upper = text[0] >= 'A' && text[0] <= 'Z';
  auto digit = [&](char c) {
    switch (upper ? c : static_cast<char>(c - 'a' + 'A')) {
      case 'I':
        return 1;
      case 'V':
        return 5;
      case 'X':
        return 10;
      case 'L':
        return 50;
      case 'C':
        return 100;
      case 'D':
        return 500;
      case 'M':
        return 1000;
      default:
        return 0;
    }
  };
  int value = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool in_case = upper ? (text[i] >= 'A' && text[i] <= 'Z') : (text[i] >= 'a' && text[i] <= 'z');
    const int d = in_case ? digit(text[i]) : 0;
    if (d == 0) return 0;
    value += i + 1 < text.size() && in_case && digit(text[i + 1]) > d ? -d : d;
  }
  if (value <= 0 || value > 3999) return 0;
  // Written the usual way: the value written back gives the same letters.
  static constexpr std::pair<int, std::string_view> kParts[] = {
      {1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"}, {100, "C"}, {90, "XC"}, {50, "L"},
      {40, "XL"},  {10, "X"},   {9, "IX"},  {5, "V"},    {4, "IV"},  {1, "I"}};
  std::string written;
  int rest = value;
  for (const auto& [v, letters] : kParts) {
    for (; rest >= v; rest -= v) written += letters;
  }
  if (written.size() != text.size()) return 0;
  for (size_t i = 0; i < written.size(); ++i) {
    if (written[i] != (upper ? text[i] : static_cast<char>(text[i] - 'a' + 'A'))) return 0;
  }
  return value;
}

size_t Utf8Length(std::string_view text) {
  size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

Rect BodyBox(const TextLine& line) {
  double y0 = line.box.y1, y1 = line.box.y0;
  for (const TextChar& c : line.chars) {
    if (c.size >= 0.9 * line.font_size && c.size > 0 && c.rune > ' ' && !c.ink) {
      y0 = std::min(y0, c.box.y0);
      y1 = std::max(y1, c.box.y1);
    }
  }
  return y0 < y1 ? Rect{line.box.x0, y0, line.box.x1, y1} : line.box;
}

void AppendLineChar(std::string& text, bool& pending_space, char32_t c) {
  if (c == ' ' || c == '\t' || c == 0xA0 || c == '\r' || c == '\n') {
    pending_space = !text.empty();
    return;
  }
  if (c < 0x20 || c == 0xFFFD) return;
  if (pending_space) text.push_back(' ');
  pending_space = false;
  AppendUtf8(text, c);
}

void AppendUtf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    if (c >= 0xD800 && c <= 0xDFFF) c = 0xFFFD;
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x110000) {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

TextLine MergeFragments(std::vector<TextLine> fragments) {
  TextLine line;
  if (fragments.empty()) return line;
  int rtl_chars = 0, ltr_chars = 0;
  std::map<int, size_t> sizes;
  size_t bold = 0, mono = 0, italic = 0, total = 0;
  for (const TextLine& f : fragments) {
    for (const TextChar& c : f.chars) {
      if (IsRtlChar(c.rune)) ++rtl_chars;
      if (IsLtrStrong(c.rune)) ++ltr_chars;
    }
    size_t n = f.chars.size();
    sizes[static_cast<int>(std::lround(f.font_size * 2))] += n;
    if (f.bold) bold += n;
    if (f.monospace) mono += n;
    if (f.italic) italic += n;
    total += n;
    line.box = line.box.Union(f.box);
  }
  line.rtl = rtl_chars > ltr_chars;
  std::sort(fragments.begin(), fragments.end(), [&](const TextLine& a, const TextLine& b) {
    return line.rtl ? a.box.cx() > b.box.cx() : a.box.cx() < b.box.cx();
  });
  size_t best = 0;
  for (auto [s, n] : sizes) {
    if (n > best) {
      best = n;
      line.font_size = s / 2.0;
    }
  }
  line.bold = bold * 2 > total;
  line.monospace = mono * 2 > total;
  line.italic = italic * 2 > total;
  line.sideways = fragments.size() == 1 && fragments.front().sideways;
  std::map<std::string, size_t> families;
  for (const TextLine& f : fragments) {
    families[f.font] += f.chars.size();
    for (const auto& [face, n] : f.faces) line.faces[face] += n;
  }
  size_t most = 0;
  for (const auto& [name, n] : families) {
    if (n > most) {
      most = n;
      line.font = name;
    }
  }
  const double space_gap = 0.15 * std::max(1.0, line.font_size);
  if (line.rtl) {
    // Glyphs of all the fragments by x: producers split such lines at any point, runs in any order.
    std::vector<TextChar> drawn;
    for (const TextLine& f : fragments) drawn.insert(drawn.end(), f.chars.begin(), f.chars.end());
    line.chars = RightToLeftLogical(drawn, space_gap);
    BuildText(line);
    return line;
  }
  double ink_x1 = 0;  // right edge of the glyphs so far
  for (TextLine& f : fragments) {
    if (f.rtl) f.chars = RightToLeftLogical(f.chars, space_gap);  // a phrase in Arabic or Hebrew
    double ink_x0 = std::numeric_limits<double>::max();
    for (const TextChar& c : f.chars) {
      if (c.rune != ' ') ink_x0 = std::min(ink_x0, c.box.x0);
    }
    if (!line.chars.empty() && !f.chars.empty()) {
      const TextChar& prev = line.chars.back();
      const TextChar& next = f.chars.front();
      bool space_already = prev.rune == ' ' || next.rune == ' ';
      if (!space_already && ink_x0 - ink_x1 > space_gap && !IsLigatureGap(prev, next.rune)) {
        line.chars.push_back({' ', {}});
      }
    }
    for (const TextChar& c : f.chars) {
      if (c.rune != ' ') ink_x1 = std::max(ink_x1, c.box.x1);
    }
    line.chars.insert(line.chars.end(), f.chars.begin(), f.chars.end());
  }
  BuildText(line);
  return line;
}

Result<PageContent> ExtractPageContent(PdfDocument& doc, int page_index) {
  PdfDocument::Impl& impl = doc.impl();
  MINERU_ASSIGN_OR_RETURN(PageHandle page, impl.LoadPage(page_index));
  MINERU_ASSIGN_OR_RETURN(fz_rect bounds, impl.PageBounds(page.get()));
  PageContent content;
  content.page = {bounds.x0, bounds.y0, bounds.x1, bounds.y1};
  fz_context* ctx = impl.ctx();
  ScopedCookie cookie(impl.mctx());
  std::vector<Rect> stroked_text;
  NamedGlyphs named_glyphs;
  std::vector<Rect> pieces;
  fz_stext_page* stext = nullptr;
  fz_display_list* list = nullptr;
  fz_device* dev = nullptr;
  Collector* collector = nullptr;
  fz_var(stext);
  fz_var(list);
  fz_var(dev);
  fz_var(collector);
  // The page is interpreted once into a display list, which is replayed into the structured-text device
  // and into the collector of images and ruling lines; when most of the page's text is turned on its
  // side (a table set landscape) or upside down, both are replayed again turned to read upright.
  fz_try(ctx) {
    list = fz_new_display_list(ctx, bounds);
    dev = fz_new_list_device(ctx, list);
    fz_run_page(ctx, page.get(), dev, fz_identity, cookie.get());
    fz_close_device(ctx, dev);
    fz_drop_device(ctx, dev);
    dev = nullptr;

    fz_matrix turn = fz_identity;
    fz_rect frame = bounds;
    for (int pass = 0; pass < 2; ++pass) {
      stext = fz_new_stext_page(ctx, frame);
      fz_stext_options opts{};
      // Ligatures are kept so that AppendChar knows them (a space after one may be an artefact).
      opts.flags = FZ_STEXT_MEDIABOX_CLIP | FZ_STEXT_PRESERVE_LIGATURES;
      dev = fz_new_stext_device(ctx, stext, &opts);
      fz_run_display_list(ctx, list, dev, turn, fz_infinite_rect, cookie.get());
      fz_close_device(ctx, dev);
      fz_drop_device(ctx, dev);
      dev = nullptr;
      if (pass == 1 || (content.turned = TurnToReadUpright(stext)) == 0) break;
      fz_drop_stext_page(ctx, stext);
      stext = nullptr;
      turn = fz_rotate(static_cast<float>(content.turned));
      fz_rect turned = fz_transform_rect(bounds, turn);
      turn = fz_concat(turn, fz_translate(bounds.x0 - turned.x0, bounds.y0 - turned.y0));
      frame = fz_transform_rect(bounds, turn);
      content.page = {frame.x0, frame.y0, frame.x1, frame.y1};
    }

    collector = reinterpret_cast<Collector*>(fz_new_device_of_size(ctx, sizeof(Collector)));
    collector->super.fill_path = CollectorFillPath;
    collector->super.stroke_path = CollectorStrokePath;
    collector->super.fill_image = CollectorFillImage;
    collector->super.fill_shade = CollectorFillShade;
    collector->rules = &content.rules;
    collector->images = &content.images;
    collector->drawings = &content.drawings;
    collector->fills = &content.fills;
    collector->shadings = &content.shadings;
    collector->super.stroke_text = CollectorStrokeText;
    collector->stroked_text = &stroked_text;
    collector->super.fill_text = CollectorFillText;
    collector->super.clip_text = CollectorClipText;
    collector->super.ignore_text = CollectorIgnoreText;
    collector->named_glyphs = &named_glyphs;
    collector->pieces = &pieces;
    fz_run_display_list(ctx, list, &collector->super, turn, fz_infinite_rect, cookie.get());
    fz_close_device(ctx, &collector->super);
  }
  fz_always(ctx) {
    fz_drop_device(ctx, dev);
    if (collector != nullptr) fz_drop_device(ctx, &collector->super);
    fz_drop_display_list(ctx, list);
  }
  fz_catch(ctx) {
    fz_drop_stext_page(ctx, stext);
    return impl.mctx().FailureStatus(ctx, "cannot read the text of page " + std::to_string(page_index + 1));
  }
  if (!impl.mctx().AbortStatus().ok()) fz_drop_stext_page(ctx, stext);
  MINERU_RETURN_IF_ERROR(impl.mctx().AbortStatus());

  ReachOverPieces(named_glyphs, std::move(pieces));

  // Fragments (MuPDF lines), then merged into visual lines by baseline.
  std::vector<TextLine> fragments;
  std::vector<FragmentOrigin> origin;
  int block_no = 0;
  for (fz_stext_block* block = stext->first_block; block != nullptr; block = block->next, ++block_no) {
    if (block->type != FZ_STEXT_BLOCK_TEXT) continue;
    int block_lines = 0;
    double block_x0 = 1e9, block_x1 = -1e9;
    for (fz_stext_line* line = block->u.t.first_line; line != nullptr; line = line->next) {
      ++block_lines;
      block_x0 = std::min(block_x0, static_cast<double>(line->bbox.x0));
      block_x1 = std::max(block_x1, static_cast<double>(line->bbox.x1));
    }
    for (fz_stext_line* line = block->u.t.first_line; line != nullptr; line = line->next) {
      if (line->wmode != 0) continue;  // vertical writing is left to a model
      TextLine whole = FragmentFromLine(ctx, line, named_glyphs);
      std::vector<TextLine> parts =
          RunsLeftToRight(line, whole) ? SplitAtJumpsBack(std::move(whole)) : Alone(std::move(whole));
      for (TextLine& frag : parts) {
        BuildText(frag);
        for (const Rect& r : stroked_text) {
          Rect in = r.Intersect(frag.box);
          if (!in.empty() && in.area() >= 0.6 * frag.box.area()) frag.bold = true;
        }
        if (frag.text.empty()) continue;
        content.num_chars += static_cast<int>(frag.chars.size());
        fragments.push_back(std::move(frag));
        origin.push_back({block_no, block_lines, block_x0, block_x1});
      }
    }
  }
  fz_drop_stext_page(ctx, stext);

  // Group fragments on one baseline: same vertical band, small horizontal gaps, and not two columns
  // side by side (TwoParagraphs, BeyondItsBlock).
  std::vector<size_t> order(fragments.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Rect& x = fragments[a].box;
    const Rect& y = fragments[b].box;
    return x.y0 != y.y0 ? x.y0 < y.y0 : x.x0 < y.x0;
  });
  {
    std::vector<TextLine> sorted;
    std::vector<FragmentOrigin> sorted_origin;
    for (size_t i : order) {
      sorted.push_back(std::move(fragments[i]));
      sorted_origin.push_back(origin[i]);
    }
    fragments = std::move(sorted);
    origin = std::move(sorted_origin);
  }
  const std::vector<int> justified = JustifiedRuns(fragments, origin);
  std::vector<bool> used(fragments.size(), false);
  for (size_t i = 0; i < fragments.size(); ++i) {
    if (used[i]) continue;
    std::vector<TextLine> group{fragments[i]};
    std::vector<const TextLine*> members{&fragments[i]};  // the group's fragments, where they stay put
    used[i] = true;
    Rect box = fragments[i].box;
    double size = std::max(1.0, fragments[i].font_size);
    bool grew = true;
    while (grew) {
      grew = false;
      for (size_t j = i + 1; j < fragments.size() && fragments[j].box.y0 < box.y1; ++j) {
        if (used[j]) continue;
        const Rect& b = fragments[j].box;
        double gap = std::max(b.x0 - box.x1, box.x0 - b.x1);
        // (Fragments that overlap across are no columns, whatever blocks MuPDF put them in: a formula's
        // fraction at a line's end, its denominator taken into the block of the lines after it; a logo's
        // letters kerned into each other. But a line of one column overfull into the next touches that
        // column's line by a sliver, their blocks side by side overlapping by no more, both lines as long
        // as a column's.)
        const double em = std::max(1.0, std::min(size, fragments[j].font_size));
        const double blocks_overlap =
            std::min(origin[i].x1, origin[j].x1) - std::max(origin[i].x0, origin[j].x0);
        const bool sliver = gap > -kMaxOverfullEms * em && blocks_overlap <= kMaxOverfullEms * em &&
                            std::min(box.width(), b.width()) >= kMinColumnLineEms * em;
        const bool paragraphs = TwoParagraphs(origin[i], origin[j]) && (gap >= 0 || sliver);
        const bool beyond = std::any_of(members.begin(), members.end(), [&](const TextLine* m) {
          const FragmentOrigin& from = origin[static_cast<size_t>(m - fragments.data())];
          return BeyondItsBlock(from, fragments[j], origin[j], gap, em) ||
                 BeyondItsBlock(origin[j], *m, from, gap, em);
        });
        // A label set wide before its paragraph's first line, the label either side of the group so far
        // (asked only of a gap too wide for a word space).
        auto run_in = [&] {
          return IsRunInLabel(members, b, size, fragments, j + 1) ||
                 IsRunInLabel({&fragments[j]}, box, size, fragments, j + 1);
        };
        // A word of a justified line the group holds words of (JustifiedRuns), however wide its spaces.
        auto justified_with = [&] {
          return justified[j] >= 0 && std::any_of(members.begin(), members.end(), [&](const TextLine* m) {
                   return justified[static_cast<size_t>(m - fragments.data())] == justified[j];
                 });
        };
        // The same text drawn twice at (almost) the same place fakes bold: keep one copy.
        bool overprint = false;
        for (const TextLine& g : group) {
          Rect in = g.box.Intersect(b);
          overprint = overprint || (g.text == fragments[j].text && in.area() >= 0.7 * b.area());
        }
        if (overprint && VerticalOverlap(box, b) > 0.6) {
          used[j] = true;
          continue;
        }
        const bool margin_number = IsMarginNumber(fragments[j], fragments[i], gap) ||
                                   (group.size() == 1 && IsMarginNumber(fragments[i], fragments[j], gap));
        // A line set on its side is one MuPDF line: its neighbours across are other lines.
        const bool sideways = fragments[i].sideways || fragments[j].sideways;
        if (!paragraphs && !margin_number && !sideways && VerticalOverlap(box, b) > 0.6 &&
            ((!beyond && gap < 1.2 * size) || justified_with() || run_in()) &&
            std::fabs(fragments[j].font_size - size) < 0.5 * size + 1) {
          group.push_back(fragments[j]);
          members.push_back(&fragments[j]);
          used[j] = true;
          box = box.Union(b);
          grew = true;
        }
      }
    }
    content.lines.push_back(MergeFragments(std::move(group)));
  }
  AddDrawnUnderscores(content.lines, content.drawings);
  return content;
}

}  // namespace mineru::document
