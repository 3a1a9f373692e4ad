// OCR for pages without a usable text layer (scans; text layers of replacement or private-use
// characters), with Tesseract: the page's render goes through orientation detection (Tesseract's OSD)
// and deskewing, then Tesseract's layout analysis and recognition; its blocks, paragraphs and reading
// order become blocks of the block model, marked `ocr`, with boxes in the page frame as displayed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/result.h"
#include "document/block.h"
#include "document/rgb_image.h"
#include "document/text_lines.h"

namespace mineru::document {

struct OcrOptions {
  bool enabled = true;  // pages that need it are OCR'd; false: they stay PageStatus::kNeedsOcr
  // Tesseract language names joined by '+' (traineddata files in Tesseract's data folder); checked with
  // CheckOcrLanguages (common/config.h).
  std::string languages = "eng+chi_sim";
  double dpi = 300;                     // render resolution of an OCR'd page
  int64_t page_time_limit_ms = 30'000;  // recognition stops there; the words read so far are kept
};

// What OCR found on one page.
struct OcrPage {
  std::vector<Block> blocks;  // reading order; bboxes in the 0-1000 frame of the render given
  int rotation_deg = 0;       // clockwise rotation of the page's content found by OSD (0, 90, 180, 270)
  double skew_deg = 0;        // small-angle skew removed before recognition
  bool timed_out = false;     // the per-page time limit stopped recognition
  std::vector<std::string> warnings;
};

// What a page's text layer is worth.
enum class TextLayerUse {
  kUsable,
  kEmpty,    // no characters: a scan, or a page of pictures
  kGarbage,  // at least a quarter of its characters U+FFFD or private-use (no usable ToUnicode map)
  // A page-size picture (images cover most of the page) under text that keeps to the page's margins: a
  // scan under a stamp, a Bates number, a repository's "downloaded from" line; or a cover's photo under
  // its title. Read from its pixels when they hold clearly more text than the text layer (OcrHoldsMore).
  kMarginsOverPicture,
};
TextLayerUse JudgeTextLayer(const PageContent& content);

// Whether OCR of a kMarginsOverPicture page read clearly more than its text layer holds (`layer_chars`
// non-space characters): half as much again and 50 characters more. A scan under a stamp holds a page of
// text; a cover's photo holds no more than its title, which OCR reads too.
bool OcrHoldsMore(const std::vector<Block>& read, int layer_chars);

// Recognises one page render made at options.dpi. `stop` (optional) is polled while recognising; when it
// returns a non-OK Status, recognition ends and that Status is returned (a document limit, cancellation).
// Fails with kFailedPrecondition when Tesseract or a language's data cannot be loaded. The Tesseract
// engines are kept per thread and per language list, so a worker loads each model once.
// For a process about to lose access to files (a sandboxed document worker): opens the traineddata
// files of `languages` and of OSD now, read-only, and makes every later engine load read them through
// these fds (Tesseract's FileReader), so a worker pays for loading a model only when a page needs OCR.
// Returns the fds (to keep open across the sandbox); a language whose file is missing is left out and
// fails at use, as it would without this call.
Result<std::vector<int>> PreopenOcrData(const std::string& languages);

Result<OcrPage> RecognizePage(const RgbImage& render, const OcrOptions& options,
                              const std::function<Status()>& stop = {});

}  // namespace mineru::document
